"""Seeds derived from a cell's identity, never from run order.

Every random draw of a study comes from a :class:`numpy.random.SeedSequence` whose
entropy is a hash of the identity of what is drawn (scenario, value, seed index,
sample size, and for a metric's own randomness the metric name).  A cell's data and
score therefore do not depend on which worker runs it, in what order, or on which
backend.
"""

from __future__ import annotations

import hashlib

import numpy as np


def identity_seed(*identity: object) -> np.random.SeedSequence:
    """A SeedSequence determined by ``identity`` alone (stable across runs and machines)."""
    text = "\x1f".join(repr(part) for part in identity).encode()
    digest = hashlib.sha256(text).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def identity_int(*identity: object) -> int:
    """A 32-bit integer seed determined by ``identity`` (for metrics' ``random_state``)."""
    return int(identity_seed(*identity).generate_state(1)[0])
