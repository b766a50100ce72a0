"""bench/run load [--processes 1,3] [--users 24] [--rate 1.0] [--duration 60] [--warmup 10]
               [--arrivals poisson|lockstep] [--quick] [--soak]

For each process count: `scripts/cluster up` (own folder and ports), seed people (each
registers, sets an FTP, imports a ride), read every serve process's RSS, run the Locust
workload (bench/load/locustfile.py) headless at a fixed offered rate (users x rate per
second; each person a Poisson process; the first `--warmup` seconds not counted), read
the RSS again, read nginx's log for the service's own time per operation, `scripts/cluster
down --purge`. Prints one table per run and writes bench/results/load-<time>.json.
docs/scaling.md has the figures.

`--soak`: three processes, ten minutes measured after a one-minute warm-up (RSS read at
the end of the warm-up, then every minute); fails (exit 1) when a process grew 10 % or
more past its warm size, or any request failed.

Bench-only settings (documented in docs/scaling.md): every request of the bench comes
from one address, so the per-address login and registration limits and the trial-key cap
are raised; everything else is the service's defaults (Argon2id m=19 MiB t=2, 4096-bit
signing keys are the only exception: 2048, generated once at start-up).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from tests._services import free_port_block

from bench.load._operations import OPERATIONS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cluster"
FIT = ROOT / "tests" / "data" / "activities" / "fit" / "6449921903_ACTIVITY.fit"
# Published by the broadcast operation: a ride the seeded people do not have.
BROADCAST_FIT = ROOT / "tests" / "data" / "activities" / "fit" / "4801048867.fit"
RESULTS = ROOT / "bench" / "results"
PASSWORD = "correct horse battery staple"
CLUSTER_SPAN = 12  # ports: nginx, the processes, PostgreSQL at +10, Redis at +11




def _env(state: Path, port: int, processes: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PACEKEEPER_")}
    env.update({
        "PACEKEEPER_SKIP_VENV": "1",
        "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        "PACEKEEPER_CLUSTER_DIR": str(state), "PACEKEEPER_CLUSTER_PORT": str(port),
        "PACEKEEPER_CLUSTER_PROCESSES": str(processes),
        "PACEKEEPER_REGISTRATION": "open", "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_LOGIN_LIMIT_PER_ADDRESS": "1000000",
        "PACEKEEPER_LOGIN_LIMIT_PER_ACCOUNT": "1000000",
        "PACEKEEPER_REGISTER_LIMIT_PER_ADDRESS": "1000000",
        "PACEKEEPER_APIKEY_MAX_TRIAL_KEYS_PER_USER": "1000000",
        "PACEKEEPER_SANDBOX_HISTORY_DAYS": "30",
    })
    return env


def _cluster(command: str, env: dict[str, str]) -> str:
    done = subprocess.run([str(SCRIPT), *command.split()], env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"scripts/cluster {command} failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def _rss_mib(state: Path) -> dict[str, float]:
    sizes = {}
    for pidfile in sorted(state.glob("serve-*.pid")):
        status = Path(f"/proc/{pidfile.read_text().strip()}/status").read_text()
        kib = next(int(line.split()[1]) for line in status.splitlines()
                   if line.startswith("VmRSS:"))
        sizes[pidfile.stem] = round(kib / 1024, 1)
    return sizes


def _seed(url: str, users: int, folder: Path) -> Path:
    people = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(users):
            email = f"load{i}@example.com"
            made = client.post("/api/auth/register", json={
                "email": email, "password": PASSWORD}).raise_for_status().json()
            token = made["token"]
            auth = {"authorization": f"Bearer {token}"}
            client.patch("/api/athlete", headers=auth, json={
                "ftp_watts": 250, "valid_from": "2015-01-01"}).raise_for_status()
            client.post("/api/activities/import", headers=auth, files={
                "file": (FIT.name, FIT.read_bytes())}).raise_for_status()
            client.cookies.clear()
            people.append([email, PASSWORD, made["user_id"]])
    path = folder / "people.json"
    path.write_text(json.dumps(people))
    return path


# nginx's access log (scripts/cluster's "timed" format): which operation a line is.
_LINE = re.compile(r't=(?P<at>[\d.]+) "(?P<method>[A-Z]+) (?P<path>[^ ?"]+)[^"]*" '
                   r'(?P<status>\d+) \d+ rt=(?P<rt>[\d.]+) urt=(?P<urt>[\d.,: -]+) '
                   r'mcp="(?P<mcp>[^"]*)"')
_ROUTES = {("POST", "/oauth/token"): "sign-in", ("POST", "/api/auth/refresh"): "refresh JWT",
           ("POST", "/oauth2/token"): "OAuth refresh",
           ("POST", "/api/activities/import"): "import file and broadcast publish",
           ("POST", "/api/keys"): "create API key"}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _upstream_times(log: Path, offset: int, since: float) -> dict[str, dict[str, Any]]:
    """p50/p99 of the time the service took (nginx's upstream_response_time) per
    operation, over the lines written after ``offset`` for requests that arrived at
    ``since`` (epoch seconds) or later: beside Locust's figures, what the service did
    from what the client and the machine added."""
    times: dict[str, list[float]] = {}
    with open(log, "rb") as f:
        f.seek(offset)
        for raw in f:
            found = _LINE.search(raw.decode(errors="replace"))
            if found is None or found["urt"].strip() == "-":
                continue
            if float(found["at"]) - float(found["rt"]) < since:
                continue
            method, path = found["method"], found["path"]
            if method == "POST" and path == "/mcp" and found["mcp"] not in ("", "-"):
                name = f"tool {found['mcp']}"
            elif method == "DELETE" and path.startswith("/api/keys/"):
                name = "delete API key"
            elif method == "DELETE" and path.startswith("/api/activities/"):
                name = "broadcast cleanup"
            else:
                name = _ROUTES.get((method, path), "")
            if name:
                upstream = sum(float(t) for t in re.split(r"[,:] ?", found["urt"]) if t.strip())
                times.setdefault(name, []).append(upstream * 1000)
    return {name: {"requests": len(ms), "p50_ms": round(_percentile(ms, 0.5), 1),
                   "p99_ms": round(_percentile(ms, 0.99), 1)}
            for name, ms in sorted(times.items())}


_LAG_BUCKET = re.compile(r'^pacekeeper_event_loop_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$',
                         re.MULTILINE)


def _lag_buckets(port: int, processes: int) -> list[dict[float, float]]:
    """Each serving process's event-loop lag histogram (cumulative counts by bound), read
    from its own /metrics on loopback."""
    found = []
    for i in range(1, processes + 1):
        text = httpx.get(f"http://127.0.0.1:{port + i}/metrics", timeout=10).text
        found.append({float(bound): float(count) for bound, count in _LAG_BUCKET.findall(text)})
    return found


def _lag_summary(before: list[dict[float, float]], after: list[dict[float, float]]
                 ) -> dict[str, Any]:
    """The loop lag over the counted window, all processes together: samples, and the
    bucket bound under which 50 % and 99 % of them fell (a histogram says no more)."""
    bounds = sorted(after[0]) if after and after[0] else []
    counts = {b: sum(a.get(b, 0.0) - w.get(b, 0.0) for a, w in zip(after, before, strict=True))
              for b in bounds}
    total = counts.get(float("inf"), 0.0)

    def under(q: float) -> float | None:
        return next((b for b in bounds if total and counts[b] >= q * total), None)
    return {"samples": int(total), "p50_under_s": under(0.5), "p99_under_s": under(0.99),
            "over_100ms": int(total - counts.get(0.1, 0.0)) if total else 0}


def _read_stats(prefix: Path) -> dict[str, Any]:
    """Every operation of the workload (bench/load/_operations.py) with its count,
    failures, rate and p50/p99 (None when it did not run), then any other row Locust
    wrote, then "all" (Locust's aggregate, the broadcast's delivery time included)."""
    found = {}
    with open(f"{prefix}_stats.csv") as f:
        for row in csv.DictReader(f):
            count = int(row["Request Count"])
            found[row["Name"]] = {
                "requests": count, "failures": int(row["Failure Count"]),
                "rps": round(float(row["Requests/s"]), 1),
                "p50_ms": float(row["50%"]) if count and row["50%"] not in ("", "N/A") else None,
                "p99_ms": float(row["99%"]) if count and row["99%"] not in ("", "N/A") else None}
    idle = {"requests": 0, "failures": 0, "rps": 0.0, "p50_ms": None, "p99_ms": None}
    rows = {name: found.pop(name, idle) for name in OPERATIONS}
    aggregated = found.pop("Aggregated", None)
    rows.update(found)
    if aggregated is not None:
        rows["all"] = aggregated
    errors: dict[str, int] = {}
    with open(f"{prefix}_failures.csv") as f:
        for row in csv.DictReader(f):
            errors[f'{row["Name"]}: {row["Error"]}'] = int(row["Occurrences"])
    five_xx = sum(n for error, n in errors.items() if "HTTP 5" in error)
    return {"operations": rows, "errors": errors, "http_5xx": five_xx}


def run_once(processes: int, users: int, rate: float, duration: int,
             warmup: int = 0, *, arrivals: str = "poisson",
             rss_after_warmup: bool = False) -> dict[str, Any]:
    """``warmup`` seconds of the workload are run and not counted (Locust resets its
    figures then, and nginx's lines from before are left out): the people's set-up
    (sign-in, an OAuth client's consent, the live feed) ends for all of them within the
    same second or two, a burst that is not the steady use measured.
    ``rss_after_warmup`` (the soak): memory compared from the warm size on."""
    state = Path(tempfile.mkdtemp(prefix="pk-load-"))
    env = _env(state, free_port_block(CLUSTER_SPAN), processes)
    try:
        url = _cluster("up", env)
        _seed(url, users, state)
        rss_start = _rss_mib(state)
        prefix = state / "locust"
        locust_env = {**os.environ, "LOAD_USERS": str(state / "people.json"),
                      "LOAD_RATE_PER_USER": str(rate), "LOAD_FIT": str(FIT),
                      "LOAD_BROADCAST_FIT": str(BROADCAST_FIT),
                      "LOAD_WARMUP_S": str(warmup), "LOAD_ARRIVALS": arrivals,
                      "PYTHONPATH": f"{ROOT}:{ROOT / 'src'}"}
        access_log = state / "logs" / "nginx-access.log"
        log_offset = access_log.stat().st_size if access_log.exists() else 0
        serve_port = int(env["PACEKEEPER_CLUSTER_PORT"])
        started = time.monotonic()
        counted_from = time.time() + warmup
        lag_before: list[dict[float, float]] = []

        def read_lag_after_warmup() -> None:
            time.sleep(warmup)
            lag_before.extend(_lag_buckets(serve_port, processes))
        lag_reader = threading.Thread(target=read_lag_after_warmup, daemon=True)
        lag_reader.start()
        load_before = os.getloadavg()[0]
        locustfile = str(ROOT / "bench" / "load" / "locustfile.py")
        locust = subprocess.Popen(
            [sys.executable, "-m", "locust", "-f", locustfile,
             "--headless", "-u", str(users), "-r", str(users), "-t", f"{warmup + duration}s",
             "--host", url, "--csv", str(prefix), "--only-summary",
             "--loglevel", "WARNING", "--stop-timeout", "10"],
            env=locust_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples: list[dict[str, Any]] = []
        if rss_after_warmup:
            # Memory is compared from the warm size on: the first minute fills caches,
            # pools and the allocator's arenas, which is not growth.
            time.sleep(warmup)
            rss_start = _rss_mib(state)
            while locust.poll() is None and time.monotonic() - started < warmup + duration:
                time.sleep(min(60.0, max(1.0, warmup + duration - (time.monotonic() - started))))
                samples.append({"t_s": round(time.monotonic() - started), **_rss_mib(state)})
        locust.wait(timeout=warmup + duration + 120)
        took = time.monotonic() - started
        rss_end = _rss_mib(state)
        stats = _read_stats(prefix)
        lag_reader.join()
        loop_lag = _lag_summary(lag_before, _lag_buckets(serve_port, processes))
        upstream = (_upstream_times(access_log, log_offset, counted_from)
                    if access_log.exists() else {})
    finally:
        _cluster("down --purge", env)
    growth = {name: round(100 * (rss_end[name] - start) / start, 1)
              for name, start in rss_start.items() if name in rss_end}
    return {"processes": processes, "users": users, "offered_rps": users * rate,
            "duration_s": duration, "warmup_s": warmup, "arrivals": arrivals,
            "wall_s": round(took, 1),
            "load_average_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "rss_mib_start": rss_start, "rss_mib_end": rss_end, "rss_growth_pct": growth,
            "rss_samples": samples, "upstream": upstream, "loop_lag": loop_lag, **stats}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _print(result: dict[str, Any]) -> None:
    print(f"\n{result['processes']} process(es), {result['users']} people, offered "
          f"{result['offered_rps']:g} req/s ({result['arrivals']} arrivals) for "
          f"{result['duration_s']} s after {result['warmup_s']} s not counted; 5xx: "
          f"{result['http_5xx']}")
    print("| operation | requests | failures | req/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|---|")
    for name, row in result["operations"].items():
        if not row["requests"]:
            print(f"| {name} | 0 (did not run) | | | | |")
            continue
        print(f"| {name} | {row['requests']} | {row['failures']} | {row['rps']} | "
              f"{_ms(row['p50_ms'])} | {_ms(row['p99_ms'])} |")
    if result.get("upstream"):
        print("The service's own time (nginx's upstream_response_time, same requests):")
        print("| operation | requests | p50 ms | p99 ms |")
        print("|---|---|---|---|")
        for name, row in result["upstream"].items():
            print(f"| {name} | {row['requests']} | {row['p50_ms']:g} | {row['p99_ms']:g} |")
    lag = result.get("loop_lag") or {}
    if lag.get("samples"):
        print(f"Event-loop lag (pacekeeper_event_loop_lag_seconds, {lag['samples']} samples "
              f"over the counted window): p50 under {lag['p50_under_s']} s, p99 under "
              f"{lag['p99_under_s']} s, {lag['over_100ms']} over 100 ms")
    for error, n in result["errors"].items():
        print(f"  error x{n}: {error}")
    print(f"RSS MiB start {result['rss_mib_start']} end {result['rss_mib_end']} "
          f"growth % {result['rss_growth_pct']}; load average (1 min) before/after "
          f"{result['load_average_1m']}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench/run load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", default="1,3",
                        help="comma-separated process counts, one run each (default 1,3)")
    parser.add_argument("--users", type=int, default=24, help="simulated people (24)")
    parser.add_argument("--rate", type=float, default=1.0,
                        help="requests per second per person (1.0)")
    parser.add_argument("--duration", type=int, default=60, help="seconds measured (60)")
    parser.add_argument("--warmup", type=int, default=10,
                        help="seconds run first and not counted (10; the soak's: 60)")
    parser.add_argument("--arrivals", choices=("poisson", "lockstep"), default="poisson",
                        help="each person's requests as a Poisson process (default), or "
                             "Locust's constant_throughput, which keeps everyone in step")
    parser.add_argument("--quick", action="store_true", help="20 s, 8 people, one process")
    parser.add_argument("--soak", action="store_true",
                        help="three processes, 600 s after a 60 s warm-up; growth < 10 %%")
    args = parser.parse_args()
    counts = [int(n) for n in args.processes.split(",")]
    warmup = args.warmup
    if args.quick:
        counts, args.users, args.duration = [1], 8, 20
    if args.soak:
        counts, args.duration, warmup = [3], 600, 60
    results = []
    for processes in counts:
        result = run_once(processes, args.users, args.rate, args.duration, warmup,
                          arrivals=args.arrivals, rss_after_warmup=args.soak)
        _print(result)
        results.append(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"load-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwritten {out.relative_to(ROOT)}")
    if args.soak:
        soak = results[0]
        grown = {name: pct for name, pct in soak["rss_growth_pct"].items() if pct >= 10}
        failures = sum(row["failures"] for row in soak["operations"].values())
        if grown or failures:
            print(f"SOAK FAILED: grown {grown}, failed requests {failures}")
            sys.exit(1)
        print("soak passed: every process grew less than 10 %, no request failed")


if __name__ == "__main__":
    main()
