"""Broadcast benchmark (DECL-6): memory per idle subscriber and 1,000-way fan-out time.

    python -m bench.broadcast            # 10,000 idle subscribers, fan-out to 1,000, 7 runs
    python -m bench.broadcast --quick    # 1,000 subscribers, fan-out to 500, 3 runs

Each server runs alone in its own uvicorn process (uvloop, httptools, default WebSocket
engine), pinned to CPU 0; subscriber processes (hand-written asyncio protocols, see
clients.py) run on CPU 1. Both servers are measured in the same run:

- mcpcast: half the subscribers on WebSocket, half on SSE at ``/mcp/topics/<topic>``;
  the fan-out is triggered by a ``tools/call`` of a tool that broadcasts;
- plain Starlette: a list of WebSockets and a POST endpoint that sends to each in turn.

Memory: VmRSS of the server process (/proc/<pid>/status) after a warm-up, then after
each batch of subscribers is open; per subscriber = RSS delta / subscribers opened.
Fan-out: the trigger request is sent at t0; every subscriber records the monotonic time
its message arrived; the figure is (last arrival - t0), p50 over the runs (after one
unmeasured warm-up run). Targets: < 30 KiB per idle subscriber, < 100 ms fan-out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

from .clients import client_process
from .servers import pin, raise_nofile

ROOT = Path(__file__).resolve().parents[2]
TARGET_KIB = 30.0
TARGET_MS = 100.0
CURRENT = "2026-07-28"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


@contextlib.contextmanager
def server(kind: str, cpu: int | None, no_gc: bool = False,
           ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    argv = [sys.executable, "-m", "bench.broadcast.servers", kind, "--port", str(port)]
    argv += ["--no-gc"] if no_gc else []
    proc = subprocess.Popen(argv + (["--cpu", str(cpu)] if cpu is not None else []), cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the {kind} server did not start")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield proc, port
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Clients:
    """Subscriber processes; each command goes to all of them, then all answers are read."""

    def __init__(self, count: int, cpu: int | None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conns: list[Connection] = []
        self.procs = []
        for _ in range(count):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=client_process, args=(child, cpu), daemon=True)
            proc.start()
            self.conns.append(parent)
            self.procs.append(proc)

    def ask(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        for conn, command in zip(self.conns, commands, strict=True):
            conn.send(command)
        return [conn.recv() for conn in self.conns]

    def open(self, plan: list[tuple[str, int, str, int]]) -> tuple[int, list[str]]:
        """Open the plan's subscribers, spread evenly over the processes."""
        n = len(self.conns)
        shares = [[(kind, port, path, count // n + (i < count % n))
                   for kind, port, path, count in plan] for i in range(n)]
        answers = self.ask([("open", share) for share in shares])
        return sum(a[0] for a in answers), [e for a in answers for e in a[1]]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ask([("close",)] * len(self.conns))
        for proc in self.procs:
            proc.join(5)


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (i < total % parts) for i in range(parts)]


def trigger_request(kind: str, port: int, run: int) -> tuple[str, dict[str, str], bytes]:
    if kind == "starlette":
        frame = {"type": "message", "topic": "fanout", "seq": run, "data": {"run": run}}
        return f"http://127.0.0.1:{port}/broadcast/fanout", {}, json.dumps(frame).encode()
    body = {"jsonrpc": "2.0", "id": run, "method": "tools/call", "params": {
        "name": "publish", "arguments": {"topic": "fanout", "run": run},
        "_meta": {"io.modelcontextprotocol/protocolVersion": CURRENT,
                  "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream",
               "mcp-protocol-version": CURRENT, "mcp-method": "tools/call",
               "mcp-name": "publish"}
    return f"http://127.0.0.1:{port}/mcp", headers, json.dumps(body).encode()


def open_and_weigh(clients: Clients, pid: int, port: int, transports: list[str],
                   prefix: str, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Open the subscribers one transport at a time; RSS delta per subscriber of each."""
    before = start = rss_kib(pid)
    opened_total = 0
    for transport, fanout, total in zip(transports, split(args.fanout, len(transports)),
                                        split(args.subscribers, len(transports)), strict=True):
        opened, errors = clients.open([(transport, port, f"{prefix}/fanout", fanout),
                                       (transport, port, f"{prefix}/idle", total - fanout)])
        time.sleep(1.0)  # let the server settle
        after = rss_kib(pid)
        result["memory_kib"][transport] = (after - before) / max(opened, 1)
        result["errors"] += errors
        opened_total += opened
        before = after
    result["opened"] = opened_total
    result["rss_kib"] = before
    result["memory_kib"]["all"] = (before - start) / max(opened_total, 1)


def fan_out(clients: Clients, trigger: Callable[[int], None], per_process: list[int],
            runs: int, result: dict[str, Any]) -> None:
    """Broadcast ``runs`` + 1 times (the first warms up); time until the last arrival."""
    times, trips, missing = [], [], 0
    for run in range(runs + 1):
        time.sleep(0.2)
        t0 = time.monotonic()
        trigger(run)
        trip = (time.monotonic() - t0) * 1000  # the trigger's own round trip
        answers = clients.ask([("wait", run, n, 10.0) for n in per_process])
        missing += sum(max(n - got, 0) for n, (got, _) in zip(per_process, answers, strict=True))
        if run > 0:
            times.append((max(last for _, last in answers) - t0) * 1000)
            trips.append(trip)
    result.update(fanout_ms=times, trigger_ms=trips, missing=missing)


def measure(kind: str, args: argparse.Namespace, cpus: tuple[int | None, int | None],
            ) -> dict[str, Any]:
    transports = ["ws", "sse"] if kind == "mcpcast" else ["ws"]
    prefix = "/mcp/topics" if kind == "mcpcast" else "/ws"
    result: dict[str, Any] = {"server": kind, "memory_kib": {}, "errors": []}
    with server(kind, cpus[0], args.no_gc) as (proc, port), httpx.Client(timeout=30) as http:
        clients = Clients(args.clients, cpus[1])
        try:
            def trigger(run: int) -> None:
                url, headers, body = trigger_request(kind, port, run)
                http.post(url, headers=headers, content=body).raise_for_status()

            # Warm-up: the code paths run once before the baseline RSS is read.
            trigger(-1)
            clients.open([(t, port, f"{prefix}/warm", 1) for t in transports])
            time.sleep(1.0)
            open_and_weigh(clients, proc.pid, port, transports, prefix, args, result)
            # Fan-out subscribers per process, as Clients.open spread each transport's share.
            shares = [split(part, args.clients) for part in split(args.fanout, len(transports))]
            fan_out(clients, trigger, [sum(col) for col in zip(*shares, strict=True)],
                    args.runs, result)
        finally:
            clients.close()
    return result


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def table(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> str:
    m, s = results["mcpcast"], results["starlette"]
    p50 = {k: statistics.median(r["fanout_ms"]) for k, r in results.items()}
    rows = [
        ("idle memory per WebSocket subscriber (KiB)", m["memory_kib"]["ws"],
         s["memory_kib"]["ws"], f"< {TARGET_KIB:.0f}"),
        ("idle memory per SSE subscriber (KiB)", m["memory_kib"]["sse"], None,
         f"< {TARGET_KIB:.0f}"),
        ("idle memory per subscriber, all (KiB)", m["memory_kib"]["all"],
         s["memory_kib"]["all"], f"< {TARGET_KIB:.0f}"),
        (f"fan-out to {args.fanout:,}: last receiver, p50 (ms)", p50["mcpcast"],
         p50["starlette"], f"< {TARGET_MS:.0f}"),
        ("trigger request round trip, p50 (ms)", statistics.median(m["trigger_ms"]),
         statistics.median(s["trigger_ms"]), ""),
        ("fan-out, fastest run (ms)", min(m["fanout_ms"]), min(s["fanout_ms"]), ""),
        ("fan-out, slowest run (ms)", max(m["fanout_ms"]), max(s["fanout_ms"]), ""),
    ]
    out = [f"Broadcast: {args.subscribers:,} idle subscribers (mcpcast: half WebSocket, "
           f"half SSE; Starlette: WebSocket), fan-out to {args.fanout:,}, "
           f"{args.runs} runs, {args.clients} client processes"
           + (", servers without cyclic GC" if args.no_gc else ""),
           "",
           "| measure | mcpcast | plain Starlette | mcpcast / Starlette | target |",
           "|---|---:|---:|---:|---|"]
    for name, a, b, target in rows:
        out.append(f"| {name} | {a:.1f} | {'-' if b is None else f'{b:.1f}'} | "
                   f"{ratio(a, b)} | {target} |")
    out.append(f"| subscribers open / messages missing | {m['opened']:,} / {m['missing']} | "
               f"{s['opened']:,} / {s['missing']} | | |")
    out.append(f"| server RSS with all subscribers (MiB) | {m['rss_kib'] / 1024:.0f} | "
               f"{s['rss_kib'] / 1024:.0f} | {ratio(m['rss_kib'], s['rss_kib'])} | |")
    for kind, r in results.items():
        if r["errors"]:
            out.append(f"\n{kind}: some subscribers failed to open, e.g. {r['errors'][:3]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.broadcast", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="1,000 subscribers, fan-out to 500, 3 runs")
    parser.add_argument("--subscribers", type=int, default=None, help="default 10,000")
    parser.add_argument("--fanout", type=int, default=None, help="default 1,000")
    parser.add_argument("--runs", type=int, default=None, help="default 7")
    parser.add_argument("--clients", type=int, default=2, help="subscriber processes")
    parser.add_argument("--no-gc", action="store_true",
                        help="servers run with the cyclic GC off (to see its pauses)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    quick = (1_000, 500, 3) if args.quick else (10_000, 1_000, 7)
    args.subscribers = quick[0] if args.subscribers is None else args.subscribers
    args.fanout = min(quick[1] if args.fanout is None else args.fanout, args.subscribers)
    args.runs = quick[2] if args.runs is None else args.runs
    if args.subscribers < 2 or args.fanout < 2 or args.runs < 1 or args.clients < 1:
        parser.error("need at least 2 subscribers, a fan-out of 2, 1 run and 1 client")
    raise_nofile()
    two_cpus = (os.cpu_count() or 1) >= 2
    cpus = (0, 1) if two_cpus else (None, None)
    pin(cpus[1])
    results = {kind: measure(kind, args, cpus) for kind in ("mcpcast", "starlette")}
    print(table(results, args))
    if args.json is not None:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
