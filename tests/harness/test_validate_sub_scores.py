"""validate: a metric returning a dict of sub-scores claims a property (and a direction) per sub-score."""

from __future__ import annotations

import json
import textwrap

import numpy as np
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
    assert noise.loc[noise["sub_score"] != "expl", "ideal"].eq(1.0).all()
    # one claim for all three left two properties without a sub-score ('absent'); now each has its own
    verdicts = card.verdicts.set_index("characteristic")
    assert "absent" not in set(verdicts.loc[["modularity", "compactness", "explicitness"], "verdict"])
    assert card.to_dict()["property"] == CLAIMED
    assert ("- claims: mod: modularity, comp: compactness, expl: explicitness (other sub-scores holistic); "
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
    assert "lower is better for miss (criteria, verdicts and the chance axiom read 1 − score" in card.to_markdown()


def test_describe_metric_takes_the_registry_representation_and_checks_it():
    @describe_metric(property=CLAIMED, higher_is_better={"expl": False})
    def scorer(factors, codes):
        return {"mod": 0.0, "comp": 0.0, "expl": 0.0}

    assert scorer.harness_metadata == {"property": CLAIMED, "higher_is_better": {"expl": False}, "stochastic": False}
    with pytest.raises(ValueError, match="property of sub-score 'comp' must be one of"):
        describe_metric(property={"mod": "modularity", "comp": "beauty"})
    with pytest.raises(ValueError, match="directions given for unknown sub-scores"):
        describe_metric(property=CLAIMED, higher_is_better={"explicit": False})
    with pytest.raises(TypeError, match="higher_is_better of sub-score 'expl' must be True or False"):
        describe_metric(higher_is_better={"expl": "no"})


def _cli(metric_file, tmp_path, *flags):
    return main(["validate", f"{metric_file}:dci_like", *flags, "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                 "--n-samples", "300", "--probe-samples", "500", "--out", str(tmp_path / "card"),
                 "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])


def test_cli_property_per_sub_score(metric_file, tmp_path, capsys):
    assert _cli(metric_file, tmp_path, "--property", "mod=modularity,comp=compactness,expl=explicitness") == 0
    saved = json.loads((tmp_path / "card" / "report_card.json").read_text())
    assert saved["property"] == CLAIMED
    assert "claims: mod: modularity, comp: compactness, expl: explicitness" in capsys.readouterr().out


@pytest.mark.parametrize(("claim", "message"), [
    ("mod=modularity,explicit=explicitness",
     "the claimed property names sub-score(s) explicit that dci_like did not return on the probe; "
     "it returned: comp, expl, mod"),
    ("mod=modularity,comp=beauty", "--property: property of sub-score 'comp' must be one of modularity, compactness, "
     "explicitness, holistic; got 'beauty'"),
    ("mod=modularity,compactness", "--property: expected SUB=PROPERTY such as mod=modularity, got 'compactness'"),
    ("beauty", "--property must be one of modularity, compactness, explicitness, holistic, or SUB=PROPERTY"),
])
def test_cli_refuses_a_bad_claim_in_one_line_before_the_battery(metric_file, tmp_path, capsys, claim, message):
    assert _cli(metric_file, tmp_path, "--property", claim) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "cache").exists() and not (tmp_path / "card").exists()  # nothing ran
