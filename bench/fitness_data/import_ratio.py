"""FIT import time against garmin-fit-sdk's ``Decoder.read()`` alone.

    PYTHONPATH=src python -m bench.fitness_data.import_ratio [--runs N]

For each file, runs alternating: the best of N runs of
``Decoder(Stream.from_byte_array(data)).read()`` with its defaults (what the SDK
costs on its own), and the best of N runs of ``parse_activity(data)`` (decode,
1 Hz StreamSet, summary, laps), and their ratio.
The target (issue: a full import in at most 1.5x the decoder's time) leaves the
storage and metrics steps the rest of the budget. Files: the two real rides of
tests/data and a synthetic two-hour 1 Hz ride with every channel, built with the SDK's
Encoder.

The import is usually faster than the default ``read()``: it asks the decoder to leave
timestamps as FIT seconds (no datetime object per field, ~15-20 % of the decoder's
time), and its own work after decoding (numpy columns, the 1 Hz grid, the summary and
laps) is a few milliseconds.
"""

from __future__ import annotations

import argparse
import gc
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from garmin_fit_sdk import Decoder, Encoder, Profile, Stream

from pacekeeper.fitness.importers import parse_activity

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "activities" / "fit"


def synthetic_ride(seconds: int = 7200) -> bytes:
    """A two-hour 1 Hz ride: HR, power, cadence, speed, distance, altitude, position, temp."""
    mesg = Profile["mesg_num"]
    enc = Encoder()
    t0 = datetime(2024, 6, 1, 7, 0, tzinfo=UTC)
    enc.write_mesg(
        {
            "mesg_num": mesg["FILE_ID"],
            "type": "activity",
            "manufacturer": "garmin",
            "product": 3121,
            "time_created": t0,
            "serial_number": 1,
        }
    )
    distance = 0.0
    for i in range(seconds):
        speed = 8.0 + 2.0 * math.sin(i / 300)
        distance += speed
        enc.write_mesg(
            {
                "mesg_num": mesg["RECORD"],
                "timestamp": t0 + timedelta(seconds=i),
                "heart_rate": 140 + int(10 * math.sin(i / 200)),
                "power": 200 + int(50 * math.sin(i / 30)),
                "cadence": 88,
                "speed": speed,
                "distance": distance,
                "altitude": 100 + 30 * math.sin(i / 900),
                "position_lat": int((52.0 + i * 1e-5) * 2**31 / 180),
                "position_long": int((6.6 + i * 1e-5) * 2**31 / 180),
                "temperature": 20,
            }
        )
    enc.write_mesg(
        {
            "mesg_num": mesg["LAP"],
            "timestamp": t0 + timedelta(seconds=seconds),
            "start_time": t0,
            "total_elapsed_time": float(seconds),
        }
    )
    enc.write_mesg(
        {
            "mesg_num": mesg["SESSION"],
            "timestamp": t0 + timedelta(seconds=seconds),
            "start_time": t0,
            "total_elapsed_time": float(seconds),
            "total_timer_time": float(seconds),
            "sport": "cycling",
        }
    )
    return enc.close()


def best_interleaved(
    a: Callable[[], object], b: Callable[[], object], runs: int
) -> tuple[float, float]:
    """Best of ``runs`` for each, alternating a and b so drift on a shared machine
    (other processes, frequency changes) hits both alike."""
    times_a, times_b = [], []
    for _ in range(runs):
        for fn, times in ((a, times_a), (b, times_b)):
            gc.collect()
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return min(times_a), min(times_b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    files = {
        name: (DATA / name).read_bytes()
        for name in ("4801048867.fit", "garmin-edge-500-activity.fit")
    }
    files["synthetic 2 h 1 Hz ride"] = synthetic_ride()
    print(f"{'file':32s} {'records':>8s} {'decoder':>9s} {'import':>9s} {'ratio':>6s}")
    for name, data in files.items():

        def decode(data: bytes = data) -> object:
            return Decoder(Stream.from_byte_array(bytearray(data))).read()

        def parse(data: bytes = data) -> object:
            return parse_activity(data)

        records = len(decode()[0]["record_mesgs"])  # type: ignore[index]
        t_decoder, t_import = best_interleaved(decode, parse, args.runs)
        print(
            f"{name:32s} {records:8d} {t_decoder * 1000:7.1f}ms {t_import * 1000:7.1f}ms "
            f"{t_import / t_decoder:6.2f}"
        )


if __name__ == "__main__":
    main()
