"""Exponential filters over days, run by ``scipy.signal.lfilter`` (a recursive filter in C).

y[d] = k y[d-1] + (1 - k) x[d] is the first-order IIR filter b = [1 - k], a = [1, -k];
the value before the first day, y[-1], enters as the filter's state zi = [k y[-1]]
(direct form II transposed: y[0] = b0 x[0] + zi[0]). lfilter computes each day as
(1 - k) x[d] + k y[d-1], the plain loop's two products and one sum, so it agrees with
the loop to rounding (tests hold it to 1e-9 against tests/_pmc.py's loop).

It replaced a numba-compiled loop (issue 30): numba cost 104 MiB of resident memory per
process from its first use, a 2 s first call and about 200 MB installed, to save tens of
microseconds inside a request that makes SQL round trips. scipy is imported here, on the
first call, not when the app starts (docs/performance.md, "Memory per process").
"""

from __future__ import annotations

import numpy as np

from ._types import FloatArray


def ewma(x: FloatArray, k: float, y0: float) -> FloatArray:
    """y[d] = k y[d-1] + (1 - k) x[d] with y[-1] = y0, for float64 ``x``."""
    from scipy.signal import lfilter  # type: ignore[import-untyped]

    if len(x) == 0:
        return np.empty(0)
    y, _ = lfilter([1.0 - k], [1.0, -k], x, zi=[k * y0])
    out: FloatArray = np.asarray(y, dtype=np.float64)
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
