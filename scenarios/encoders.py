"""Joshi et al.'s (2026) encoders as transforms ``T@BASE=V``, composable on any base.

Each encoder maps a base's codes (its perfect code ``z = v`` for the factor structures of
:mod:`scenarios.equicorrelated` and :mod:`scenarios.redundant`, or any other scenario's) to new
codes; the base's factors pass through.  The linear and elementwise encoders act on the base
codes *standardised* (centred, unit variance in the draw; an invertible affine map of each
code, which changes no property), so that a parameter means the same whatever the base's
scale.  Random matrices, scales and signs are drawn from the draw's Generator after the base's
draw, so for a given seed every value of a sweep maps the same base draw with the same random
parts (common random numbers).  Each transform's ideal rule states a property only where the
base and the encoder determine it (the rules of :mod:`scenarios.transforms`).

``elementwise_tanh``, ``elementwise_cubic``, ``elementwise_sigmoid`` (encoder E2), swept over ``alpha in [0, 1]``
    ``z' = (1 - alpha) s + alpha h(s)`` on each standardised code ``s``, with ``h`` the shape
    named (:data:`SHAPES`): ``tanh(s)`` (saturating), ``s^3`` (stretching the tails) or the
    algebraic sigmoid ``s / sqrt(1 + s^2)`` (saturating polynomially, so that it stays
    one-to-one in floating point far into the tails).  Each blend is strictly increasing for
    every ``alpha`` (its slope is ``1 - alpha + alpha h'(s) > 0`` except at isolated points), so
    every property passes through, and so do exact information quantities.  Criterion
    ``nonlinearity``.  (Joshi et al. also scale ``s`` by a random factor before blending, which
    changes nothing here.)
``dense_mixing`` (encoder E3), swept over the condition number ``kappa in [1, 10^4]``
    ``z' = s A`` with ``A = U diag(sigma) V^T``: ``U``, ``V`` random orthogonal (Haar, from the
    draw) and ``sigma_i = kappa^(-i / (L - 1))``, spaced geometrically from 1 to ``1 / kappa``,
    so that ``A``'s condition number is exactly ``kappa`` (Joshi et al. space them linearly;
    both reach ``kappa``, the geometric spacing spreads them evenly on the log scale the
    condition number lives on).  At ``kappa = 1`` ``A`` is a random rotation, dense already.
    Ideal: explicitness passes through (``A`` is invertible); modularity and compactness
    depend on the drawn ``U`` and ``V``: unknown.
``undercomplete`` (encoder E4), swept over ``n_dropped``, the last codes dropped (0 to L - 1)
    Ideal: everything passes through at 0.  Otherwise modularity stays 1 on a base of
    modularity 1 (each remaining code still depends on one factor); on a perfect base with as
    many codes as factors (each code holds one factor), explicitness is ``(K - d) / K`` (the
    dropped factors are not represented: the encoder's reading, which holds whatever the
    factors' dependence, as in :mod:`scenarios.equicorrelated`; a predictor may still read a
    dropped factor through a correlated one, which a metric would report); compactness, of a
    factor in no code, is unknown.  (Joshi et al.'s experiment 6 asks a metric to stay at its
    maximum when the retained factors are perfectly identified: the reading of modularity.)
``overcomplete_linear`` (encoder E5), swept over ``copies`` (1 to 16)
    Each standardised code copied ``copies`` times, each copy scaled by its own random
    factor ``+-U(0.5, 2)`` (Joshi et al.'s range): ``L' = copies L`` codes.
``overcomplete_multicodes`` (encoder E6), swept over ``copies`` (1 to 6)
    Each standardised code through ``copies`` different strictly increasing maps, the first
    ``copies`` of :data:`SHAPES` in order.
``circular`` (encoder E8), swept over ``turn in [0.01, 0.99]``
    Each code rescaled to ``[0, 1]`` (``u``) becomes the pair ``(sin theta, cos theta)``,
    ``theta = 2 pi turn u``: the code's range spans a fraction ``turn`` of the circle.  Below a
    full turn the pair determines ``u`` (Joshi et al. apply ``sin`` and ``cos`` to a normal
    factor, whose tails wrap around); past a quarter turn neither code alone is monotone.
    Criterion ``nonlinearity``: the ideal does not move along the sweep.
    Ideal of the three (each base code held equally by ``m`` codes: ``m = copies``, 2 for
    ``circular``): explicitness passes through (every map is invertible); modularity stays 1
    on a base of modularity 1; on a base of compactness 1 (each factor in one code) each
    factor is spread equally over ``m`` of the ``m L`` codes, the Eastwood and Williams degree
    ``1 - log(m) / log(m L)`` of :mod:`scenarios.modular_not_compact` (``concentration``);
    otherwise unknown.  At ``m = 1`` everything passes through.
``overcomplete_entangled`` (encoder E7), swept over ``width_ratio = L' / L in [1, 64]``
    ``z' = s A`` with ``A = V diag(sigma) W^T`` of shape ``L x L'``, ``L' = round(width_ratio L)``:
    ``V`` random orthogonal, ``W`` random with orthonormal columns, the spectrum of
    ``dense_mixing`` at the fixed ``kappa = 10`` (Joshi et al.'s default).  The codes have rank
    ``L`` (``K`` on a perfect base) and condition number ``kappa``.  Ideal as ``dense_mixing``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from scenarios._checks import check_integer
from scenarios._spread import concentration
from scenarios.base import check_in_range
from scenarios.transforms import (
    BaseShape,
    Draw,
    Transform,
    fixed_grid,
    known,
    perfect,
    register_transform,
    standardized,
    unit_range,
)

Shape = Callable[[np.ndarray], np.ndarray]

SHAPES: dict[str, Shape] = {
    "tanh": np.tanh,
    "cubic": lambda s: s**3,
    "sigmoid": lambda s: s / np.sqrt(1.0 + s * s),
    "signed_sqrt": lambda s: np.sign(s) * np.sqrt(np.abs(s)),
    "asinh": np.arcsinh,
    "softplus": lambda s: np.logaddexp(0.0, s),
}
"""Strictly increasing maps of a standardised code, by name (the first three are E2's shapes)."""

ELEMENTWISE_SHAPES = ("tanh", "cubic", "sigmoid")
KAPPAS = (1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0)
MAX_KAPPA = 1e4
ENTANGLED_KAPPA = 10.0
MAX_COPIES = 16
#: Joshi et al.'s range of the copies' scale factors (each with a random sign).
SCALE_RANGE = (0.5, 2.0)
_UNIT_ALPHAS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_JOSHI = "Joshi et al. 2026, encoder"


def spectrum(size: int, kappa: float) -> np.ndarray:
    """``size`` singular values from 1 down to ``1 / kappa``, geometrically spaced (``[1]`` for one)."""
    if size == 1:
        return np.ones(1)
    return kappa ** (-np.arange(size) / (size - 1))


def haar_orthonormal(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """A ``rows x columns`` matrix with orthonormal columns, uniformly distributed (Haar; ``rows >= columns``).

    The Q factor of a Gaussian matrix with the signs of R's diagonal moved into it
    (Mezzadri 2007), so that the distribution is exactly uniform.
    """
    q, r = np.linalg.qr(rng.standard_normal((rows, columns)))
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


def conditioned_mixing(rng: np.random.Generator, size: int, width: int, kappa: float) -> np.ndarray:
    """A ``size x width`` matrix of rank ``size`` with singular values :func:`spectrum` (condition number ``kappa``)."""
    left = haar_orthonormal(rng, size, size)
    right = haar_orthonormal(rng, width, size)
    return (left * spectrum(size, kappa)) @ right.T


def _elementwise(shape: str) -> Transform:
    function = SHAPES[shape]

    def apply(factors, codes, discrete, alpha, rng) -> Draw:
        scaled = standardized(codes)
        return factors, (1.0 - alpha) * scaled + alpha * function(scaled), discrete

    return Transform(
        name=f"elementwise_{shape}", parameter="alpha", grid=fixed_grid(_UNIT_ALPHAS), apply=apply,
        ideal=lambda base, alpha, base_shape: known(base), check_value=check_in_range("alpha", 0.0, 1.0),
        source=f"{_JOSHI} E2 (elementwise invertible nonlinearity of strength alpha)",
        summary=f"(1 - alpha) s + alpha {shape}(s) on each standardised base code s", criterion="nonlinearity",
        keeps_exact=True, settings={"shape": shape},
    )


def _dense_mixing(factors, codes, discrete, kappa, rng) -> Draw:
    scaled = standardized(codes)
    return factors, scaled @ conditioned_mixing(rng, scaled.shape[1], scaled.shape[1], kappa), discrete


def _explicitness_only(base: Mapping[str, float], value: float, shape: BaseShape) -> dict[str, float]:
    return known(base, ("explicitness",))


def _undercomplete(factors, codes, discrete, n_dropped, rng) -> Draw:
    return factors, codes[:, : codes.shape[1] - n_dropped], discrete


def _undercomplete_ideal(base: Mapping[str, float], n_dropped: int, shape: BaseShape) -> dict[str, float]:
    if n_dropped == 0:
        return known(base)
    ideal = {"modularity": 1.0} if known(base).get("modularity") == 1.0 else {}
    if perfect(base) and shape.n_codes == shape.n_factors:
        ideal["explicitness"] = (shape.n_factors - n_dropped) / shape.n_factors
    return ideal


def copies_ideal(base: Mapping[str, float], copies: int, shape: BaseShape) -> dict[str, float]:
    """The ideal when each base code is held equally by ``copies`` codes (see the module docstring)."""
    if copies == 1:
        return known(base)
    stated = known(base)
    ideal = known(base, ("explicitness",))
    if stated.get("modularity") == 1.0:
        ideal["modularity"] = 1.0
    if stated.get("compactness") == 1.0:
        ideal["compactness"] = concentration([1.0] * copies, copies * shape.n_codes)
    return ideal


def _overcomplete_linear(factors, codes, discrete, copies, rng) -> Draw:
    size = (MAX_COPIES, codes.shape[1])  # drawn whole, so that fewer copies are the first of more
    scales = rng.uniform(*SCALE_RANGE, size=size) * np.where(rng.random(size) < 0.5, -1.0, 1.0)
    repeated = np.repeat(standardized(codes), copies, axis=1)
    return factors, repeated * scales[:copies].T.reshape(-1), discrete


def _multicodes(factors, codes, discrete, copies, rng) -> Draw:
    scaled = standardized(codes)
    maps = list(SHAPES.values())[:copies]
    return factors, np.stack([function(scaled) for function in maps], axis=2).reshape(len(scaled), -1), discrete


def _circular(factors, codes, discrete, turn, rng) -> Draw:
    angles = 2.0 * np.pi * turn * unit_range(codes)
    return factors, np.stack([np.sin(angles), np.cos(angles)], axis=2).reshape(len(codes), -1), discrete


def _entangled(factors, codes, discrete, width_ratio, rng) -> Draw:
    scaled = standardized(codes)
    width = max(scaled.shape[1], int(round(width_ratio * scaled.shape[1])))
    return factors, scaled @ conditioned_mixing(rng, scaled.shape[1], width, ENTANGLED_KAPPA), discrete


ENCODERS = tuple(register_transform(transform) for transform in (
    *(_elementwise(shape) for shape in ELEMENTWISE_SHAPES),
    Transform(
        name="dense_mixing", parameter="kappa", grid=fixed_grid(KAPPAS), apply=_dense_mixing,
        ideal=_explicitness_only, check_value=check_in_range("kappa", 1.0, MAX_KAPPA),
        source=f"{_JOSHI} E3 (linearly entangled, condition number kappa)",
        summary="s U diag(sigma) V^T: random orthogonal U, V, singular values 1 .. 1/kappa geometrically spaced, "
                "on the standardised base codes s",
    ),
    Transform(
        name="undercomplete", parameter="n_dropped", grid=lambda shape: tuple(range(shape.n_codes)),
        apply=_undercomplete, ideal=_undercomplete_ideal, check_value=check_integer("n_dropped", 0),
        source=f"{_JOSHI} E4 (undercomplete) and experiment 6 (dropped variables)",
        summary="the base's last n_dropped codes dropped",
        limit=lambda shape: (shape.n_codes - 1, f"one less than the base's {shape.n_codes} codes"),
    ),
    Transform(
        name="overcomplete_linear", parameter="copies", grid=fixed_grid((1, 2, 3, 4, 8)),
        apply=_overcomplete_linear, ideal=copies_ideal, check_value=check_integer("copies", 1, MAX_COPIES),
        source=f"{_JOSHI} E5 (overcomplete linear)",
        summary="each standardised base code copied `copies` times, each copy scaled by +-U(0.5, 2)",
        settings={"scale_range": "+-[0.5, 2]"},
    ),
    Transform(
        name="overcomplete_multicodes", parameter="copies", grid=fixed_grid((1, 2, 3, 4, 6)), apply=_multicodes,
        ideal=copies_ideal, check_value=check_integer("copies", 1, len(SHAPES)),
        source=f"{_JOSHI} E6 (overcomplete, several nonlinear codes per factor)",
        summary=f"each standardised base code through the first `copies` of {', '.join(SHAPES)}",
    ),
    Transform(
        name="circular", parameter="turn", grid=fixed_grid((0.1, 0.25, 0.5, 0.75, 0.9)), apply=_circular,
        ideal=lambda base, turn, shape: copies_ideal(base, 2, shape), check_value=check_in_range("turn", 0.01, 0.99),
        source=f"{_JOSHI} E8 (overcomplete disjoint sin/cos codes)",
        summary="each base code rescaled to [0, 1] as u, coded (sin, cos) of 2 pi turn u", criterion="nonlinearity",
    ),
    Transform(
        name="overcomplete_entangled", parameter="width_ratio", grid=fixed_grid((1.0, 2.0, 4.0, 8.0, 16.0)),
        apply=_entangled, ideal=_explicitness_only, check_value=check_in_range("width_ratio", 1.0, 64.0),
        source=f"{_JOSHI} E7 (overcomplete entangled, rank K)",
        summary="s A with A of L x round(width_ratio L), rank L, singular values 1 .. 1/10 geometrically spaced, "
                "on the standardised base codes s", settings={"kappa": ENTANGLED_KAPPA},
    ),
))
"""The encoders, registered in :data:`scenarios.transforms.TRANSFORMS`."""
