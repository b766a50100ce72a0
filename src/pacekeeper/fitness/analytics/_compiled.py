"""Day loops that numpy cannot vectorise, compiled with numba.

An exponential filter is a chain: each day needs the day before. numpy can only run
it as a blocked closed form (about ten array calls, each with a fixed cost of 1-2 us
on these machines) and ``scipy.signal.lfilter``'s general C loop costs about 6 ns a day
per filter plus its argument checks; the plain loop compiled does both filters of ten
years in about 6 us, exactly as the Python loop does them (same operations, same
order, no fast-math). docs/analytics.md ("Fast paths") has the measurements.

The kernel is compiled once per process on first use, for one signature, with numba's
on-disk cache (``NUMBA_CACHE_DIR``, else ``__pycache__`` or the user's cache): the
first call in a process costs numba's import and a cache read (or a 0.4 s compile
the very first time), every call after it none of that.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

import numpy as np

from ._types import FloatArray

_log = logging.getLogger(__name__)

_PairKernel = Callable[[FloatArray, float, float, float, float, FloatArray], None]


def _pair_loop(x: FloatArray, k1: float, k2: float, y1: float, y2: float,
               out: FloatArray) -> None:  # pragma: no cover - runs compiled
    """out[0], out[1]: y[d] = k y[d-1] + (1 - k) x[d] for (k1, y1) and (k2, y2) (the
    start values are y[-1]); out[2][d] = out[0][d-1] - out[1][d-1], y1 - y2 on day 0."""
    c1 = 1.0 - k1
    c2 = 1.0 - k2
    for d in range(x.shape[0]):
        out[2, d] = y1 - y2
        v = x[d]
        y1 = y1 * k1 + v * c1
        y2 = y2 * k2 + v * c2
        out[0, d] = y1
        out[1, d] = y2


_PAIR_SIGNATURE = "void(float64[::1], float64, float64, float64, float64, float64[:, ::1])"


@functools.cache
def _pair_kernel() -> _PairKernel:
    import numba  # heavy (0.3 s): only when first needed

    try:
        kernel: _PairKernel = numba.njit(_PAIR_SIGNATURE, cache=True, nogil=True)(_pair_loop)
    except RuntimeError:
        # No writable cache directory anywhere (a read-only install without
        # NUMBA_CACHE_DIR): compile for this process only rather than fail the request.
        _log.warning("analytics kernel: no numba cache directory, compiling in memory; "
                     "set NUMBA_CACHE_DIR to a writable directory")
        kernel = numba.njit(_PAIR_SIGNATURE, nogil=True)(_pair_loop)
    return kernel


def ewma_pair(x: FloatArray, k1: float, k2: float, y1: float, y2: float) -> FloatArray:
    """Two exponential filters of one series in one compiled pass: a (3, n) array whose
    rows are the (k1, y1) filter, the (k2, y2) filter, and the first minus the second
    on the day before (the start values' difference on day 0)."""
    out = np.empty((3, len(x)))
    _pair_kernel()(np.ascontiguousarray(x, dtype=np.float64), float(k1), float(k2),
                   float(y1), float(y2), out)
    return out


__all__ = ["ewma_pair"]
