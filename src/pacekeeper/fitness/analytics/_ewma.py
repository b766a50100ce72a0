"""Exponential filters over days, in numpy, by blocks of days (no scipy: issue 30).

y[d] = k y[d-1] + (1 - k) x[d] unrolled over a block of B days that starts after the
value y0 is

    y[s + i] = k^(i+1) y0 + sum_{j<=i} (1 - k) k^(i-j) x[s + j]

so every block's own part is one matrix product with the lower-triangular matrix
(1 - k) k^(i-j) (all blocks in one product), plus the value carried in times k^(i+1); the
carried values are a loop over blocks (each block's last day), not over days. Every
power is at most 1 (no growth, no overflow over any number of years), and each day is
the same sum the plain loop makes, to rounding (tests hold it to 1e-9 against
tests/_pmc.py's loop, over decades too).

Why not ``scipy.signal.lfilter``, which did this before: the first call in a process
imported scipy.signal, 1-3 s with the event loop held (the import runs on it, and a
thread would hold the GIL as long) and about 66 MiB resident for every serving process,
all for the fitness chart, the service's most asked read. The blocks cost about 85 us
for ten years of days (two filters), 1.8x lfilter's 47 us and 7x faster than the plain
loop (docs/performance.md, "The last heavy paths off the loop"). Before lfilter it was
a numba-compiled loop (104 MiB).
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
    if n == 0:
        return np.empty(0)
    size = min(_BLOCK, n)
    weights, carry = _block(k, size)
    blocks = -(-n // size)
    padded = np.zeros(blocks * size)
    padded[:n] = x
    # Every block's own part at once (one matrix product), as if each started from 0;
    # then the value carried in from the block before, whose last day is its own part's
    # last day plus the carry in times k^size (a loop over blocks, not days).
    own = padded.reshape(blocks, size) @ weights.T
    into = np.empty(blocks)
    y = float(y0)
    last, k_size = own[:, -1].tolist(), float(carry[-1])
    for b in range(blocks):
        into[b] = y
        y = last[b] + k_size * y
    out: FloatArray = (own + into[:, None] * carry[None, :]).reshape(-1)[:n]
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
