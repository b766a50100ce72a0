"""``python -m bench.analytics``: the analytics engine against plain references, same run.

- CTL/ATL/TSB over ten years of daily load: ``ctl_atl_tsb`` (two blocked numpy
  filters) and a plain Python loop over the days, equal to 1e-9 (checked). Target: at
  least 2x faster (it replaced a numba loop at 50x; issue 30: docs/performance.md).
- ``--memory``: resident memory of each entry point and of ``pacekeeper serve`` before
  and after its first fitness chart (``_memory.py``).
- Mean-max power at every whole second 1 s..n of a six-hour 1 Hz ride: ``mean_max`` and
  the plain numpy loop ``for d: (c[d:] - c[:-d]).max() / d``, with identical answers
  checked. Target: at most half the loop's time. Two rides: real power (the repository's
  FIT rides, tiled with random scale factors to six hours) and a synthetic one (noise on
  slow sine hills: long windows all alike, the hard case for pruning). sweat's
  ``mean_max`` (the oracle venv, when present) on one hour beside it.
- A 60-point standard curve (``STANDARD_DURATIONS``) of the six-hour ride. Target: < 20 ms.

Each figure is the median of several runs; the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pacekeeper.fitness import analytics as an

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
FIT = ROOT / "tests" / "data" / "activities" / "fit"
SIX_HOURS = 6 * 3600


def _median_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def _pmc_loop(load: list[float]) -> tuple[list[float], list[float], list[float]]:
    kc, ka = math.exp(-1 / 42), math.exp(-1 / 7)
    ctl = atl = 0.0
    c_out, a_out, t_out = [], [], []
    for x in load:
        t_out.append(ctl - atl)
        ctl = ctl * kc + x * (1 - kc)
        atl = atl * ka + x * (1 - ka)
        c_out.append(ctl)
        a_out.append(atl)
    return c_out, a_out, t_out


def _real_ride(rng: np.random.Generator) -> np.ndarray:
    from garmin_fit_sdk import Decoder, Stream

    parts = []
    for name in ("sample-activity-indoor-trainer.fit", "null_compressed_speed_dist.fit"):
        messages, _ = Decoder(Stream.from_file(str(FIT / name))).read()
        parts.append(np.array([r.get("power") or 0 for r in messages["record_mesgs"]], float))
    ride = np.concatenate(parts)
    tiles = [np.round(ride * rng.uniform(0.85, 1.1)) for _ in range(SIX_HOURS // len(ride) + 1)]
    return np.concatenate(tiles)[:SIX_HOURS]


def _synthetic_ride(rng: np.random.Generator) -> np.ndarray:
    t = np.arange(SIX_HOURS)
    return np.clip(rng.normal(200, 60, SIX_HOURS) + 80 * np.sin(t / 300), 0, None).round()


def _plain_mean_max(p: np.ndarray) -> np.ndarray:
    c = np.concatenate(([0.0], np.cumsum(p)))
    return np.array([(c[d:] - c[:-d]).max() / d for d in range(1, len(p) + 1)])


def _sweat_seconds(power: np.ndarray) -> float | None:
    candidates = [
        os.environ.get("PACEKEEPER_ORACLE_PYTHON", ""),
        str(ROOT / ".tools" / "oracle-venv" / "bin" / "python"),
    ]
    python = next((c for c in candidates if c and Path(c).is_file()), None)
    if python is None:
        return None
    code = (
        "import json,sys,time,numpy as np\n"
        "from sweat.metrics.core import mean_max\n"
        "p=np.asarray(json.load(sys.stdin),float)\n"
        "t=time.perf_counter(); mean_max(np.concatenate(([0.0],p))); "
        "print(time.perf_counter()-t)\n"
    )
    done = subprocess.run(
        [python, "-c", code],
        input=json.dumps(power.tolist()),
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/run analytics",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--no-sweat", action="store_true", help="skip the sweat figure")
    parser.add_argument("--http-only", action="store_true",
                        help="only the HTTP figures (fitness chart, power curve)")
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP figures")
    parser.add_argument("--pmc-only", action="store_true",
                        help="only the CTL/ATL/TSB row (implies --no-http)")
    parser.add_argument("--memory", action="store_true",
                        help="only resident memory per entry point (issue 30)")
    args = parser.parse_args(argv)
    if args.memory:
        from ._memory import main as memory

        return memory()
    rng = np.random.default_rng(2026)
    rows: list[dict[str, Any]] = []
    if not args.no_http and not args.pmc_only:
        from ._http import http_rows

        for r in http_rows():
            met = "" if "met" not in r else ("MET" if r["met"] else "NOT MET")
            print(f"{r['figure']:<48} p50 {r['p50_ms']:7.2f} ms  p90 {r['p90_ms']:7.2f} ms  "
                  f"{r['bytes']:>8} B  {r.get('target', '')} {met}")
            rows.append(r)
        if args.http_only:
            RESULTS.mkdir(parents=True, exist_ok=True)
            (RESULTS / "analytics-http-latest.json").write_text(json.dumps(
                {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "loadavg_at_end": os.getloadavg(), "rows": rows}, indent=2))
            return 0

    load = rng.gamma(1.2, 50.0, 3650) * (rng.random(3650) > 0.25)
    ours_s, pmc = _median_time(lambda: an.ctl_atl_tsb(load), args.repeat * 4)
    loop_s, ref = _median_time(lambda: _pmc_loop(load.tolist()), args.repeat)
    err = max(float(np.max(np.abs(got - np.array(want))))
              for got, want in zip((pmc.ctl, pmc.atl, pmc.tsb), ref, strict=True))
    assert err <= 1e-9, f"ctl_atl_tsb differs from the loop by {err}"
    rows.append(
        {
            "figure": "ctl_atl_tsb, 3650 days",
            "max_abs_error": err,
            "ours_ms": ours_s * 1e3,
            "reference": "python loop",
            "reference_ms": loop_s * 1e3,
            "speedup": loop_s / ours_s,
            "target": ">= 2x",
            "met": loop_s / ours_s >= 2,
        }
    )

    real = _real_ride(rng) if not args.pmc_only else np.zeros(0)
    rides = () if args.pmc_only else (("real", real), ("synthetic", _synthetic_ride(rng)),
             # Not whole watts (a smoothed or scaled stream): the float64 path.
             ("real x 1.0037 (fractional)", real * 1.0037))
    for label, ride in rides:
        ours_s, ours = _median_time(lambda ride=ride: an.mean_max(ride), args.repeat)
        loop_s, ref = _median_time(lambda ride=ride: _plain_mean_max(ride), args.repeat)
        exact = bool(np.array_equal(ours, ref))
        rows.append(
            {
                "figure": f"mean_max 1..21600 s, {label} ride",
                "ours_ms": ours_s * 1e3,
                "reference": "numpy loop over durations",
                "reference_ms": loop_s * 1e3,
                "ratio": ours_s / loop_s,
                "exact": exact,
                "target": "<= 0.5 x",
                "met": exact and ours_s / loop_s <= 0.5,
            }
        )
        std_s, _ = _median_time(lambda ride=ride: an.standard_curve(ride), args.repeat * 4)
        rows.append(
            {
                "figure": f"standard curve ({len(an.STANDARD_DURATIONS)} points), {label} 6 h ride",
                "ours_ms": std_s * 1e3,
                "target": "< 20 ms",
                "met": std_s < 0.020,
            }
        )

    if not args.no_sweat and not args.pmc_only:
        hour = _real_ride(rng)[:3600]
        sweat_s = _sweat_seconds(hour)
        ours_s, _ = _median_time(lambda: an.mean_max(hour), args.repeat)
        rows.append(
            {
                "figure": "mean_max 1..3600 s, 1 h ride",
                "ours_ms": ours_s * 1e3,
                "reference": "sweat 0.25 mean_max",
                "reference_ms": None if sweat_s is None else sweat_s * 1e3,
                "note": "oracle venv missing" if sweat_s is None else "not a target",
            }
        )

    for r in rows:
        ref = f"{r['reference']} {r['reference_ms']:.1f} ms" if r.get("reference_ms") else ""
        extra = ""
        if "speedup" in r:
            extra = f"speedup {r['speedup']:.0f}x"
        elif "ratio" in r:
            extra = f"ratio {r['ratio']:.2f} exact={r['exact']}"
        met = "" if "met" not in r else ("MET" if r["met"] else "NOT MET")
        print(
            f"{r['figure']:<48} ours {r['ours_ms']:8.2f} ms  {ref:<40} {extra:<24}"
            f" {r.get('target', '')} {met}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_at_end": os.getloadavg(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "rows": rows,
    }
    (RESULTS / "analytics-latest.json").write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
