"""FIT activities with Garmin's official SDK (``garmin_fit_sdk``: ``Decoder``/``Stream``).

Decoding: ``Decoder.read`` with timestamps left as FIT seconds (no per-field datetime
objects; faster), HR messages not merged into records (``_heart_rates`` puts the
strap's beats on the grid) and everything else at its defaults (scale and offset
applied, components expanded, enum values as strings). Record
fields are then collected into one list per channel and turned into numpy arrays: no
other per-sample Python work.

Channels: ``heart_rate``, ``power``, ``cadence``, ``enhanced_speed`` (else ``speed``),
``distance``, ``enhanced_altitude`` (else ``altitude``), ``position_lat``/``_long``
(semicircles, times 180 / 2^31 to degrees), ``temperature``, ``grade``. Running power
written by a Connect IQ app or a pod in a developer field becomes the ``power`` channel
when the standard ``power`` field is absent from every record: the developer field is
the one whose field description maps natively to record field 7 (power), or else is
named "Power"/"RP_Power"/"Running Power"/"Stryd Power" with units of watts.

Damaged files (what a user who wants their ride, but not garbage, expects):

- truncated: the file is shorter than its header's data size plus the CRC (the upload
  or the copy was cut). The complete messages before the cut are imported (FIG-11,
  ``_fit_records.readable_prefix``) with a warning saying so; a file with no complete
  message is ``truncated``. A file whose later part is merely garbled is still damaged.
- compressed-timestamp records (Forerunner 70 era): the SDK refuses them, so they are
  rewritten as normal records first (``_fit_records.expand_compressed_timestamps``).
- bad file CRC, every message intact (``activity-filecrc.fit``): accepted. The SDK
  decodes every message against its definition up to the declared data size; only the
  final checksum disagrees, as it does after tools that edit a file without
  recomputing it. A flipped bit inside a value would go unnoticed, which the figures'
  plausibility (and the device's own session figures in ``device_metrics``) bounds.
- chained FIT files (several FIT files back to back) whose later part is damaged
  (``activity-settings-corruptheader.fit``, ``activity-settings-nodata.fit``,
  ``activity-activity-filecrc.fit``): the first file is complete, so it alone is
  imported and the damaged rest ignored.
- anything else the decoder cannot read is ``corrupt``.
- a FIT file whose ``file_id.type`` is not ``activity`` (settings, monitoring,
  courses, ...) is ``not_an_activity``; an activity with no timed records is ``empty``
  (unless it is a pool swim whose lengths are timed: they stand in for the records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
from garmin_fit_sdk import FIT_EPOCH_S, Decoder, Stream, hr_mesg_utils

from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import FloatArray
from pacekeeper.values import number as _number

from . import _fit_records, _sport, _totals
from ._assemble import Decoded, RawLap, RawLeg, RawLength
from ._errors import ImportRejected

_SEMICIRCLE_DEG: Final = 180.0 / 2**31
NO_FIX_ALTITUDE_M: Final = -500.0  # FIT's altitude offset: the value of a stored 0
_RECORD_MESG: Final = 20
_RECORD_POWER_FIELD: Final = 7
_POWER_NAMES: Final = frozenset({"power", "rp_power", "running power", "stryd power", "run power"})
_WATTS: Final = frozenset({"w", "watt", "watts"})
_MAX_UTC_OFFSET_S: Final = 14 * 3600
_RELATIVE_TIME_LIMIT: Final = 0x10000000  # FIT date_time below it: since power-on
# Session fields that are not figures (indexes, positions in semicircles, enums).
_NOT_METRICS: Final = frozenset(
    {"message_index", "first_lap_index", "num_laps", "timestamp", "start_time", "event_group"}
)


def _decode(data: bytes) -> tuple[Mapping[str, Any], list[Exception]]:
    decoder = Decoder(Stream.from_byte_array(bytearray(data)))
    try:
        # Heart rate of ``hr`` messages is put on the grid by the importer itself
        # (``_heart_rates``): the SDK's merge would raise on a message it cannot expand
        # and so refuse the whole file, and would average beats between sparse records.
        messages, errors = decoder.read(convert_datetimes_to_dates=False,
                                        merge_heart_rates=False)
    except Exception as error:  # the SDK catches most errors itself; be certain
        return {}, [error]
    return messages, list(errors)


def _is_crc_error(error: Exception) -> bool:
    return isinstance(error, RuntimeError) and str(error).endswith("CRC Error")


def read_messages(data: bytes) -> Mapping[str, Any]:
    """Decoded messages of the first (or only) FIT file in ``data``, judged as above."""
    return read_fit(data)[0]


def read_fit(data: bytes) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """``read_messages`` and the warnings a person should see (a truncated file)."""
    header_size = data[0]
    data_size = int.from_bytes(data[4:8], "little")
    first_end = header_size + data_size + 2
    warnings: list[str] = []
    if len(data) < first_end:
        # Cut short: the complete messages before the cut are the ride so far (FIG-11).
        salvaged = _fit_records.readable_prefix(data)
        if salvaged is None:
            raise ImportRejected(
                "truncated",
                f"the FIT file ends early: its header announces {first_end} bytes, "
                f"{len(data)} arrived, and no complete message precedes the cut",
            )
        warnings.append(
            f"the FIT file is truncated (its header announces {first_end} bytes, "
            f"{len(data)} arrived) and readable up to byte {salvaged[2]}: the "
            f"{salvaged[1]} messages before were imported"
        )
        data = salvaged[0]
        first_end = len(data)
    messages, errors = _decode(data)
    if errors and len(data) > first_end:
        # A later chained file is damaged: keep the first file alone.
        data = data[:first_end]
        messages, errors = _decode(data)
    if errors and _fit_records.has_compressed_timestamps(data):
        # Old devices' compressed-timestamp records: the SDK's limit, not the file's.
        messages, errors = _decode(_fit_records.expand_compressed_timestamps(data))
    if errors and not (len(errors) == 1 and _is_crc_error(errors[0])):
        raise ImportRejected("corrupt", "the FIT file is damaged and cannot be decoded")
    return messages, tuple(warnings)


def _clock_shift(messages: Mapping[str, Any], first: int) -> int:
    """Seconds to add to a file's times when its device kept no date: FIT times below
    0x10000000 are relative (seconds since the device was switched on; Forerunner 70).
    The ``activity`` message's ``local_timestamp`` is then the only date: the times
    become the device's local time (taken as UTC: its offset is unknown)."""
    if first >= _RELATIVE_TIME_LIMIT:
        return 0
    for activity in messages.get("activity_mesgs", []):
        local = activity.get("local_timestamp")
        stamp = activity.get("timestamp")
        if isinstance(local, int) and isinstance(stamp, int) and local >= _RELATIVE_TIME_LIMIT:
            return local - stamp
    return 0


def _column(records: Sequence[Mapping[Any, Any]], key: str) -> FloatArray | None:
    values = [r.get(key) for r in records]
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):  # a list or a label where a number belongs
        array = np.array(
            [v if isinstance(v, int | float) and not isinstance(v, bool) else None for v in values],
            dtype=np.float64,
        )
    if array.ndim != 1 or np.all(np.isnan(array)):
        return None
    return array


def _first(records: Sequence[Mapping[Any, Any]], *keys: str) -> FloatArray | None:
    for key in keys:
        column = _column(records, key)
        if column is not None:
            return column
    return None


def _developer_power_key(messages: Mapping[str, Any]) -> int | None:
    by_name: int | None = None
    for desc in messages.get("field_description_mesgs", []):
        key = desc.get("key")
        if not isinstance(key, int):
            continue
        if (
            desc.get("native_mesg_num") == _RECORD_MESG
            and desc.get("native_field_num") == _RECORD_POWER_FIELD
        ):
            return key
        name = desc.get("field_name")
        units = desc.get("units")
        if (
            by_name is None
            and isinstance(name, str)
            and name.strip().lower() in _POWER_NAMES
            and isinstance(units, str)
            and units.strip().lower() in _WATTS
        ):
            by_name = key
    return by_name


def _developer_column(records: Sequence[Mapping[Any, Any]], key: int) -> FloatArray | None:
    values = []
    for r in records:
        dev = r.get("developer_fields")
        v = dev.get(key) if dev else None
        values.append(v if isinstance(v, int | float) and not isinstance(v, bool) else None)
    array = np.array(values, dtype=np.float64)
    return None if np.all(np.isnan(array)) else array


def _unique_by_start(mesgs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    seen: set[Any] = set()
    out = []
    for m in mesgs:
        marker = (m.get("start_time"), m.get("total_elapsed_time"))
        if marker in seen:
            continue
        seen.add(marker)
        out.append(m)
    return out


def _device_metrics(sessions: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    metrics: dict[str, float] = {}
    if len(sessions) == 1:
        for key, value in sessions[0].items():
            number = _number(value)
            if (
                isinstance(key, str)
                and number is not None
                and key not in _NOT_METRICS
                and not key.endswith(("_lat", "_long"))
            ):
                metrics[key] = number
        return metrics
    for session in sessions:  # several sessions (multisport): the additive figures
        for key, value in session.items():
            number = _number(value)
            if not isinstance(key, str) or number is None:
                continue
            if key.startswith("total_"):
                metrics[key] = metrics.get(key, 0.0) + number
            elif key.startswith("max_"):
                metrics[key] = max(metrics.get(key, number), number)
    return metrics


def _label(sport: Any, sub_sport: Any) -> str | None:
    if not isinstance(sport, str):
        return None
    if isinstance(sub_sport, str) and sub_sport != "generic":
        return f"{sport}/{sub_sport}"
    return sport


_PRODUCT_PREFIXES: Final = {"fr": "Forerunner", "fenix": "Fenix", "edge": "Edge", "vivo": "Vivo"}


def _pretty_product(product: str) -> str:
    words: list[str] = []
    for part in product.split("_"):
        head = part.rstrip("0123456789")
        digits = part[len(head) :]
        head = _PRODUCT_PREFIXES.get(head, head.upper() if len(head) <= 3 else head.capitalize())
        words.extend(w for w in (head, digits) if w)
    return " ".join(words)


def _device_name(messages: Mapping[str, Any]) -> str | None:
    file_ids = messages.get("file_id_mesgs") or [{}]
    file_id = file_ids[0]
    manufacturer = file_id.get("manufacturer")
    product_name = file_id.get("product_name")
    product = file_id.get("garmin_product") or file_id.get("favero_product")
    maker = manufacturer.replace("_", " ").title() if isinstance(manufacturer, str) else None
    if isinstance(product_name, str) and product_name.strip():
        model = product_name.strip()
    elif isinstance(product, str):
        model = _pretty_product(product)
    else:
        model = None
    if maker and model:
        return model if model.lower().startswith(maker.lower()) else f"{maker} {model}"
    return maker or model


def _utc_offset(messages: Mapping[str, Any]) -> int | None:
    for activity in messages.get("activity_mesgs", []):
        local = activity.get("local_timestamp")
        stamp = activity.get("timestamp")
        if isinstance(local, int) and isinstance(stamp, int):
            offset = local - stamp
            if abs(offset) <= _MAX_UTC_OFFSET_S:
                return offset
    return None


def _sport_of(
    sessions: Sequence[Mapping[str, Any]], messages: Mapping[str, Any]
) -> tuple[Sport, str | None]:
    labelled = sessions or messages.get("sport_mesgs", [])
    pairs = [(m.get("sport"), m.get("sub_sport")) for m in labelled]
    pairs = [p for p in pairs if isinstance(p[0], str)]
    if not pairs:
        return Sport.OTHER, None
    if len({p[0] for p in pairs if p[0] != "transition"}) > 1:
        label = ", ".join(str(_label(*p)) for p in pairs)
        return Sport.OTHER, f"multisport: {label}"
    sport, sub_sport = pairs[0]
    return _sport.from_fit(sport, sub_sport), _label(sport, sub_sport)


def _timer_spans(messages: Mapping[str, Any], first: float, last: float,
                 shift: int = 0) -> list[tuple[float, float]] | None:
    """POSIX spans while the timer ran, from the ``event`` messages of the ``timer``
    event (start; stop, stop_all, ...); None without any. A file whose first timer event
    is a stop ran from its first record; one that ends running, to its last record."""
    events = sorted(
        (float(m["timestamp"]) + FIT_EPOCH_S + shift, str(m.get("event_type")))
        for m in messages.get("event_mesgs", [])
        if m.get("event") == "timer" and isinstance(m.get("timestamp"), int)
    )
    if not events:
        return None
    spans: list[tuple[float, float]] = []
    begin: float | None = first if events[0][1].startswith("stop") else None
    for at, kind in events:
        if kind == "start" and begin is None:
            begin = at
        elif kind.startswith("stop") and begin is not None:
            spans.append((begin, at))
            begin = None
    if begin is not None:
        spans.append((begin, max(begin, last)))
    return spans


def _session_end(sessions: Sequence[Mapping[str, Any]], shift: int = 0) -> float | None:
    """The latest session end (``start_time`` + ``total_elapsed_time``), POSIX seconds:
    the device's elapsed time runs to its final stop, which may follow the last record."""
    ends = [
        float(s["start_time"]) + FIT_EPOCH_S + shift + float(s["total_elapsed_time"])
        for s in sessions
        if isinstance(s.get("start_time"), int) and _number(s.get("total_elapsed_time"))
    ]
    return max(ends) if ends else None


def _start(mesg: Mapping[str, Any]) -> float | None:
    start = mesg.get("start_time")
    return float(start) + FIT_EPOCH_S if isinstance(start, int) else None


def _legs(sessions: Sequence[Mapping[str, Any]]) -> list[RawLeg]:
    """A multisport file's sessions as legs, in time order (one session: no legs)."""
    if len(sessions) < 2:
        return []
    legs = []
    for session in sessions:
        start = _start(session)
        if start is None:
            return []  # a leg we cannot place: no legs rather than wrong ones
        sport, sub_sport = session.get("sport"), session.get("sub_sport")
        legs.append(RawLeg(
            start_s=start,
            sport=_sport.from_fit(sport if isinstance(sport, str) else None,
                                  sub_sport if isinstance(sub_sport, str) else None),
            file_sport=_label(sport, sub_sport),
            transition=sport == "transition",
            device=_totals.from_fit(session),
        ))
    return sorted(legs, key=lambda leg: leg.start_s)


def _continue_distance(seconds: FloatArray, distance: FloatArray, legs: Sequence[RawLeg]) -> None:
    """Make a multisport file's distance one cumulative series, in place: some devices
    (the Fenix 2) restart each leg's distance at 0, so its last value would be the last
    leg's alone. Where a leg's first distance is below the previous leg's last, the
    later samples are lifted by that last value; a device that keeps counting across
    legs (the Forerunner 255) is left as it is."""
    order = np.argsort(seconds, kind="stable")
    t, d = seconds[order], distance[order]
    lifts = []  # judged on the file's own values, then applied
    for leg in legs[1:]:
        first = int(np.searchsorted(t, leg.start_s, side="left"))
        before = d[:first][~np.isnan(d[:first])]
        after = d[first:][~np.isnan(d[first:])]
        if before.size and after.size and after[0] < before[-1]:
            lifts.append((first, float(before[-1])))
    for first, lift in lifts:
        d[first:] += lift
    distance[order] = d


def _lengths(messages: Mapping[str, Any]) -> list[RawLength]:
    out = []
    for length in messages.get("length_mesgs", []):
        start = _start(length)
        timer = _number(length.get("total_timer_time"))
        if start is None or timer is None:
            continue
        strokes = _number(length.get("total_strokes"))
        elapsed = _number(length.get("total_elapsed_time"))
        stroke = length.get("swim_stroke")
        out.append(RawLength(
            start_s=start, elapsed_s=elapsed if elapsed is not None else timer, timer_s=timer,
            active=length.get("length_type") == "active", strokes=strokes,
            stroke=stroke if isinstance(stroke, str) else None,
        ))  # fmt: skip
    return sorted(out, key=lambda length: length.start_s)


def _records_from_lengths(messages: Mapping[str, Any]) -> list[dict[str, float]]:
    """A pool swim whose records carry no time (the Forerunner 910XT writes distance only)
    as records made from its ``length`` messages, which do: the distance swum so far at
    each length's start and end, in the raw FIT seconds the records would have had.
    Anything else without timed records stays ``empty``."""
    sessions = messages.get("session_mesgs") or []
    if len(sessions) != 1 or not _number(sessions[0].get("pool_length")):
        return []
    pool = float(sessions[0]["pool_length"])
    spans = []
    for length in messages.get("length_mesgs", []):
        start, timer = length.get("start_time"), _number(length.get("total_elapsed_time"))
        if isinstance(start, int) and timer is not None:
            spans.append((start, timer, length.get("length_type") == "active"))
    records: dict[float, float] = {}
    done = 0.0
    spans.sort(key=lambda span: span[0])
    for i, (start, elapsed, active) in enumerate(spans):
        records.setdefault(float(start), done)
        # The next length's whole-second start may fall before this one's exact end.
        end = start + elapsed
        if i + 1 < len(spans):
            end = min(end, float(spans[i + 1][0]))
        done += pool if active else 0.0
        records[end] = max(records.get(end, 0.0), done)
    return [{"timestamp": t, "distance": d} for t, d in sorted(records.items())]


def _heart_rates(messages: Mapping[str, Any]) -> tuple[FloatArray, FloatArray] | None:
    """Heart rate from ``hr`` messages (a swim strap stores beats underwater and hands
    them over afterwards; an HRM-Pro while out of reach): the SDK's own expansion of
    their ``event_timestamp`` arrays into (POSIX seconds, bpm), or None."""
    hr_mesgs = messages.get("hr_mesgs")
    if not hr_mesgs:
        return None
    # The SDK reads ``fractional_timestamp`` of every anchor message; it is optional.
    mesgs: list[Any] = [{"fractional_timestamp": None, **m} for m in hr_mesgs]
    try:
        beats = hr_mesg_utils.expand_heart_rates(mesgs)
    except Exception:  # a damaged hr message: the records' own heart rate stays
        return None
    pairs = [(b["timestamp"], b["heart_rate"]) for b in beats
             if isinstance(b.get("timestamp"), int | float)
             and isinstance(b.get("heart_rate"), int | float)]
    if not pairs:
        return None
    array = np.array(pairs, dtype=np.float64)
    return array[:, 0] + FIT_EPOCH_S, array[:, 1]


def decode(data: bytes) -> Decoded:
    messages, warnings = read_fit(data)
    file_ids = messages.get("file_id_mesgs") or []
    file_type = file_ids[0].get("type") if file_ids else None
    if file_type is not None and file_type != "activity":
        kind = file_type if isinstance(file_type, str) else f"type {file_type}"
        raise ImportRejected("not_an_activity", f"the FIT file is a {kind} file, not an activity")
    records = [r for r in messages.get("record_mesgs", []) if isinstance(r.get("timestamp"), int)]
    if not records:
        records = _records_from_lengths(messages)
    if not records:
        if file_type is None and not messages.get("session_mesgs"):
            raise ImportRejected("not_an_activity", "the FIT file holds no activity")
        raise ImportRejected("empty", "the FIT activity holds no timed records")

    shift = _clock_shift(messages, int(records[0]["timestamp"]))
    epoch = FIT_EPOCH_S + shift
    seconds = np.array([r["timestamp"] for r in records], dtype=np.float64) + epoch
    channels: dict[str, FloatArray] = {}

    def put(name: str, column: FloatArray | None) -> None:
        if column is not None:
            channels[name] = column

    put("heartrate", _column(records, "heart_rate"))
    power = _column(records, "power")
    if power is None:
        dev_key = _developer_power_key(messages)
        if dev_key is not None:
            power = _developer_column(records, dev_key)
    put("power", power)
    put("cadence", _column(records, "cadence"))
    put("speed", _first(records, "enhanced_speed", "speed"))
    put("distance", _column(records, "distance"))
    altitude = _first(records, "enhanced_altitude", "altitude")
    if altitude is not None:
        # -500 m is FIT's altitude offset: a stored 0, which devices without a fix write
        # (TomTom Runner 3). No land is that low (the Dead Sea's shore is at -430 m).
        altitude = np.where(altitude <= NO_FIX_ALTITUDE_M, np.nan, altitude)
    put("altitude", altitude)
    lat = _column(records, "position_lat")
    lng = _column(records, "position_long")
    if lat is not None and lng is not None:
        channels["lat"] = lat * _SEMICIRCLE_DEG
        channels["lng"] = lng * _SEMICIRCLE_DEG
    put("temperature", _column(records, "temperature"))
    put("grade", _column(records, "grade"))

    sessions = _unique_by_start(messages.get("session_mesgs", []))
    sport, file_sport = _sport_of(sessions, messages)
    legs = _legs(sessions)
    if legs and "distance" in channels:
        _continue_distance(seconds, channels["distance"], legs)
    laps = [
        RawLap(
            start_s=float(lap["start_time"]) + epoch,
            elapsed_s=float(lap.get("total_elapsed_time") or 0.0),
            calories=_number(lap.get("total_calories")),
            device=None if warnings else _totals.from_fit(lap),
        )
        for lap in _unique_by_start(messages.get("lap_mesgs", []))
        if isinstance(lap.get("start_time"), int)
    ]
    pool = _number(sessions[0].get("pool_length")) if len(sessions) == 1 else None
    lengths = _lengths(messages) if pool else []
    calories = [_number(s.get("total_calories")) for s in sessions]
    known = [c for c in calories if c is not None]
    return Decoded(
        format="fit",
        seconds=seconds,
        channels=channels,
        sport=sport,
        file_sport=file_sport,
        utc_offset_s=_utc_offset(messages),
        calories=sum(known) if known else None,
        device_name=_device_name(messages),
        laps=laps,
        device_metrics=_device_metrics(sessions),
        # A file read in part shows what was read: the session's totals are the whole
        # activity's, and beside a partial moving time they made a 129 km/h run (they
        # stay in device_metrics).
        device_totals=(_totals.from_fit(sessions[0])
                       if len(sessions) == 1 and not warnings else None),
        legs=legs,
        pool_length_m=pool if lengths else None,
        lengths=lengths,
        heartrate_samples=_heart_rates(messages),
        running=_timer_spans(messages, float(seconds.min()), float(seconds.max()), shift),
        # A file read in part: the figures describe the part read, so elapsed time does
        # not run to the session's end.
        end_s=None if warnings else _session_end(sessions, shift),
        warnings=_with_session_totals(warnings, sessions, float(seconds.max() - seconds.min())),
    )


def _with_session_totals(warnings: tuple[str, ...], sessions: Sequence[Mapping[str, Any]],
                         read_s: float) -> tuple[str, ...]:
    """A file read in part shows the part read (figures that agree with each other), and
    says what its own summary, written before the damage, records for the whole: the
    person then knows how much is missing (the Strava app's file: 5 of 59 minutes)."""
    if not warnings or len(sessions) != 1:
        return warnings
    elapsed = _number(sessions[0].get("total_elapsed_time"))
    distance = _number(sessions[0].get("total_distance"))
    if elapsed is None or elapsed <= read_s + 60:
        return warnings
    whole = f"{elapsed / 60:.0f} min" + (f" and {distance / 1000:.2f} km" if distance else "")
    note = (f"the file's own summary records {whole} in all; the figures shown are of the "
            f"{read_s / 60:.0f} min that could be read")
    return (f"{warnings[0].rstrip('.')}; {note}", *warnings[1:])
