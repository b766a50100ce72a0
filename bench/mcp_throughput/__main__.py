"""``python -m bench.mcp_throughput``: run the benchmark (or ``--profile`` one server).

Run it through ``bench/run mcp_throughput``, which installs what it needs first.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

from ._requests import ERAS, Era
from ._servers import SERVER_KEYS, SERVERS, ServerSpec

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench/run mcp_throughput", description=__doc__)
    p.add_argument(
        "--servers",
        default=",".join(SERVER_KEYS),
        help=f"comma-separated subset of {','.join(SERVER_KEYS)} (default: all)",
    )
    p.add_argument(
        "--era",
        choices=[*ERAS, "both"],
        default="both",
        help="protocol era of the request: legacy 2025-11-25 stateless, "
        "current 2026-07-28, or both (default)",
    )
    p.add_argument("--duration", type=float, default=10.0, help="seconds measured per row")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds of unmeasured load first")
    p.add_argument("--connections", type=int, default=32)
    p.add_argument(
        "--quick",
        action="store_true",
        help="short run for CI-ish smoke checks (3 s measured, 1 s warm-up)",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="repeat the whole sequence; each row keeps its median round (default 1)",
    )
    p.add_argument("--server-cpu", default="0", help="core the server is pinned to")
    p.add_argument("--load-cpu", default="1", help="core wrk is pinned to")
    p.add_argument("--no-pin", action="store_true", help="do not use taskset")
    p.add_argument("--out", type=Path, default=RESULTS, help="directory for the JSON record")
    instr = p.add_argument_group("instruction counts (in-process, valgrind; steady figures)")
    instr.add_argument(
        "--instructions",
        action="store_true",
        help="count CPU instructions per request for each server instead of loading them",
    )
    instr.add_argument(
        "--instructions-requests",
        type=int,
        default=2000,
        help="requests counted per server and era (default 2000)",
    )
    prof = p.add_argument_group("profiling (in-process, no sockets, no wrk)")
    prof.add_argument(
        "--profile",
        action="store_true",
        help="cProfile a request loop against one server instead of benchmarking",
    )
    prof.add_argument("--profile-server", choices=SERVER_KEYS, default="mcpcast")
    prof.add_argument("--profile-requests", type=int, default=5000)
    prof.add_argument("--profile-concurrency", type=int, default=32)
    prof.add_argument("--top", type=int, default=15, help="functions listed per sort order")
    return p


def _eras(choice: str) -> tuple[Era, ...]:
    return ERAS if choice == "both" else tuple(e for e in ERAS if e == choice)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    eras = _eras(args.era)
    if args.profile:
        from ._profile import profile_server

        era = eras[0] if len(eras) == 1 else "legacy"
        return profile_server(
            args.profile_server,
            era,
            requests=args.profile_requests,
            concurrency=args.profile_concurrency,
            top=args.top,
            out_dir=args.out,
        )

    from ._report import record, table, write_json
    from ._runner import Settings, run_benchmark

    wanted = [k.strip() for k in args.servers.split(",") if k.strip()]
    unknown = sorted(set(wanted) - set(SERVER_KEYS))
    if unknown:
        print(
            f"unknown server(s): {', '.join(unknown)}; choose from {SERVER_KEYS}", file=sys.stderr
        )
        return 2
    if args.instructions:
        return _instructions(args, tuple(s for s in SERVERS if s.key in wanted), eras)
    pin = not args.no_pin and (os.cpu_count() or 1) >= 2
    settings = Settings(
        servers=tuple(s for s in SERVERS if s.key in wanted),
        eras=eras,
        duration_s=3.0 if args.quick else args.duration,
        warmup_s=1.0 if args.quick else args.warmup,
        connections=args.connections,
        server_cpu=args.server_cpu if pin else None,
        load_cpu=args.load_cpu if pin else None,
        log_dir=args.out / "logs",
        rounds=args.rounds,
    )
    started = dt.datetime.now(dt.UTC)
    rows = run_benchmark(settings)
    print(table(rows))
    path = write_json(record(rows, settings, started), args.out, started)
    print(f"JSON: {path}")
    # Skipped rows (a server not there yet) are not failures; wrong answers and errors are.
    return 1 if any(r.status == "failed" for r in rows) else 0


def _instructions(args: argparse.Namespace, servers: tuple[ServerSpec, ...],
                  eras: tuple[Era, ...]) -> int:
    from dataclasses import asdict

    from ._instructions import measure, table
    from ._report import write_json

    started = dt.datetime.now(dt.UTC)
    count = args.instructions_requests
    rows = measure(servers, eras, small=count // 4, large=count // 4 + count)
    print(table(rows))
    data = {"benchmark": "mcp_instructions", "started": started.isoformat(timespec="seconds"),
            "requests": count, "rows": [asdict(r) for r in rows]}
    print(f"JSON: {write_json(data, args.out, started, name='mcp_instructions')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
