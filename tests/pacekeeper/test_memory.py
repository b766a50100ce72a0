"""A freed large block goes back to the system (issue 30, "bounded memory per process").

glibc's dynamic mmap threshold kept each freed password hash's 19 MiB (and a chart's
large arrays) in the arena of the thread that made it: a serving process grew 55 % in a
minute of `bench/run load`. The test runs the same allocation pattern in a fresh
interpreter, with and without `fix_mmap_threshold`, and reads the process's resident
size from /proc: without the fix the second block stays resident after its free (the
test can see the leak it guards against), with it both are returned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pacekeeper.memory import MMAP_THRESHOLD_BYTES, fix_mmap_threshold

# A 19 MiB block (Argon2id's memory cost) made, touched and freed twice, then the
# resident growth over the start, in MiB.
_PATTERN = """
import ctypes, ctypes.util, json, os, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
if sys.argv[1] == "fixed":
    from pacekeeper.memory import fix_mmap_threshold
    assert fix_mmap_threshold()
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
size = 19 * 1024 * 1024
start = resident()
for _ in range(2):
    block = libc.malloc(size)
    ctypes.memset(block, 1, size)
    libc.free(block)
print(json.dumps((resident() - start) / 2**20))
"""


def _grown_mib(mode: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", _PATTERN, mode], env=env, check=True,
                          capture_output=True, text=True, timeout=60)
    return float(json.loads(done.stdout))


def test_a_freed_large_block_is_returned_to_the_system() -> None:
    assert _grown_mib("dynamic") >= 18  # glibc's own rule: the second block stays
    assert _grown_mib("fixed") < 2


def test_an_operators_own_setting_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", str(4 * MMAP_THRESHOLD_BYTES))
    assert fix_mmap_threshold() is False
