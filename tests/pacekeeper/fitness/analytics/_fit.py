"""Read FIT test files with the FIT SDK directly (independent of the importers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from garmin_fit_sdk import Decoder, Stream

DATA = Path(__file__).resolve().parents[3] / "data" / "activities" / "fit"


@dataclass
class FitRide:
    session: dict[str, Any]
    seconds: np.ndarray  # record timestamps, seconds since the first record
    channels: dict[str, np.ndarray]  # per record, NaN where the field is absent

    def grid(self, name: str) -> np.ndarray:
        """The channel on the 1 Hz grid: records placed at their second, NaN elsewhere."""
        out = np.full(int(self.seconds[-1]) + 1, np.nan)
        out[self.seconds.astype(int)] = self.channels[name]
        return out


def read_fit(name: str) -> FitRide:
    messages, errors = Decoder(Stream.from_file(str(DATA / name))).read(
        convert_datetimes_to_dates=False
    )
    assert not errors, errors
    records = messages["record_mesgs"]
    t = np.array([r["timestamp"] for r in records], dtype=float)
    fields = {
        "power": "power",
        "heart_rate": "heartrate",
        "enhanced_speed": "speed",
        "distance": "distance",
        "enhanced_altitude": "altitude",
    }
    channels = {
        ours: np.array([np.nan if r.get(k) is None else float(r[k]) for r in records])
        for k, ours in fields.items()
    }
    return FitRide(messages["session_mesgs"][0], t - t[0], channels)
