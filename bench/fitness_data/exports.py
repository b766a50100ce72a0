"""A ten-year Strava export (``bench/run fitness_data``'s export row, issue 31 item 3).

``python -m bench.fitness_data.exports [--count 3650]``: writes a Strava "Download your
data" archive of ``count`` activities, one a day (real GPX and TCX tracks of
tests/data/activities moved to each day: tests/pacekeeper/fitness/_exports.py), then
imports it as ``pacekeeper import-export`` does (the service on SQLite, one import
worker process as deployed) and reports activities per second and the peak resident
memory of the serving process and of the import worker. Target: at least 5 activities
a second. The import runs in a fresh process so that its peak memory is its own.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_PER_S = 5.0


def _cpu_s(pid: int) -> float:
    """A process's user + system CPU seconds (/proc/PID/stat, fields 14 and 15)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def _import(path: Path, data_dir: Path) -> dict[str, Any]:
    from pacekeeper.config import Settings
    from pacekeeper.owner import Owner
    from pacekeeper.services import build_services

    settings = Settings(data_dir=data_dir, jwt_rsa_key_bits=2048, registration="open",
                        master_encryption_key=base64.b64encode(bytes(32)).decode(),
                        argon2_memory_kib=1024, argon2_time_cost=1, worker="off",
                        import_workers=1)
    services = await build_services(settings)
    try:
        user = await services.accounts.register("bench@example.com", "bench-Passw0rd!")
        owner = Owner(user.id, user.tenant_id)
        exports = services.exports
        assert exports is not None
        exports.enqueue = None
        started, cpu = time.perf_counter(), time.process_time()
        job = await exports.from_path(owner, path)
        finished = await exports.run(owner, job.id)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        assert finished is not None
        executor = services.fitness.pool._executor
        workers = [p.pid for p in (executor._processes or {}).values()
                   if p.pid is not None] if executor else []
        return {"status": finished.status, "report": finished.report,
                "done": finished.done, "seconds": seconds, "server_cpu_s": cpu,
                "worker_cpu_s": sum((_cpu_s(pid) for pid in workers), 0.0),
                "server_peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "worker_peak_kib": max((_peak_kib(pid) for pid in workers), default=0)}
    finally:
        await services.close()


def _pad(path: Path, megabytes: int) -> None:
    """Media as a Strava export has them (photos, videos: stored, incompressible), so the
    archive reaches the size of a large export without more activities."""
    import zipfile

    block = os.urandom(1 << 20)
    with zipfile.ZipFile(path, "a") as archive:
        for n in range(0, megabytes, 256):
            info = zipfile.ZipInfo(f"media/video_{n // 256}.mp4", (2024, 1, 1, 0, 0, 0))
            with archive.open(info, "w", force_zip64=True) as out:
                for _ in range(min(256, megabytes - n)):
                    out.write(block)


def rows(count: int = 3650, pad_mb: int = 0) -> list[dict[str, Any]]:
    from tests.pacekeeper.fitness._exports import strava_export, ten_years

    with tempfile.TemporaryDirectory(prefix="pk-bench-export-") as tmp:
        path = strava_export(Path(tmp) / "export_bench.zip", ten_years(count))
        if pad_mb:
            _pad(path, pad_mb)
        size = path.stat().st_size
        out = subprocess.run([sys.executable, "-m", "bench.fitness_data.exports", "--run",
                              str(path), str(Path(tmp) / "data")],
                             check=True, capture_output=True, text=True,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        result = json.loads(out.stdout.strip().splitlines()[-1])
    imported = result["report"]["imported"]
    rate = imported / result["seconds"]
    # What the machine's load does not change: the CPU one activity costs in each
    # process. They overlap (the next one is parsed while this one is stored), so on
    # an idle machine the busier of the two bounds the rate.
    per_cpu = imported / max(result["server_cpu_s"], result["worker_cpu_s"], 1e-9)
    what = "ten-year Strava export" if count == 3650 and not pad_mb else "Strava export"
    return [{"figure": f"{what} ({count} activities, {size / 1e6:.0f} MB) "
                       "imported end to end", "activities_per_s": round(rate, 2),
             "seconds": round(result["seconds"], 1), "imported": imported,
             "server_cpu_ms_per_activity": round(1000 * result["server_cpu_s"] / imported, 1),
             "worker_cpu_ms_per_activity": round(1000 * result["worker_cpu_s"] / imported, 1),
             "activities_per_s_idle_bound": round(per_cpu, 1),
             "load_average": os.getloadavg()[0],
             "rejected": result["report"]["rejected_total"],
             "server_peak_rss_mib": round(result["server_peak_kib"] / 1024, 1),
             "worker_peak_rss_mib": round(result["worker_peak_kib"] / 1024, 1),
             "target": f">= {TARGET_PER_S:g} activities/s", "met": rate >= TARGET_PER_S}]


def describe(row: dict[str, Any]) -> str:
    return (f"{row['figure']:<62} {row['activities_per_s']:.1f} activities/s "
            f"({row['seconds']} s; peak RSS {row['server_peak_rss_mib']} MiB serving, "
            f"{row['worker_peak_rss_mib']} MiB worker; CPU per activity "
            f"{row['server_cpu_ms_per_activity']} ms serving, "
            f"{row['worker_cpu_ms_per_activity']} ms worker; load {row['load_average']:.1f})"
            f"  [{row['target']}: "
            f"{'met' if row['met'] else 'NOT met'}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3650)
    parser.add_argument("--pad-mb", type=int, default=0,
                        help="add this many MB of media (the archive's size, not its work)")
    parser.add_argument("--run", nargs=2, metavar=("EXPORT", "DATA_DIR"),
                        help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.run:
        print(json.dumps(asyncio.run(_import(Path(args.run[0]), Path(args.run[1])))))
        return
    for row in rows(args.count, args.pad_mb):
        print(describe(row))


if __name__ == "__main__":
    main()
