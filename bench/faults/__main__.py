"""bench/run faults [--people 6] [--gap 15] [--skip worker,kill,redis,postgres]

Faults during a steady load, against `scripts/cluster` (three processes, one queue
worker, PostgreSQL, Redis, nginx) on loopback. Each person runs a loop through nginx
(an MCP tool call in the stateless revision, the activity list, a file import, an API key
created and deleted, an OAuth consent, code exchange and two simultaneous redemptions of
the refresh token: bench/faults/_oauth.py) with a 15 s client timeout, and holds their
live feed (/mcp/topics/user.<id>, SSE) open, reconnecting with `after=<last seq>` when it
drops. Meanwhile, `--gap` seconds apart: kill -9 the queue worker in the middle of a
provider sync (bench/faults/_sync.py; restarted by `scripts/cluster up`), kill -9 one
serve process (restarted the same way), restart Redis, restart PostgreSQL (`pg_ctl stop
-m fast`, two seconds, then `scripts/cluster up` starts it again).

Afterwards it reports, per phase, what the callers saw (successes, errors by kind,
slowest answer) and checks: the interrupted sync finished with every activity of its
window stored once, no request hung (every one ended within the client timeout),
the last phase all successes, every feed reconnected and kept receiving, every process
/ready with Redis, and the database consistent (no activity without a source, no file
imported twice for one person, no refresh token or authorization code redeemed twice,
tests/_consistency.py, over a refresh-token table the workload filled).
Exit 1 when a check fails. Writes bench/results/faults-<time>.json; docs/scaling.md has
the figures. Too slow for ./scripts/test (about two minutes on top of the cluster start).

Also proven by e2e tests (docs/scaling.md): a queue worker killed in the middle of a
provider sync without load (tests/e2e/test_worker_killed_mid_sync.py), codes and refresh
tokens raced during the restarts, and a rate limit driven to its edge after Redis
restarts (tests/e2e/test_faults_tokens_and_limits.py).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tests._consistency import CONSISTENCY
from tests._services import free_port_block

from bench.faults._oauth import register_client, round_trip
from bench.faults._sync import check, kill_worker_mid_sync, sandbox
from bench.load.__main__ import CLUSTER_SPAN, FIT, PASSWORD, RESULTS, ROOT, _cluster, _env
from bench.mcp_throughput._requests import tool_call

TIMEOUT = 15.0
FRESH = ROOT / "tests" / "data" / "activities" / "fit" / "4801048867.fit"
PG_BIN = Path(os.environ.get("PACEKEEPER_PG_BIN", "/usr/lib/postgresql/15/bin"))


@dataclass
class Record:
    phase: str
    op: str
    outcome: str  # "ok", "HTTP 503", "ReadTimeout", ...
    seconds: float


@dataclass
class Feed:
    connects: int = 0
    messages_per_phase: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


class Run:
    def __init__(self) -> None:
        self.phase = "steady"
        self.stop = threading.Event()
        self.records: list[Record] = []
        self.lock = threading.Lock()

    def record(self, op: str, outcome: str, seconds: float) -> None:
        with self.lock:
            self.records.append(Record(self.phase, op, outcome, seconds))


def _outcome(response: httpx.Response) -> str:
    return "ok" if 200 <= response.status_code < 300 else f"HTTP {response.status_code}"


def _person_loop(run: Run, url: str, token: str, oauth_client: tuple[str, str]) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    fit = FIT.read_bytes()
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        while not run.stop.is_set():
            for op in ("tool", "list", "import", "key", "oauth"):
                started = time.monotonic()
                try:
                    if op == "oauth":
                        outcome = round_trip(client, token, *oauth_client)
                    elif op == "tool":
                        request = tool_call("current", "list_activities", {"limit": 5},
                                            client="bench-faults", extra_headers=auth)
                        answer = client.post("/mcp", content=request.body,
                                             headers=request.headers)
                        outcome = _outcome(answer)
                        if outcome == "ok" and answer.json()["result"].get("isError"):
                            outcome = "tool error"
                    elif op == "list":
                        outcome = _outcome(client.get("/api/activities", headers=auth))
                    elif op == "import":
                        outcome = _outcome(client.post("/api/activities/import", headers=auth,
                                                       files={"file": ("ride.fit", fit)}))
                    else:
                        created = client.post("/api/keys", headers=auth,
                                              json={"name": "faults", "tier": "trial"})
                        outcome = _outcome(created)
                        if outcome == "ok":
                            outcome = _outcome(client.delete(
                                f"/api/keys/{created.json()['id']}", headers=auth))
                except httpx.HTTPError as error:
                    outcome = type(error).__name__
                run.record(op, outcome, time.monotonic() - started)
                time.sleep(0.2)


def _feed_loop(run: Run, url: str, token: str, user_id: str, feed: Feed) -> None:
    """The person's live feed, resumed after the last seq whenever it drops."""
    last = 0
    while not run.stop.is_set():
        try:
            with httpx.Client(timeout=httpx.Timeout(TIMEOUT, read=None)) as client, \
                    client.stream("GET", f"{url}/mcp/topics/user.{user_id}",
                                  params={"after": last} if last else None,
                                  headers={"Authorization": f"Bearer {token}",
                                           "accept": "text/event-stream"}) as stream:
                if stream.status_code != 200:
                    feed.errors[f"HTTP {stream.status_code}"] += 1
                    time.sleep(1)
                    continue
                feed.connects += 1
                for line in stream.iter_lines():
                    if run.stop.is_set():
                        return
                    if line.startswith("id:") and line[3:].strip().isdigit():
                        last = int(line[3:].strip())
                    if line.startswith("data:"):
                        frame = json.loads(line[5:])
                        if frame.get("type") == "message":
                            feed.messages_per_phase[run.phase] += 1
                        if isinstance(frame.get("seq"), int):
                            last = max(last, frame["seq"])
        except (httpx.HTTPError, ValueError) as error:
            feed.errors[type(error).__name__] += 1
            time.sleep(0.5)


def _seed(url: str, people: int) -> list[tuple[str, str, tuple[str, str]]]:
    """Each person: their session token, their id, and an OAuth client of their own."""
    out = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for i in range(people):
            body = client.post("/api/auth/register", json={
                "email": f"fault{i}@example.com", "password": PASSWORD}).raise_for_status()
            client.cookies.clear()
            out.append((body.json()["token"], body.json()["user_id"], register_client(client)))
    return out


def _psql(port: int, query: str) -> str:
    return subprocess.run(
        [str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(port), "-U", "pacekeeper",
         "-d", "pacekeeper", "-tAc", query], capture_output=True, text=True, check=True,
        timeout=60).stdout.strip()


def _exception_lines(logs: str) -> list[str]:
    """The `module.Error: message` line ending each traceback in the logs."""
    found = []
    for block in logs.split("Traceback (most recent call last)")[1:]:
        for line in block.splitlines()[1:]:
            if line and not line.startswith((" ", "\t", "Traceback", "During", "The above")) \
                    and ("Error" in line or "Exception" in line):
                found.append(line[:160])
                break
    return found


def _summary(run: Run) -> dict[str, Any]:
    phases: dict[str, dict[str, Any]] = defaultdict(lambda: {"ok": 0, "errors": Counter(),
                                                             "slowest_s": 0.0})
    for r in run.records:
        phase = phases[r.phase]
        if r.outcome == "ok":
            phase["ok"] += 1
        else:
            phase["errors"][f"{r.op}: {r.outcome}"] += 1
        phase["slowest_s"] = round(max(phase["slowest_s"], r.seconds), 2)
    return {name: {**p, "errors": dict(p["errors"])} for name, p in phases.items()}


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench/run faults", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=6)
    parser.add_argument("--gap", type=float, default=15.0, help="seconds between faults")
    parser.add_argument("--skip", default="", help="comma-separated faults to leave out: "
                        "worker, kill, redis, postgres (to tell which one a finding comes from)")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    state = Path(tempfile.mkdtemp(prefix="pk-faults-"))
    port = free_port_block(CLUSTER_SPAN)
    env = {**_env(state, port, 3), "PACEKEEPER_SHUTDOWN_GRACE_SECONDS": "5"}
    failures: list[str] = []
    result: dict[str, Any] = {}
    emulator, sandbox_env = sandbox(env, f"http://127.0.0.1:{port}")
    env.update(sandbox_env)
    try:
        url = _cluster("up", env)
        people = _seed(url, args.people)
        run = Run()
        feeds = [Feed() for _ in people]
        threads = [threading.Thread(target=_person_loop, args=(run, url, token, oauth),
                                    daemon=True) for token, _, oauth in people]
        threads += [threading.Thread(target=_feed_loop, args=(run, url, token, uid, feed),
                                     daemon=True) for (token, uid, _), feed in zip(people, feeds)]
        for thread in threads:
            thread.start()
        time.sleep(args.gap)

        sync = None
        if "worker" not in skip:
            run.phase = "kill -9 queue worker mid-sync"
            sync = kill_worker_mid_sync(url, state, lambda q: int(_psql(port + 10, q)),
                                        lambda: _cluster("up", env))
            time.sleep(args.gap)

        if "kill" not in skip:
            run.phase = "kill -9 serve-1"
            os.kill(int((state / "serve-1.pid").read_text()), signal.SIGKILL)
            time.sleep(args.gap / 2)
            _cluster("up", env)  # what a supervisor (systemd Restart=) does
            time.sleep(args.gap / 2)

        if "redis" not in skip:
            run.phase = "Redis restart"
            subprocess.run(["redis-cli", "-p", str(port + 11), "shutdown", "nosave"],
                           capture_output=True, timeout=30, check=False)
            time.sleep(2)
            _cluster("up", env)
            time.sleep(args.gap)

        if "postgres" not in skip:
            run.phase = "PostgreSQL restart"
            as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
            subprocess.run([*as_pg, str(PG_BIN / "pg_ctl"), "-D", str(state / "postgres"),
                            "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=120, check=True)
            time.sleep(2)
            _cluster("up", env)  # starts PostgreSQL again with the cluster's options
            time.sleep(args.gap)

        run.phase = "after"
        # Something new for each person's feed: a file they have not imported yet.
        with httpx.Client(base_url=url, timeout=60) as client:
            for token, _, _ in people:
                client.post("/api/activities/import", headers={
                    "Authorization": f"Bearer {token}"}, files={
                    "file": (FRESH.name, FRESH.read_bytes())}).raise_for_status()
        time.sleep(args.gap)
        run.stop.set()
        for thread in threads[: len(people)]:
            thread.join(timeout=TIMEOUT + 5)
            if thread.is_alive():
                failures.append("a person's loop hung")

        if sync is not None:
            result["sync"], wrong = check(url, sync, lambda q: int(_psql(port + 10, q)))
            failures += wrong
        result["phases"] = _summary(run)
        result["feeds"] = [{"connects": f.connects, "messages": dict(f.messages_per_phase),
                            "errors": dict(f.errors)} for f in feeds]
        twice = [r for r in run.records if r.outcome == "redeemed twice"]
        if twice:
            failures.append(f"{len(twice)} refresh tokens redeemed twice (both callers won)")
        result["oauth_rounds"] = dict(Counter(r.outcome for r in run.records if r.op == "oauth"))
        hung = [r for r in run.records if r.seconds >= TIMEOUT - 0.5]
        result["hung"] = len(hung)
        if hung:
            failures.append(f"{len(hung)} requests ran into the {TIMEOUT} s timeout")
        after = result["phases"].get("after", {})
        if after.get("errors") or not after.get("ok"):
            failures.append(f"errors after recovery: {after.get('errors')}")
        for i, feed in enumerate(feeds):
            if feed.messages_per_phase["after"] == 0:
                failures.append(f"feed {i} did not deliver after the faults")
        ready = {}
        for i in (1, 2, 3):
            answer = httpx.get(f"http://127.0.0.1:{port + i}/ready", timeout=10)
            ready[f"serve-{i}"] = answer.json()
            if answer.status_code != 200:
                failures.append(f"serve-{i} not ready: {answer.text}")
        result["ready"] = ready
        result["consistency"] = {name: int(_psql(port + 10, q))
                                 for name, q in CONSISTENCY.items()}
        # The redemption checks read a table the workload filled.
        result["refresh_tokens_with_a_parent"] = int(_psql(
            port + 10, "SELECT count(*) FROM oauth_refresh_tokens WHERE parent_hash IS NOT NULL"))
        if not result["refresh_tokens_with_a_parent"]:
            failures.append("no refresh token was ever redeemed: the check checked nothing")
        failures += [f"{name}: {n}" for name, n in result["consistency"].items() if n]
        logs = "".join(p.read_text(errors="replace") for p in (state / "logs").glob("*.log"))
        result["tracebacks_in_logs"] = logs.count("Traceback (most recent call last)")
        result["logged_exceptions"] = dict(Counter(_exception_lines(logs)).most_common(12))
    finally:
        _cluster("down --purge", env)
        emulator.terminate()
        emulator.wait(timeout=10)
    result["failures"] = failures
    print(json.dumps(result, indent=2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"faults-{time.strftime('%Y%m%dT%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"written {out.relative_to(ROOT)}")
    if failures:
        print("FAULTS FAILED:", *failures, sep="\n  ")
        sys.exit(1)


if __name__ == "__main__":
    main()
