"""``python -m bench.limits``: API key authentication + rate limiting, added latency.

Run it through ``bench/run limits``, which installs what it needs first (wrk).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.mcp_throughput._report import write_json

from ._interleave import interleaved as over_http_interleaved
from ._measure import ROOT, Figures, in_process, over_http
from ._measure import bench_env as make_env
from ._report import interleaved_table, record, table

RESULTS = ROOT / "bench" / "results"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/run limits", description=__doc__)
    p.add_argument("-n", type=int, default=2000,
                   help="in process, calls per side and request per round")
    p.add_argument("--rounds", type=int, default=7,
                   help="rounds: wrk and --interleaved start both servers anew each round;"
                        " in process, rounds x n calls per side")
    p.add_argument("--database-url", default="", help="default: SQLite in a temporary dir")
    p.add_argument("--redis-url", default="", help="a Redis to use (PACEKEEPER_REDIS_URL)")
    p.add_argument("--redis", action="store_true",
                   help="start a private redis-server on loopback and use it")
    p.add_argument("--wrk", action="store_true", help="also measure over HTTP with wrk")
    p.add_argument("--latency", action="store_true",
                   help="with --wrk, also the median latency a client sees on one connection")
    p.add_argument("--interleaved", action="store_true",
                   help="client latency over HTTP, the two servers interleaved request by"
                        " request (pinned: servers on --server-cpu, this client on"
                        " --load-cpu); decides the target when measured")
    p.add_argument("--pairs", type=int, default=10000,
                   help="with --interleaved, request pairs per round and request")
    p.add_argument("--aa", action="store_true",
                   help="with --interleaved, serve bare on both sides: the noise floor")
    p.add_argument("--seconds", type=int, default=5, help="wrk duration per run (whole s)")
    p.add_argument("--connections", type=int, default=8, help="wrk connections")
    p.add_argument("--pin", action="store_true",
                   help="taskset: servers on --server-cpu, wrk on --load-cpu (off by default:"
                        " on this shared 2-core machine pinning doubled both sides' times)")
    allowed = sorted(os.sched_getaffinity(0))  # a container may allow, say, only 2 and 3
    p.add_argument("--server-cpu", default=str(allowed[0]))
    p.add_argument("--load-cpu", default=str(allowed[-1]))
    p.add_argument("--out", type=Path, default=RESULTS)
    return p


@contextlib.contextmanager
def _redis(args: argparse.Namespace) -> Iterator[str]:
    if not args.redis:
        yield args.redis_url
        return
    sys.path.insert(0, str(ROOT))
    from tests._services import redis_server

    with redis_server() as url:
        yield url


@contextlib.contextmanager
def _client_on(cpu: str) -> Iterator[None]:
    """This process (the client) on one CPU while the block runs, if it may use two."""
    saved = os.sched_getaffinity(0)
    if len(saved) < 2 or int(cpu) not in saved:
        yield
        return
    os.sched_setaffinity(0, {int(cpu)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, saved)


def _wrk_readings(args: argparse.Namespace, env: dict[str, str], where: str, pin: bool
                  ) -> tuple[Figures, Figures, Figures | None]:
    """1/rps and server CPU time with wrk -c8; with --latency, wrk -c1's median."""
    server_cpu, load_cpu = (args.server_cpu, args.load_cpu) if pin else (None, None)
    http, cpu = over_http(env, args.seconds, args.rounds, args.connections,
                          server_cpu, load_cpu, args.out / "logs")
    print()
    print(table(f"uvicorn + wrk -t1 -c{args.connections}, {where}, paired median of "
                f"{args.rounds} x {args.seconds:g} s (us = 1/rps)", http))
    print()
    print(table(f"server CPU time per request (user + system), same rounds, {where}", cpu))
    latency = None
    if args.latency:
        latency, _ = over_http(env, args.seconds, args.rounds, args.connections,
                               server_cpu, load_cpu, args.out / "logs", latency=True)
        print()
        print(table(f"client latency: uvicorn + wrk -t1 -c1 --latency, {where}, "
                    f"paired median of {args.rounds} x {args.seconds:g} s (us = p50)", latency))
    return http, cpu, latency


def _interleaved_reading(args: argparse.Namespace, env: dict[str, str], where: str
                         ) -> Figures:
    with _client_on(args.load_cpu):
        figures = over_http_interleaved(env, args.rounds, args.pairs, aa=args.aa,
                                        cpu=args.server_cpu, log_dir=args.out / "logs")
    print()
    print(interleaved_table(
        f"client latency, interleaved{' A/A (bare on both sides)' if args.aa else ''}: "
        f"uvicorn on cpu {args.server_cpu}, client on cpu {args.load_cpu}, {where}, "
        f"median of {args.rounds} x {args.pairs} pairs (us)", figures))
    return figures


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    pin = args.pin and len(os.sched_getaffinity(0)) >= 2
    started = dt.datetime.now(dt.UTC)
    http = latency = cpu = interleaved = None
    with _redis(args) as redis_url:
        where = (args.database_url.split(":")[0] or "sqlite") + (
            " + redis" if redis_url else " + memory limiter")
        # Each reading gets its own data directory (a database with its own history).
        with tempfile.TemporaryDirectory() as tmp:
            env = make_env(Path(tmp), args.database_url, redis_url)
            local = in_process(env, args.n, args.rounds)
        print(interleaved_table(f"in-process ASGI, {where}, interleaved call by call, "
                                f"median of {args.rounds} x {args.n} per side (us)", local))
        if args.wrk:
            with tempfile.TemporaryDirectory() as tmp:
                env = make_env(Path(tmp), args.database_url, redis_url)
                http, cpu, latency = _wrk_readings(args, env, where, pin)
        if args.interleaved:
            with tempfile.TemporaryDirectory() as tmp:
                env = make_env(Path(tmp), args.database_url, redis_url)
                interleaved = _interleaved_reading(args, env, where)
    settings = {
        "n": args.n, "rounds": args.rounds, "backend": where, "wrk": args.wrk,
        "wrk_seconds": args.seconds, "wrk_connections": args.connections,
        "server_cpu": args.server_cpu if pin else None,
        "load_cpu": args.load_cpu if pin else None,
        "uvicorn": "--loop uvloop --http httptools, one worker, no access log",
        "interleaved": None if not args.interleaved else {
            "pairs": args.pairs, "aa": args.aa, "server_cpu": args.server_cpu,
            "client_cpu": args.load_cpu},
    }
    data = record(settings, started, local, http, latency, cpu, interleaved=interleaved)
    path = write_json(data, args.out, started, name="limits")
    judged = ("HTTP, client latency interleaved, whole 95 % interval" if interleaved
              else "HTTP, 1/rps" if http else "in process")
    print(f"\nadded time under 10 %: {'yes' if data['meets_target'] else 'no'} ({judged})")
    if cpu is not None:
        print("added server CPU time under 10 %: "
              f"{'yes' if data['meets_target_cpu'] else 'no'} (HTTP, per request)")
    if latency is not None:
        print("added client latency under 10 %: "
              f"{'yes' if data['meets_target_latency'] else 'no'} (HTTP, p50, one connection)")
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
