"""validate: a metric returning a dict of sub-scores claims a property (and a direction) per sub-score."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from harness.cli import main
from harness.workflows.axioms import check_axioms
from harness.workflows.validate import validate
from metrics.describe import describe_metric

# A DCI-like metric on |Spearman rho| (factors x codes): modularity reads each code's row share of its best
# factor, compactness each factor's share of its best code, explicitness each factor's best |rho|.
DCI_LIKE = '''
import numpy as np
from scipy.stats import spearmanr

from metrics.describe import describe_metric


def _importance(factors, codes):
    k = factors.shape[1]
    return np.abs(spearmanr(factors, codes).statistic[:k, k:]) + 1e-12


def dci_like(factors, codes):
    r = _importance(factors, codes)
    return {"mod": float(np.mean(r.max(axis=0) / r.sum(axis=0))),
            "comp": float(np.mean(r.max(axis=1) / r.sum(axis=1))),
            "expl": float(np.mean(r.max(axis=1)))}


@describe_metric(property={"mod": "modularity", "comp": "compactness", "expl": "explicitness"})
def described(factors, codes):
    return dci_like(factors, codes)


@describe_metric(property={"rho": "explicitness", "miss": "explicitness"}, higher_is_better={"miss": False})
def rho_and_miss(factors, codes):
    rho = float(np.mean(_importance(factors, codes).max(axis=1)))
    return {"rho": rho, "miss": 1.0 - rho}


def rho_and_bonus(factors, codes):
    # miss is lower-is-better, with a bonus of 0.05 per code beyond one per factor: duplicating a code lowers
    # (improves) it by 0.05, a reward the duplicate_code axiom sees only when it reads miss as lower-is-better
    rho = float(np.mean(_importance(factors, codes).max(axis=1)))
    return {"rho": rho, "miss": 1.0 - rho - 0.05 * (codes.shape[1] - factors.shape[1])}
'''

BATTERY = dict(scenarios_=["noise", "mixing"], builtins=["mig", "sap"], seeds=1, n_samples=1000, progress=False,
               log=lambda _: None)
CLAIMED = {"mod": "modularity", "comp": "compactness", "expl": "explicitness"}


@pytest.fixture(scope="module")
def metric_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sub_scores") / "dci_like.py"
    path.write_text(textwrap.dedent(DCI_LIKE))
    return path


@pytest.fixture(scope="module")
def card(metric_file):
    return validate(f"{metric_file}:described", **BATTERY)


def test_each_sub_score_is_labelled_and_judged_with_its_own_property(card):
    own = card.results.loc[card.results["metric"] == "described"]
    assert own.groupby("sub_score")["property"].agg(set).to_dict() == {sub: {prop} for sub, prop in CLAIMED.items()}
    # each row's ideal is its own property's: under noise explicitness falls as 1 - alpha, the others stay 1
    noise = own.loc[own["scenario"] == "noise"]
    explicit = noise.loc[noise["sub_score"] == "expl"]
    assert np.allclose(explicit["ideal"], 1.0 - explicit["value"]) and len(explicit) == 6
    others = noise.loc[noise["sub_score"] != "expl"]  # 1 while the code carries signal, undefined beyond (issue 39)
    assert others.loc[others["value"] <= 0.5, "ideal"].eq(1.0).all() and others.loc[others["value"] > 0.5, "ideal"].isna().all()
    # one claim for all three left two properties without a sub-score ('absent'); now each has its own
    verdicts = card.verdicts.set_index("characteristic")
    assert "absent" not in set(verdicts.loc[["modularity", "compactness", "explicitness"], "verdict"])
    assert card.to_dict()["property"] == CLAIMED
    assert ("- claims: mod: modularity, comp: compactness, expl: explicitness; "  # every sub-score listed: no "others"
            "higher is better; deterministic") in card.to_markdown()


def test_a_direction_per_sub_score_reaches_the_rows_the_axioms_and_the_card(metric_file):
    reference = f"{metric_file}:rho_and_miss"
    card = validate(reference, scenarios_=["noise"], builtins=[], seeds=1, n_samples=300, probe_samples=2000,
                    progress=False, log=lambda _: None)
    own = card.results.drop_duplicates("sub_score").set_index("sub_score")["higher_is_better"].to_dict()
    assert own == {"rho": True, "miss": False}
    chance = card.axiom_table.set_index("axiom").loc["chance"]
    # rho ~ 0.04 on independent codes and miss = 1 - rho: both at chance in their own direction
    assert chance["result"] == "pass" and chance["measured"] == pytest.approx(1.7834 / np.sqrt(1999), abs=0.015)
    assert {a.axiom: a.passed for a in check_axioms(reference, higher_is_better={"miss": False})}["chance"]
    with pytest.raises(ValueError, match=r"directions given for unknown sub-scores \['mis'\] of metric 'rho_and_miss'; "
                                         "it returned: miss, rho"):
        check_axioms(reference, higher_is_better={"mis": False})  # was ignored: miss read as higher-is-better
    assert "lower is better for miss (criteria, verdicts and the chance axiom read 1 − score" in card.to_markdown()


def test_describe_metric_takes_the_registry_representation_and_checks_it():
    @describe_metric(property=CLAIMED, higher_is_better={"expl": False})
    def scorer(factors, codes):
        return {"mod": 0.0, "comp": 0.0, "expl": 0.0}

    assert scorer.harness_metadata == {"property": CLAIMED, "higher_is_better": {"expl": False}, "stochastic": False}
    with pytest.raises(ValueError, match="property of sub-score 'comp' must be one of"):
        describe_metric(property={"mod": "modularity", "comp": "beauty"})
    with pytest.raises(ValueError, match=r"describe_metric of 'typo': higher_is_better names sub-score\(s\) \['explicit'\] "
                                         r"that property does not \(mod, comp, expl\); name each in property too"):
        @describe_metric(property=CLAIMED, higher_is_better={"explicit": False})
        def typo(factors, codes):  # named in the message (it said "of metric 'metric'")
            return 0.0
    with pytest.raises(TypeError, match="higher_is_better of sub-score 'expl' must be True or False"):
        describe_metric(higher_is_better={"expl": "no"})


def _cli(metric_file, tmp_path, *flags, function="dci_like"):
    return main(["validate", f"{metric_file}:{function}", *flags, "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                 "--n-samples", "300", "--probe-samples", "500", "--out", str(tmp_path / "card"),
                 "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])


def test_cli_property_per_sub_score(metric_file, tmp_path, capsys):
    assert _cli(metric_file, tmp_path, "--property", "mod=modularity,comp=compactness,expl=explicitness") == 0
    saved = json.loads((tmp_path / "card" / "report_card.json").read_text())
    assert saved["property"] == CLAIMED
    assert "claims: mod: modularity, comp: compactness, expl: explicitness" in capsys.readouterr().out


def test_cli_direction_per_sub_score_reaches_calibration_the_axioms_and_the_card(metric_file, tmp_path, capsys):
    # an undecorated dict metric whose miss is lower-is-better, said on the command line alone
    status = main(["validate", f"{metric_file}:rho_and_bonus", "--direction", "miss=lower", "--scenarios", "noise",
                   "--metrics", "mig", "--seeds", "1", "--n-samples", "300", "--out", str(tmp_path / "card"),
                   "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    assert status == 0
    printed = capsys.readouterr().out
    own = pd.read_csv(tmp_path / "card" / "results.csv").query("metric == 'rho_and_bonus'")
    assert own.groupby("sub_score")["higher_is_better"].agg(set).to_dict() == {"rho": {True}, "miss": {False}}
    saved = json.loads((tmp_path / "card" / "report_card.json").read_text())
    assert saved["higher_is_better"] == {"miss": False}
    # calibration reads miss as 1 - miss: a perfect code's miss of 0 is perfect (read as it is, it would be the
    # worst: calibration error 1); the random end is rho ~ 1.7834 / sqrt(299) = 0.10 either way
    calibration = next(row for row in saved["rankings"] if row["criterion"] == "calibration")
    assert calibration["value"] == pytest.approx(1.7834 / np.sqrt(299), abs=0.04)
    axioms = {axiom["axiom"]: axiom for axiom in saved["axioms"]}
    # duplicating a code lowers miss by 0.05: a reward, for a lower-is-better score
    assert axioms["duplicate_code"]["passed"] is False and axioms["duplicate_code"]["detail"] == "miss"
    assert axioms["duplicate_code"]["measured"] == pytest.approx(0.05)
    # on independent codes (probe n = 2000) miss ~ 0.96, at chance as 1 - miss; rho ~ 0.04
    assert axioms["chance"]["passed"] is True and axioms["chance"]["measured"] < 0.05
    assert "lower is better for miss (criteria, verdicts and the chance axiom read 1 − score" in printed


@pytest.mark.slow
def test_cli_direction_replaces_the_decorators_directions_as_a_whole(metric_file, tmp_path, capsys):
    # as --property replaces the decorator's properties: miss (lower in the decorator) is higher-is-better again
    assert _cli(metric_file, tmp_path, "--direction", "rho=lower", function="rho_and_miss") == 0
    saved = json.loads((tmp_path / "card" / "report_card.json").read_text())
    assert saved["higher_is_better"] == {"rho": False}
    # said, since the decorator's claim for miss is dropped
    note = "note: the direction given (rho=lower) replaces the decorator's (miss=lower) as a whole"
    assert note in capsys.readouterr().err
    assert _cli(metric_file, tmp_path / "all", "--direction", "lower", function="rho_and_miss") == 0
    assert json.loads((tmp_path / "all" / "card" / "report_card.json").read_text())["higher_is_better"] is False
    captured = capsys.readouterr()
    assert "claims: rho: explicitness, miss: explicitness; lower is better (criteria" in captured.out
    assert "note: the direction given (lower) replaces the decorator's (miss=lower) as a whole" in captured.err
    # an override agreeing with the decorator, or replacing no claim of its kind, is not remarked on
    assert _cli(metric_file, tmp_path / "same", "--direction", "miss=lower",
                "--property", "rho=explicitness,miss=explicitness",
                function="rho_and_miss") == 0
    assert _cli(metric_file, tmp_path / "none", "--direction", "expl=lower") == 0
    assert "note:" not in capsys.readouterr().err


@pytest.mark.parametrize(("option", "claim", "message"), [
    ("--property", "mod=modularity,explicit=explicitness",
     "the claimed property names sub-score(s) explicit that dci_like did not return on the probe; "
     "it returned: comp, expl, mod (did you mean expl?)"),
    ("--property", "mod=modularity,comp=beauty", "--property: property of sub-score 'comp' must be one of modularity, "
     "compactness, explicitness, holistic; got 'beauty'"),
    ("--property", "mod=modularity,compactness",
     "--property: expected SUB=PROPERTY such as mod=modularity, got 'compactness'"),
    ("--property", "beauty", "--property must be one of modularity, compactness, explicitness, holistic, or "
     "SUB=PROPERTY"),
    ("--property", "compactnes", "SUB=PROPERTY,... per sub-score; got 'compactnes' (did you mean compactness?)"),
    ("--direction", "expl=lower,miss=lower",
     "the claimed direction names sub-score(s) miss that dci_like did not return on the probe; "
     "it returned: comp, expl, mod"),
    ("--direction", "expl=low", "--direction: direction of sub-score 'expl' must be higher or lower; got 'low'"),
    ("--direction", "expl=lower,expl=higher", "--direction names sub-score 'expl' twice"),
    ("--direction", "expl=lower,mod", "--direction: expected SUB=DIRECTION such as miss=lower, got 'mod'"),
    ("--direction", "down", "--direction must be higher or lower, or SUB=DIRECTION,... per sub-score; got 'down'"),
])
def test_cli_refuses_a_bad_claim_in_one_line_before_the_battery(metric_file, tmp_path, capsys, option, claim, message):
    assert _cli(metric_file, tmp_path, option, claim) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "cache").exists() and not (tmp_path / "card").exists()  # nothing ran


def test_cli_direction_and_a_direction_flag_exclude_each_other(metric_file, tmp_path, capsys):
    assert _cli(metric_file, tmp_path, "--direction", "expl=lower", "--lower-is-better") == 2
    assert "not allowed with argument --direction" in capsys.readouterr().err
