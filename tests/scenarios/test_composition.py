"""Composed scenarios: TRANSFORM@BASE=VALUE, their draws, ideal rules and exact quantities."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
import scenarios
from scenarios._spread import concentration
from scenarios.composition import compose, parse_composition
from scenarios.transforms import standardized, unit_range


def test_the_name_grid_and_criterion_are_the_transforms():
    scenario = compose("redundancy_attack", "noise", 0.2)
    assert scenario.name == "redundancy_attack@noise=0.2"
    assert scenario.parameter == "alpha" and scenario.values == (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    assert scenario.criterion == "" and scenario.version == "1.1"  # the base is not perfect (explicitness 0.8)
    assert compose("redundancy_attack", "noise", 0.0).criterion == "attacks"
    assert compose("noise", "nonlinear", 0.4).criterion == "noise"
    assert compose("noise", "rotation", 0.1).criterion == ""
    assert compose("partial", "gaussian_toy_synergy", 1.0).values == (5, 4, 3, 2, 1)  # the base's 5 factors


def test_a_base_that_fixes_its_rows_passes_them_through():
    scenario = compose("partial", "sample_size", 1000)
    assert scenario.default_n == scenarios.get("sample_size").default_n and scenario.rows_at(3, scenario.default_n) == 1000
    drawn = scenario.generate(3, n=scenario.default_n, seed=0)
    assert drawn.factors.shape == (1000, 3) and drawn.codes.shape[0] == 1000


def test_parse_splits_at_the_first_at_and_the_last_equals():
    parts = parse_composition("partial@noise@rotation=0.3=0.2")
    assert (parts.transform, parts.base, parts.value) == ("partial", "noise@rotation=0.3", "0.2")
    assert parse_composition("noise") is None
    for bad in ("@noise=0.2", "noise@rotation", "noise@=0.2", "noise@rotation="):
        with pytest.raises(ValueError, match="TRANSFORM@BASE=VALUE"):
            parse_composition(bad)


def test_the_base_draw_is_shared_along_the_sweep():
    redundancy = compose("redundancy_attack", "noise", 0.2)
    clean, attacked = (redundancy.generate(alpha, n=300, seed=4) for alpha in (0.0, 8.0))
    base = scenarios.get("noise").generate(0.2, n=300, seed=4)
    np.testing.assert_array_equal(clean.factors, base.factors)
    np.testing.assert_array_equal(clean.codes[:, :8], standardized(base.codes))
    np.testing.assert_array_equal(attacked.codes[:, :8], clean.codes[:, :8])
    partial = compose("partial", "noise", 0.2)
    every, one = partial.generate(8, n=300, seed=4), partial.generate(1, n=300, seed=4)
    np.testing.assert_array_equal(every.codes, one.codes)
    np.testing.assert_array_equal(one.factors, every.factors[:, :1])
    assert one.discrete == (False,)


def test_the_name_alone_determines_the_data():
    exact, rounded = compose("noise", "rotation", np.pi / 8), compose("noise", "rotation", 0.392699)
    assert exact.name == rounded.name == "noise@rotation=0.392699"
    np.testing.assert_array_equal(exact.generate(0.4, n=50, seed=1).codes, rounded.generate(0.4, n=50, seed=1).codes)


def test_redundancy_ideal_keeps_explicitness_and_leaves_the_rest_unknown():
    scenario = compose("redundancy_attack", "noise", 0.2)
    assert dict(scenario.generate(0.0, n=50, seed=0).ideal) == {"modularity": 1.0, "compactness": 1.0, "explicitness": 0.8}
    assert dict(scenario.generate(2.0, n=50, seed=0).ideal) == {"explicitness": 0.8}


def test_synergy_ideal_keeps_modularity_only_on_a_modular_base():
    assert dict(compose("synergy_attack", "noise", 0.2).generate(1.0, n=50, seed=0).ideal) == {
        "modularity": 1.0, "explicitness": 0.8}
    assert dict(compose("synergy_attack", "mixing", 0.1).generate(1.0, n=50, seed=0).ideal) == {"explicitness": 1.0}


def test_noise_on_a_rotation_keeps_its_degree_and_drowns_explicitness():
    degree = concentration([np.cos(0.392699) ** 2, np.sin(0.392699) ** 2], 8)  # the rotation's ideal, by its formula
    ideal = dict(compose("noise", "rotation", 0.392699).generate(0.4, n=50, seed=0).ideal)
    assert ideal == pytest.approx({"modularity": degree, "compactness": degree, "explicitness": 0.6})
    assert compose("noise", "mixing", 0.1).generate(1.0, n=50, seed=0).ideal["explicitness"] == 0.0
    assert "explicitness" not in compose("noise", "noise", 0.5).generate(0.4, n=50, seed=0).ideal


def test_partial_keeps_only_ideals_of_one():
    rotation = compose("partial", "rotation", 0.392699)
    assert dict(rotation.generate(8, n=50, seed=0).ideal) == pytest.approx(
        dict(scenarios.get("rotation").ideal_trajectory(0.392699)))
    assert dict(rotation.generate(3, n=50, seed=0).ideal) == {"explicitness": 1.0}
    with pytest.raises(ValueError, match="at most the base's 5 factors"):
        compose("partial", "gaussian_toy_redundancy", 1.0).generate(6, n=50, seed=0)


def test_nonlinear_is_the_tan_map_of_each_rescaled_code_and_keeps_exact_quantities():
    scenario = compose("nonlinear", "gaussian_toy_redundancy", 1.0)
    drawn = scenario.generate(1.0, n=400, seed=2)
    base = scenarios.get("gaussian_toy_redundancy").generate(1.0, n=400, seed=2)
    order = np.argsort(base.codes, axis=0)
    assert np.all(np.diff(np.take_along_axis(drawn.codes, order, axis=0), axis=0) > 0)  # strictly increasing per code
    assert drawn.codes.min() == pytest.approx(0.0, abs=1e-12) and drawn.codes.max() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(drawn.exact["information_total"], base.exact["information_total"])
    assert dict(drawn.ideal) == dict(base.ideal)
    assert dict(compose("redundancy_attack", "gaussian_toy_redundancy", 1.0).generate(1.0, n=50, seed=0).exact) == {}


def test_unit_range_and_standardized_leave_constant_codes_constant():
    codes = np.column_stack([np.arange(4.0), np.full(4, 3.0)])
    np.testing.assert_array_equal(unit_range(codes), [[0, 0.5], [1 / 3, 0.5], [2 / 3, 0.5], [1, 0.5]])
    assert np.all(standardized(codes)[:, 1] == 0) and standardized(codes)[:, 0].std() == pytest.approx(1.0)


@pytest.mark.parametrize(("transform", "base", "value", "error", "message"), [
    ("shear", "noise", 0.2, KeyError, "unknown transform 'shear'"),
    ("noise", "noise", 2.0, ValueError, r"alpha must be in \[0, 1\]"),
    ("noise", "udr_population", 0.5, ValueError, "population scenario"),
    # both were an AttributeError ("'int' object has no attribute 'name'")
    (1, "noise", 0.2, TypeError, r"transform must be a transform's name \(circular, .*, noise, nonlinear, .*\) or a Transform, got 1"),
    ("noise", 1, 0.2, TypeError, r"base must be a scenario's name or a Scenario, got 1"),
])
def test_bad_compositions_say_what_is_wrong(transform, base, value, error, message):
    with pytest.raises(error, match=message):
        compose(transform, base, value)


def test_a_transform_value_out_of_range_is_refused():
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        compose("nonlinear", "mixing", 0.2).generate(1.5, n=50, seed=0)


def _scores(attack: str, alpha: float) -> tuple[float, float]:
    data = compose(attack, "noise", 0.1).generate(alpha, n=2000, seed=0)
    return (metrics.evaluate("unibound", data.factors, data.codes)["unibound"],
            metrics.evaluate("mig", data.factors, data.codes)["mig"])


def test_attacks_on_a_uniform_base_go_the_way_of_the_gaussian_base():
    """Tokui and Sato (2022, section 5.1): the redundancy attack lowers UniBound, not MIG; the synergy attack lowers both.

    The base is ``noise`` at alpha = 0.1 (uniform factors, a slightly noisy code, as the
    Gaussian base's z = y + 0.1 n).  Measured on the Gaussian base (8 factors): UniBound
    0.99 -> 0.20 and MIG 0.74 -> 0.54 at alpha = 8; here UniBound 0.96 -> 0.21 and MIG
    0.68 -> 0.52 (2000 samples, 2 seeds).
    """
    unibound_clean, mig_clean = _scores("redundancy_attack", 0.0)
    assert unibound_clean > 0.9 and mig_clean > 0.6
    unibound_red, mig_red = _scores("redundancy_attack", 8.0)
    assert unibound_red / unibound_clean < 0.3
    assert mig_red / mig_clean > 0.65
    unibound_syn, mig_syn = _scores("synergy_attack", 4.0)
    assert unibound_syn / unibound_clean < 0.05 and mig_syn / mig_clean < 0.05


def test_a_composition_holds_the_base_value_and_settings_beside_the_transforms():
    scenario = compose("overcomplete_entangled", "equicorrelated", 0.5)
    assert scenario.settings == {"base.rho": 0.5, "base.n_factors": 5, "base.marginal": "gaussian",
                                 "base.ideal_view": "encoder", "kappa": 10.0}
    nested = compose("partial", scenario, 8.0)
    assert nested.settings["base.width_ratio"] == 8.0 and nested.settings["base.base.rho"] == 0.5
    assert compose("noise", "rotation", 0.1).settings == {"base.theta": 0.1}


def test_transforms_see_the_base_codes_as_well_as_its_factors():
    # dead_codes at 4: 8 factors, 12 codes; undercomplete may drop up to 11 of them
    scenario = compose("undercomplete", "dead_codes", 4)
    assert scenario.values == tuple(range(12)) and scenario.check_value(11) == 11
    with pytest.raises(ValueError, match="at most one less than the base's 12 codes"):
        scenario.check_value(12)
    assert compose("partial", "dead_codes", 4).values == (8, 7, 6, 5, 4, 3, 2, 1)
