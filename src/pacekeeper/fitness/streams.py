"""An activity's samples as columnar numpy arrays on a 1 Hz grid, and their compact codec.

``StreamSet.time`` is whole seconds since the activity's start, one entry per second from
0 to the last sample (a 1 Hz grid). Every channel is a float64 array of the same length;
NaN marks a second with no sample (the device recorded nothing: a pause or a dropout),
which is different from a recorded zero (a coasting 0 W). Analytics decide per formula
how to treat NaN (see ``pacekeeper.fitness.analytics``).

On disk a stream set is one binary value (``to_bytes``): per channel a NaN bitmap and
the values quantized to the channel's resolution, delta-encoded as int32, byte-shuffled
and compressed with zlib. Neighbouring samples are close, so the deltas are small and
their high bytes mostly zero: a six-hour 1 Hz ride with ten channels is ~150 KB.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import orjson

from pacekeeper.errors import PacekeeperError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Channel:
    name: str
    unit: str
    scale: float  # stored as round(value * scale) in int32
    downsample: str  # "mean", "first" or "max" over a bucket when downsampling


# Resolutions: 1 W, 1 bpm, 1 rpm, 1 mm/s, 1 cm, 1 cm, 1e-7 degree (~1 cm), 0.1 C, 0.01 %.
CHANNELS: Final[dict[str, Channel]] = {
    c.name: c
    for c in (
        Channel("power", "W", 1.0, "mean"),
        Channel("heartrate", "bpm", 1.0, "mean"),
        Channel("cadence", "rpm", 1.0, "mean"),
        Channel("speed", "m/s", 1000.0, "mean"),
        Channel("distance", "m", 100.0, "max"),
        Channel("altitude", "m", 100.0, "mean"),
        Channel("lat", "deg", 1e7, "first"),
        Channel("lng", "deg", 1e7, "first"),
        Channel("temperature", "C", 10.0, "mean"),
        Channel("grade", "%", 100.0, "mean"),
    )
}
_MAGIC: Final = b"PKS1"
_I32 = np.iinfo(np.int32)


class StreamError(PacekeeperError, ValueError):
    """A stream set that cannot be built or decoded."""


@dataclass(frozen=True, slots=True, eq=False)
class StreamSet:
    time: IntArray
    channels: Mapping[str, FloatArray]

    def __post_init__(self) -> None:
        n = len(self.time)
        for name, values in self.channels.items():
            if name not in CHANNELS:
                raise StreamError(f"unknown stream channel {name!r}")
            if len(values) != n:
                raise StreamError(f"stream {name!r} has {len(values)} samples, time has {n}")

    @classmethod
    def empty(cls) -> StreamSet:
        return cls(np.zeros(0, dtype=np.int64), {})

    def __len__(self) -> int:
        return len(self.time)

    @property
    def keys(self) -> list[str]:
        """Channels present, in the canonical order of ``CHANNELS``."""
        return [name for name in CHANNELS if name in self.channels]

    def get(self, name: str) -> FloatArray | None:
        return self.channels.get(name)

    def has(self, name: str) -> bool:
        """True when the channel exists and holds at least one sample."""
        values = self.channels.get(name)
        return values is not None and bool(np.any(~np.isnan(values)))

    def select(self, keys: Iterable[str]) -> StreamSet:
        wanted = set(keys)
        return StreamSet(self.time, {k: v for k, v in self.channels.items() if k in wanted})

    def downsample(self, max_points: int) -> StreamSet:
        """At most ``max_points`` samples: consecutive buckets of equal width, each
        reduced per its channel's rule (mean for intensities, max for distance, the
        first sample for position). NaN-only buckets stay NaN."""
        n = len(self.time)
        if max_points < 1:
            raise StreamError("max_points must be at least 1")
        if n <= max_points:
            return self
        width = -(-n // max_points)  # ceil
        pad = (-n) % width
        starts = np.arange(0, n, width)
        channels: dict[str, FloatArray] = {}
        for name, values in self.channels.items():
            rule = CHANNELS[name].downsample
            if rule == "first":
                channels[name] = values[starts]
                continue
            grid = np.concatenate([values, np.full(pad, np.nan)]).reshape(-1, width)
            present = ~np.isnan(grid)
            count = present.sum(axis=1)
            if rule == "max":
                reduced = np.where(present, grid, -np.inf).max(axis=1)
            else:
                reduced = np.where(present, grid, 0.0).sum(axis=1) / np.maximum(count, 1)
            channels[name] = np.where(count > 0, reduced, np.nan)
        return StreamSet(self.time[starts], channels)

    def to_json(self) -> dict[str, list[float | None] | list[int]]:
        """Plain lists for JSON: NaN becomes null, values rounded to their resolution."""
        out: dict[str, list[float | None] | list[int]] = {"time": self.time.tolist()}
        for name in self.keys:
            channel = CHANNELS[name]
            digits = max(0, round(np.log10(channel.scale)))
            values = np.round(self.channels[name], digits)
            out[name] = [None if v != v else v for v in values.tolist()]
        return out

    def unstorable(self) -> str | None:
        """The first channel whose values do not fit the stored form (int32 at the
        channel's resolution: speed past 2,147 km/s, distance past 21,474 km), or None."""
        for name in self.keys:
            values = self.channels[name]
            scaled = np.round(np.where(np.isnan(values), 0.0, values) * CHANNELS[name].scale)
            if scaled.size and (scaled.min() < _I32.min or scaled.max() > _I32.max):
                return name
        return None

    def to_bytes(self) -> bytes:
        names = self.keys
        header = orjson.dumps({"n": len(self.time), "channels": names})
        parts = [_encode_ints(self.time.astype(np.int64))]
        for name in names:
            values = self.channels[name]
            missing = np.isnan(values)
            scaled = np.round(np.where(missing, 0.0, values) * CHANNELS[name].scale)
            if scaled.size and (scaled.min() < _I32.min or scaled.max() > _I32.max):
                raise StreamError(f"stream {name!r} has values out of range")
            quantized = scaled.astype(np.int64)
            if missing.any():  # hold the last value over gaps: their deltas become 0
                index = np.where(missing, 0, np.arange(len(values)))
                np.maximum.accumulate(index, out=index)
                quantized = quantized[index]
            parts.append(np.packbits(missing).tobytes())
            parts.append(_encode_ints(quantized))
        body = zlib.compress(b"".join(parts), 6)
        return _MAGIC + struct.pack("<I", len(header)) + header + body

    @classmethod
    def from_bytes(cls, blob: bytes) -> StreamSet:
        if blob[:4] != _MAGIC:
            raise StreamError("not a stream set")
        (length,) = struct.unpack_from("<I", blob, 4)
        header = orjson.loads(blob[8 : 8 + length])
        n = int(header["n"])
        body = zlib.decompress(blob[8 + length :])
        offset = 0

        def take(size: int) -> bytes:
            nonlocal offset
            chunk = body[offset : offset + size]
            offset += size
            return chunk

        time = _decode_ints(take(4 * n), n)
        channels: dict[str, FloatArray] = {}
        for name in header["channels"]:
            mask_bytes = take((n + 7) // 8)
            missing = np.unpackbits(np.frombuffer(mask_bytes, dtype=np.uint8), count=n)
            values = _decode_ints(take(4 * n), n).astype(np.float64) / CHANNELS[name].scale
            values[missing.astype(bool)] = np.nan
            channels[name] = values
        return cls(time, channels)


def _encode_ints(values: IntArray) -> bytes:
    """Deltas as little-endian int32, byte-shuffled (all low bytes, then the next...).

    The values fit in int32, so deltas taken modulo 2**32 (a step from 180 to -180
    degrees overflows int32) sum back to them exactly with int32 wrap-around."""
    deltas = np.diff(values, prepend=np.int64(0)).astype("<i4")  # wraps modulo 2**32
    return deltas.view(np.uint8).reshape(-1, 4).T.tobytes()


def _decode_ints(data: bytes, n: int) -> IntArray:
    planes = np.frombuffer(data, dtype=np.uint8).reshape(4, n)
    deltas = np.ascontiguousarray(planes.T).view("<i4").reshape(n)
    return np.cumsum(deltas, dtype=np.int32).astype(np.int64)


def resample_1hz(
    seconds: npt.ArrayLike,
    channels: Mapping[str, npt.ArrayLike],
    *,
    max_gap_s: float = 5.0,
    paused: npt.NDArray[np.bool_] | None = None,
    bridged: frozenset[str] = frozenset(),
) -> StreamSet:
    """Samples at arbitrary times (seconds since start, increasing) onto the 1 Hz grid.

    Between two samples at most ``max_gap_s`` apart the value is interpolated linearly
    (smart recording writes every 1-5 s); a longer gap is a pause or dropout and its
    seconds are NaN. A channel's own NaN samples count as absent.

    ``paused``: per grid second, True where the recording device's timer was stopped,
    when the file says so. It then decides instead of ``max_gap_s``: a second between
    two samples is NaN exactly when the timer was stopped, and a gap of any length
    while the timer ran (smart recording) is interpolated, as the device's own
    time-weighted averages count it. Only the ``bridged`` channels (those that change
    smoothly: heart rate, distance, position, altitude) are interpolated across such a
    gap when it is longer than ``max_gap_s``, and only where nothing was recorded (a
    channel missing from samples that kept coming stays a gap); the others (power,
    cadence, speed, which can drop to zero at any moment) stay NaN there.
    """
    t = np.asarray(seconds, dtype=np.float64)
    if t.size == 0:
        return StreamSet.empty()
    order = np.argsort(t, kind="stable")
    t = t[order] - t[order][0]
    grid = np.arange(0, int(np.floor(t[-1])) + 1, dtype=np.int64)
    timed = paused is not None and len(paused) == len(grid)
    if timed:
        # Seconds inside a long gap between samples of any channel (nothing recorded):
        # only there is a bridged channel carried across; a long gap in one channel
        # while samples kept coming (a strap that lost contact) stays a gap.
        at = np.clip(np.searchsorted(t, grid, side="left"), 1, len(t) - 1)
        unrecorded = (t[at] - t[at - 1]) > max_gap_s
    out: dict[str, FloatArray] = {}
    for name, raw in channels.items():
        v = np.asarray(raw, dtype=np.float64)[order]
        ok = ~np.isnan(v)
        if not ok.any():
            continue
        tv, vv = t[ok], v[ok]
        # Keep the last sample of any second recorded twice (np.interp needs increasing x).
        keep = np.append(np.diff(tv) > 0, True)
        tv, vv = tv[keep], vv[keep]
        values = np.interp(grid, tv, vv, left=np.nan, right=np.nan)
        # Seconds inside a gap longer than max_gap_s have no sample.
        after = np.searchsorted(tv, grid, side="left")
        exact = (after < len(tv)) & (tv[np.minimum(after, len(tv) - 1)] == grid)
        inside = (after > 0) & (after < len(tv))
        gap = np.zeros(len(grid), dtype=bool)
        idx = np.clip(after, 1, len(tv) - 1)
        gap[inside] = (tv[idx] - tv[idx - 1])[inside] > max_gap_s
        if timed:
            assert paused is not None
            held = gap & unrecorded if name in bridged else np.zeros(len(grid), dtype=bool)
            gap = (gap & ~held) | (inside & paused)
        values[gap & ~exact] = np.nan
        out[name] = values
    return StreamSet(grid, out)


def from_samples(time: Sequence[float], series: Mapping[str, Sequence[float | None] | None],
                 latlng: Sequence[Sequence[float | None] | None] | None = None) -> StreamSet:
    """A provider's samples on the 1 Hz grid: the one stream type every mapper returns,
    a provider's activity's as an imported file's (issue 29 item 5). ``time``: seconds
    since the start, one entry per sample (providers send 1 Hz or every few seconds);
    ``series``: our channel names, one value per ``time`` entry (None: no sample), a
    series the provider lacks None; ``latlng``: (lat, lng) pairs, split into ``lat`` and
    ``lng``. A series of another length than ``time`` is refused (``StreamError``)."""
    n = len(time)

    def floats(name: str, values: Sequence[Any]) -> FloatArray:
        if len(values) != n:
            raise StreamError(f"stream {name!r} has {len(values)} samples, time has {n}")
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

    channels: dict[str, FloatArray] = {}
    for name, values in series.items():
        if name not in CHANNELS:
            raise StreamError(f"unknown stream channel {name!r}")
        if values is not None:
            channels[name] = floats(name, values)
    if latlng is not None:
        pairs = floats("latlng", [(None, None) if p is None else tuple(p) for p in latlng])
        pairs = pairs.reshape(-1, 2)
        channels["lat"], channels["lng"] = pairs[:, 0], pairs[:, 1]
    return resample_1hz(np.asarray(time, dtype=np.float64), channels)


__all__ = ["CHANNELS", "Channel", "FloatArray", "StreamError", "StreamSet", "from_samples",
           "resample_1hz"]
