"""Array types and the one conversion every analytics function applies to its input."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def as_float(values: npt.ArrayLike) -> FloatArray:
    """A 1-D float64 array (no copy when it already is one); None becomes NaN."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    return arr


def finite_or_none(value: float) -> float | None:
    """``value`` as a plain float, or None when it is NaN or infinite."""
    v = float(value)
    return v if np.isfinite(v) else None


__all__ = ["FloatArray", "as_float", "finite_or_none"]
