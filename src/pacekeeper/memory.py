"""Memory a process gives back: glibc's malloc with a fixed mmap threshold (issue 30).

glibc serves a block of at least the mmap threshold (128 KiB at start) with its own
``mmap``, returned to the system on ``free``. But the threshold is dynamic: each such
block freed raises it to that block's size (up to 32 MiB). After the first password hash
(Argon2id's 19 MiB, freed) every later hash, and every large numpy array of a chart or an
import, comes from an arena instead and stays in it when freed, one arena per thread that
did it. A serving process grew from 180 to 279 MiB in one minute of `bench/run load`
that way, and from 160 to 164 MiB with the threshold fixed at 1 MiB (docs/performance.md,
"Memory per process"). Setting the threshold explicitly is what turns the dynamic rule
off (mallopt(3)). Called by `create_app` (every serving process, uvicorn's workers too),
`pacekeeper worker` and each import-pool worker.

Elsewhere than glibc, or when the operator set ``MALLOC_MMAP_THRESHOLD_`` themselves
(glibc read it at start), nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

MMAP_THRESHOLD_BYTES = 1024 * 1024
_M_MMAP_THRESHOLD = -3  # <malloc.h>


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Whether glibc's mmap threshold is now ``threshold`` bytes (fixed, not dynamic)."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, threshold))


__all__ = ["MMAP_THRESHOLD_BYTES", "fix_mmap_threshold"]
