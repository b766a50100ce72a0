"""``python -m bench.service_auth``: tools/call through the whole Pacekeeper service with a
bearer JWT, next to FastMCP and mcpcast without authentication, in one run.

Run it through ``bench/run service_auth``, which installs what it needs first.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

from bench.mcp_throughput import ERAS, Era

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/run service_auth", description=__doc__)
    p.add_argument("--era", choices=[*ERAS, "both"], default="both")
    p.add_argument(
        "--key-bits",
        default="2048,4096",
        help="RSA key sizes, one service start each (default 2048,4096; --quick: 2048)",
    )
    p.add_argument("--duration", type=float, default=10.0, help="seconds measured per row")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds of unmeasured load first")
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--logins", type=int, default=20, help="timed logins per service start")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 3 s measured, 1 s warm-up, 2048-bit only, 5 logins",
    )
    p.add_argument(
        "--peers",
        default="fastmcp,mcpcast",
        help="reference servers without auth (from mcp_throughput)",
    )
    p.add_argument(
        "--no-pinned",
        action="store_true",
        help="leave out the service with each credential resolved once (authentication's "
        "own cost: the authenticated rows over this one)",
    )
    p.add_argument("--server-cpu", default="0")
    p.add_argument("--load-cpu", default="1")
    p.add_argument("--no-pin", action="store_true", help="do not use taskset")
    p.add_argument("--out", type=Path, default=RESULTS)
    instr = p.add_argument_group("instruction counts (valgrind, in process, no wrk)")
    instr.add_argument("--instructions", action="store_true",
                       help="count CPU instructions per request of pacekeeper and mcpcast "
                       "without authentication instead of loading them")
    instr.add_argument("--instructions-requests", type=int, default=2000,
                       help="requests between the two counted runs (default 2000)")
    foot = p.add_argument_group("footprint (valgrind's cache model, in process, no wrk)")
    foot.add_argument("--footprint", action="store_true",
                      help="count the 64-byte lines one request touches from a cold cache: "
                      "mcpcast without auth, the service with the caller pinned, the "
                      "service (what a real server's cache misses follow)")
    foot.add_argument("--footprint-requests", type=int, default=60,
                      help="cold requests per run (default 60)")
    prof = p.add_argument_group("profiling (in-process ASGI loop, no sockets, no wrk)")
    prof.add_argument("--profile", action="store_true")
    prof.add_argument("--profile-requests", type=int, default=5000)
    prof.add_argument("--profile-concurrency", type=int, default=32)
    prof.add_argument("--top", type=int, default=15)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    eras: tuple[Era, ...] = ERAS if args.era == "both" else (args.era,)
    if args.profile:
        from ._profile import profile_service

        return profile_service(
            eras[-1],
            requests=args.profile_requests,
            concurrency=args.profile_concurrency,
            top=args.top,
            out_dir=args.out,
        )

    if args.instructions:
        return _instructions(args, eras)
    if args.footprint:
        return _footprint(args, eras)

    from ._report import record, table, write_json
    from ._runner import Settings, run_benchmark

    bits = "2048" if args.quick and args.key_bits == "2048,4096" else args.key_bits
    pin = not args.no_pin and (os.cpu_count() or 1) >= 2
    settings = Settings(
        eras=eras,
        key_bits=tuple(int(b) for b in bits.split(",") if b.strip()),
        duration_s=3.0 if args.quick else args.duration,
        warmup_s=1.0 if args.quick else args.warmup,
        connections=args.connections,
        logins=5 if args.quick and args.logins == 20 else args.logins,
        server_cpu=args.server_cpu if pin else None,
        load_cpu=args.load_cpu if pin else None,
        log_dir=args.out / "logs",
        peers=tuple(p.strip() for p in args.peers.split(",") if p.strip()),
        pinned=not args.no_pinned,
    )
    started = dt.datetime.now(dt.UTC)
    outcome = run_benchmark(settings)
    print(table(outcome))
    path = write_json(record(outcome, settings, started), args.out, started)
    print(f"JSON: {path}")
    return 1 if any(r.status == "failed" for r in outcome.rows) else 0


def _instructions(args: argparse.Namespace, eras: tuple[Era, ...]) -> int:
    from bench.mcp_throughput._report import write_json

    from ._instructions import measure, table

    started = dt.datetime.now(dt.UTC)
    count = args.instructions_requests
    rows = measure(eras, count // 4, count // 4 + count)
    print(table(rows))
    data = {"benchmark": "service_auth_instructions",
            "started": started.isoformat(timespec="seconds"), "requests": count, "rows": rows}
    print(f"JSON: {write_json(data, args.out, started, name='service_auth_instructions')}")
    return 0


def _footprint(args: argparse.Namespace, eras: tuple[Era, ...]) -> int:
    from bench.mcp_throughput._report import write_json

    from ._footprint import measure, table

    started = dt.datetime.now(dt.UTC)
    rows = measure(eras, args.footprint_requests)
    print(table(rows))
    data = {"benchmark": "service_auth_footprint", "started": started.isoformat(
        timespec="seconds"), "requests": args.footprint_requests, "rows": rows}
    print(f"JSON: {write_json(data, args.out, started, name='service_auth_footprint')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
