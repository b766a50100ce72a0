"""A real device's FIT recording uploaded to a sandbox athlete's account.

What a person does when their head unit uploads a ride to Strava or Garmin Connect: from
then on the provider serves that ride (its start, elapsed time, distance and samples) in
the athlete's history. The sandbox does the same for the FIT file given to its admin
``uploads`` action, so a test can bring the same ride in from a provider sync and from a
file import. Decoded here with garmin-fit-sdk directly, not with pacekeeper's importer,
so the providers' view of the ride is an independent reading of the file.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from garmin_fit_sdk import FIT_EPOCH_S, Decoder, Stream

from pacekeeper.errors import PacekeeperError

from ._generator import ID_STRIDE, SandboxActivity, StreamData, record

_SPORTS = {"cycling": "Ride", "running": "Run"}
_SEMICIRCLE = 180.0 / 2**31


class NotARecording(PacekeeperError, ValueError):
    """The bytes are not a FIT ride or run the sandbox can replay (the admin answers 400)."""


def _column(records: list[dict[str, Any]], *names: str) -> list[float] | None:
    """One field per record (the first of ``names`` present), the last value carried
    over a record without it; None when no record has it."""
    values: list[float] = []
    last, seen = 0.0, False
    for r in records:
        value = next((r[n] for n in names if r.get(n) is not None), None)
        if value is not None:
            last, seen = float(value), True
        values.append(last)
    return values if seen else None


def upload_fit(athlete_id: int, data: bytes) -> SandboxActivity:
    """Decode ``data`` and put the ride into ``athlete_id``'s history on its day."""
    decoder = Decoder(Stream.from_byte_array(bytearray(data)))
    if not decoder.is_fit():
        raise NotARecording("not a FIT file")
    messages, errors = decoder.read(convert_datetimes_to_dates=False)
    # Timestamps stay FIT seconds (ints) with convert_datetimes_to_dates=False.
    sessions: list[dict[str, Any]] = [dict(m) for m in messages.get("session_mesgs") or []]
    records: list[dict[str, Any]] = [dict(m) for m in messages.get("record_mesgs") or []]
    if errors or not sessions or not records:
        raise NotARecording("not a readable FIT activity with records")
    session = sessions[0]
    sport = _SPORTS.get(str(session.get("sport")))
    if sport is None:
        raise NotARecording("the sandbox replays rides and runs only")
    records = sorted((r for r in records if r.get("timestamp") is not None),
                     key=lambda r: r["timestamp"])
    t0 = int(session.get("start_time") or records[0]["timestamp"])
    start = datetime.fromtimestamp(t0 + FIT_EPOCH_S, UTC)
    elapsed = session.get("total_elapsed_time") or records[-1]["timestamp"] - t0
    lat = _column(records, "position_lat")
    lng = _column(records, "position_long")
    columns = {
        "distance": _column(records, "distance"),
        "altitude": _column(records, "enhanced_altitude", "altitude"),
        "velocity": _column(records, "enhanced_speed", "speed"),
        "heartrate": _column(records, "heart_rate"),
        "watts": _column(records, "power"),
        "cadence": _column(records, "cadence"),
    }
    n = len(records)
    absent = {k for k, v in columns.items() if v is None} | {"grade"}
    if lat is None or lng is None:
        absent.add("latlng")

    def col(name: str) -> list[float]:
        return columns[name] or [0.0] * n

    stream = StreamData(
        time=[int(r["timestamp"]) - t0 for r in records],
        distance=[round(x, 2) for x in col("distance")],
        latlng=[[round(a * _SEMICIRCLE, 7), round(b * _SEMICIRCLE, 7)]
                for a, b in zip(lat or [0.0] * n, lng or [0.0] * n, strict=True)],
        altitude=[round(x, 1) for x in col("altitude")],
        velocity=[round(x, 3) for x in col("velocity")],
        heartrate=[round(x) for x in col("heartrate")],
        watts=[round(x) for x in col("watts")],
        cadence=[round(x) for x in col("cadence")],
        grade=[0.0] * n,
        absent=frozenset(absent),
    )
    activity = SandboxActivity(
        id=athlete_id * ID_STRIDE + start.date().toordinal(), athlete_id=athlete_id,
        sport=sport, name=f"Recorded {sport}", start=start, duration_s=round(float(elapsed)),
        trainer="latlng" in absent)
    record(activity, stream)
    return activity


__all__ = ["NotARecording", "upload_fit"]
