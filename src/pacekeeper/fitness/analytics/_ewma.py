"""Exponential filters over days, in numpy, by blocks of days (no scipy: issue 30).

y[d] = k y[d-1] + (1 - k) x[d] unrolled over a block of B days that starts after the
value y0 is

    y[s + i] = k^(i+1) y0 + sum_{j<=i} (1 - k) k^(i-j) x[s + j]

so a block is one matrix product with the lower-triangular matrix (1 - k) k^(i-j) plus
the carried value times k^(i+1); the block's last day carries into the next. Every
power is at most 1 (no growth, no overflow over any number of years), and each day is
the same sum the plain loop makes, to rounding (tests hold it to 1e-9 against
tests/_pmc.py's loop, over decades too).

Why not ``scipy.signal.lfilter``, which did this before: the first call in a process
imported scipy.signal, 1-3 s with the event loop held (the import runs on it, and a
thread would hold the GIL as long) and about 66 MiB resident for every serving process,
all for the fitness chart, the service's most asked read. The blocks cost a few times
lfilter's time, about a millisecond for ten years of days (docs/performance.md, "The
first chart request"). Before lfilter it was a numba-compiled loop (104 MiB).
"""

from __future__ import annotations

import functools

import numpy as np

from ._types import FloatArray

_BLOCK = 128  # days per matrix product: k^127 stays far above float64's smallest


@functools.lru_cache(maxsize=32)  # a handful of time constants are ever used
def _block(k: float, size: int) -> tuple[FloatArray, FloatArray]:
    """The block's matrix (1 - k) k^(i-j) for j <= i, and the carry's powers k^(i+1)."""
    powers = k ** np.arange(size + 1, dtype=np.float64)
    steps = np.arange(size)
    apart = steps[:, None] - steps[None, :]
    weights: FloatArray = np.tril((1.0 - k) * powers[np.abs(apart)])
    carry: FloatArray = powers[1:]
    weights.flags.writeable = carry.flags.writeable = False
    return weights, carry


def ewma(x: FloatArray, k: float, y0: float) -> FloatArray:
    """y[d] = k y[d-1] + (1 - k) x[d] with y[-1] = y0, for float64 ``x``."""
    n = len(x)
    out: FloatArray = np.empty(n)
    if n == 0:
        return out
    size = min(_BLOCK, n)
    weights, carry = _block(k, size)
    y = float(y0)
    for start in range(0, n, size):
        block = x[start:start + size]
        m = len(block)
        out[start:start + m] = weights[:m, :m] @ block + carry[:m] * y
        y = float(out[start + m - 1])
    return out


def ewma_pair(x: FloatArray, k1: float, k2: float, y1: float, y2: float) -> FloatArray:
    """Two exponential filters of one series: a (3, n) array whose rows are the (k1, y1)
    filter, the (k2, y2) filter, and the first minus the second on the day before (the
    start values' difference on day 0)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty((3, len(x)))
    out[0] = ewma(x, float(k1), float(y1))
    out[1] = ewma(x, float(k2), float(y2))
    if len(x):
        out[2, 0] = float(y1) - float(y2)
        np.subtract(out[0, :-1], out[1, :-1], out=out[2, 1:])
    return out


__all__ = ["ewma", "ewma_pair"]
