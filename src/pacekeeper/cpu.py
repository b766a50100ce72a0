"""CPU-bound work off the event loop, in a small pool of processes (issue 30, LOOP-1).

A thread does not help: decoding a FIT file is pure Python and holds the GIL, so the
loop waits for it just the same (docs/performance.md has the figures). A process does.

- ``workers`` processes at most, at a lower CPU priority (nice 10), started on first
  use (``forkserver`` where the platform has it, else ``spawn``: never ``fork`` from a
  process that runs an event loop and threads). ``workers=0`` runs the function on a
  thread of this process instead (tests, tiny deployments).
- At most ``workers + queue`` calls are submitted at once; one more is refused at once
  with ``Busy`` (HTTP 429 with ``Retry-After``), so nothing waits in an unbounded queue.
  A call whose caller went away still counts until its process is done with it.
- A worker that dies (killed, out of memory, a crash in a C extension) breaks the whole
  executor: its calls fail with ``WorkerCrashed`` (503) and the next call starts a new
  pool.

The function must be a top-level function whose arguments and result pickle.

``NicedThreads`` is the same bound on threads of this process, each at nice 10 (Linux),
for C code that releases the GIL (password hashes): a thread costs no pickling and no
process, and while the C code runs the loop keeps the GIL; what it must not lose is its
core, which the lower priority leaves it (issue 30, docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from pacekeeper.errors import ApiError
from pacekeeper.memory import fix_mmap_threshold

T = TypeVar("T")


class Busy(ApiError):
    """The pool's queue is full: try again after ``Retry-After`` seconds."""

    status = 429
    code = "busy"


class WorkerCrashed(ApiError):
    """The worker process died during the call; the pool was restarted."""

    status = 503
    code = "worker_crashed"


# How long background work waits before asking a full pool for a place again.
WAIT_S = 0.25

# Workers run at a lower CPU priority than the serving process: on a machine with few
# cores, reads must not wait for a core behind an import (docs/performance.md).
WORKER_NICENESS = 10


def _start_worker(server_pid: int) -> None:
    fix_mmap_threshold()  # a parsed file's arrays go back to the system when freed
    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice
        os.nice(WORKER_NICENESS)
    threading.Thread(target=_exit_with, args=(server_pid,), daemon=True,
                     name="pacekeeper-exit-with-server").start()


def _exit_with(server_pid: int) -> None:
    """End this worker when the serving process ends, however it ends. A worker's parent
    is multiprocessing's forkserver, and neither notices on its own: each worker holds
    its queue's write end and the forkserver's alive pipe, so a serving process killed
    with SIGKILL left its workers and the forkserver running, holding its stdout open (a
    supervisor reading it waited forever) and their memory."""
    try:
        fd = os.pidfd_open(server_pid)  # readable once that process has exited (Linux)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])
        os._exit(1)
    while True:  # elsewhere, or a kernel before 5.3: ask every second
        time.sleep(1.0)
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


class CpuPool:
    def __init__(self, workers: int, queue: int, *, what: str = "work") -> None:
        self.workers = workers
        self.limit = max(1, workers) + queue
        self.what = what
        self._executor: Executor | None = None
        self._lock = threading.Lock()  # done-callbacks run on the executor's thread
        self._in_flight = 0
        self._seconds = 1.0  # moving mean of one call's time, for Retry-After

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _executor_now(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=_context(),
                                                 initializer=_start_worker,
                                                 initargs=(os.getpid(),))
        return self._executor

    def has_room(self) -> bool:
        """Whether a call now would get a place (a hint: another may take it first)."""
        return self._in_flight < self.limit

    def busy(self) -> Busy:
        """The refusal a full pool answers, with the wait its queue predicts."""
        # At least 1: "Retry-After: 0" would ask for the retry that is being refused.
        wait = max(1, math.ceil(self._seconds * self._in_flight / max(1, self.workers)))
        return Busy(f"the server is busy with other {self.what}; retry in {wait} s",
                    headers={"Retry-After": str(wait)})

    def _claim(self) -> None:
        with self._lock:
            if self._in_flight >= self.limit:
                raise self.busy()
            self._in_flight += 1

    def _release(self, started: float) -> None:
        with self._lock:
            self._in_flight -= 1
            self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        self._claim()
        started = time.monotonic()
        if self.workers == 0:
            try:
                return await asyncio.to_thread(fn, *args)
            finally:
                self._release(started)
        try:
            executor = self._executor_now()
            future: Future[T] = executor.submit(fn, *args)
        except BaseException:
            self._release(started)
            if self._executor is not None and getattr(self._executor, "_broken", False):
                self._discard(self._executor)
            raise
        # Released when the process is done, even if this caller is cancelled meanwhile:
        # the bound counts the work that is really running or queued.
        future.add_done_callback(lambda _: self._release(started))
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._discard(executor)
            raise WorkerCrashed("the worker process stopped before it finished; try again",
                                headers={"Retry-After": "1"}) from None

    async def run_when_free(self, fn: Callable[..., T], *args: Any,
                            late: Callable[[], bool] = lambda: False) -> T:
        """``run`` for work nobody is waiting on at the door (a sync's streams and
        metrics, an archive's next member, a recompute): a full pool means wait for a
        place, not 429. ``Busy`` only once ``late()`` says the caller's budget is spent."""
        while True:
            try:
                return await self.run(fn, *args)
            except Busy:
                if late():
                    raise
                await asyncio.sleep(WAIT_S)

    def _discard(self, executor: Executor) -> None:
        """Forget a broken executor (only that one: a new one may already be running)."""
        if self._executor is executor:
            self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def usable_cores() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the
    machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _lower_thread_priority() -> None:
    # Linux's setpriority takes a thread id for PRIO_PROCESS and nices that thread
    # alone; elsewhere the same call would nice the whole process, loop included.
    # Relative to the process's own niceness (as os.nice in the process pool): a service
    # started at nice 5 hashes at 15, never at a higher priority than its loop.
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):
            base = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(19, base + WORKER_NICENESS))


class NicedThreads(CpuPool):
    """``workers`` threads of this process at nice 10 (Linux), the same bound and
    ``Busy`` refusal as the process pool. Only for functions that release the GIL."""

    def __init__(self, workers: int, queue: int, *, what: str = "work") -> None:
        super().__init__(max(1, workers), queue, what=what)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await super().run(self._timed, fn, *args)

    def _timed(self, fn: Callable[..., T], *args: Any) -> T:
        # Retry-After multiplies one call's time by the calls ahead: that must be the
        # time a call runs, not the time it also waited (with a queue of 64 hashes the
        # wait is most of it, and the estimate came out 60x too long).
        started = time.monotonic()
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)

    def _release(self, started: float) -> None:
        with self._lock:
            self._in_flight -= 1

    def _executor_now(self) -> Executor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                self.workers, thread_name_prefix=f"pacekeeper-{self.what.replace(' ', '-')}",
                initializer=_lower_thread_priority)
        return self._executor


__all__ = ["Busy", "CpuPool", "NicedThreads", "WorkerCrashed", "usable_cores"]
