"""Planned workouts as an iCalendar feed (RFC 5545) that calendar apps subscribe to.

Written by hand rather than with the ``icalendar`` package: a feed of all-day and timed
events is a few properties each, and the package costs 67-81 ms to import (measured, with
its dateutil/tzdata) on every process that serves the feed. The rules that matter are
kept here and tested by parsing the output back with ``icalendar``: CRLF line ends,
lines folded at 75 octets without splitting a UTF-8 character, TEXT escaping of
backslash, semicolon, comma and line breaks.

Pure: the UID of each event and the DTSTAMP come from the caller, so the same plan
renders the same bytes and calendar apps see an unchanged event as unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from pacekeeper.workouts._export_common import WorkoutExportError

_PRODID = "-//Pacekeeper//Training plan//EN"
_FOLD_AT = 75  # octets per line, CRLF not counted (RFC 5545 3.1)


def render_ics(events: Iterable[Mapping[str, Any]], *, dtstamp: datetime,
               calendar_name: str = "Training plan") -> str:
    """The events as a VCALENDAR (text with CRLF line ends, to be sent as UTF-8).

    Each event: ``uid``, ``date`` (YYYY-MM-DD), ``name``, ``sport``, ``description``,
    optional ``duration_s`` and ``time`` ("HH:MM" or "HH:MM:SS", local time with no zone,
    so a calendar shows it at that hour wherever the person is). Without ``time`` the
    event is all-day and the planned duration goes into its description.
    ``dtstamp`` is an aware datetime: when the plan was last changed.
    """
    if dtstamp.tzinfo is None:
        raise WorkoutExportError("dtstamp must be an aware datetime")
    stamp = dtstamp.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{_PRODID}", "CALSCALE:GREGORIAN",
             "METHOD:PUBLISH", f"NAME:{_escape(calendar_name)}",
             f"X-WR-CALNAME:{_escape(calendar_name)}",
             # Subscribers poll; an hour keeps a moved workout from lingering for a day.
             "REFRESH-INTERVAL;VALUE=DURATION:PT1H", "X-PUBLISHED-TTL:PT1H"]
    for event in events:
        lines += _event(event, stamp)
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)


def _event(event: Mapping[str, Any], stamp: str) -> list[str]:
    uid = event.get("uid")
    if not isinstance(uid, str) or not uid.strip():
        raise WorkoutExportError("every calendar event needs a uid")
    try:
        day = date.fromisoformat(str(event.get("date")))
    except ValueError:
        raise WorkoutExportError(f"event {uid}: date must be YYYY-MM-DD") from None
    duration = event.get("duration_s")
    if duration is not None and (not isinstance(duration, int | float)
                                 or isinstance(duration, bool) or duration < 0):
        raise WorkoutExportError(f"event {uid}: duration_s must be a number of seconds")
    seconds = round(duration) if duration is not None else None
    description = str(event.get("description") or "")
    lines = ["BEGIN:VEVENT", f"UID:{_escape(uid)}", f"DTSTAMP:{stamp}"]
    clock = event.get("time")
    if clock:
        try:
            start = datetime.combine(day, time.fromisoformat(str(clock)))
        except ValueError:
            raise WorkoutExportError(f"event {uid}: time must be HH:MM") from None
        lines.append(f"DTSTART:{start:%Y%m%dT%H%M%S}")
        if seconds:
            lines.append(f"DURATION:PT{seconds}S")
    else:
        lines += [f"DTSTART;VALUE=DATE:{day:%Y%m%d}",
                  f"DTEND;VALUE=DATE:{day + timedelta(days=1):%Y%m%d}"]
        if seconds:
            planned = f"Planned: {_span(seconds)}"
            description = f"{description}\n\n{planned}" if description else planned
    lines.append(f"SUMMARY:{_escape(str(event.get('name') or 'Workout'))}")
    if description:
        lines.append(f"DESCRIPTION:{_escape(description)}")
    if event.get("sport"):
        lines.append(f"CATEGORIES:{_escape(str(event['sport']))}")
    # A planned workout should not mark the person busy in their other calendars.
    lines += ["TRANSP:TRANSPARENT", "END:VEVENT"]
    return lines


def _span(seconds: int) -> str:
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def _escape(text: str) -> str:
    """A TEXT value (RFC 5545 3.3.11): \\ ; , escaped, line breaks as \\n, and the
    other control characters, which a content line cannot hold, dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out = []
    for c in text:
        if c in "\\;,":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif (c >= " " and c != "\x7f") or c == "\t":
            out.append(c)
    return "".join(out)


def _fold(line: str) -> str:
    """``line`` folded into pieces of at most 75 octets; each continuation starts with
    one space (which counts), and no UTF-8 character is split across pieces."""
    data = line.encode("utf-8")
    if len(data) <= _FOLD_AT:
        return line
    pieces: list[str] = []
    start, room = 0, _FOLD_AT
    while start < len(data):
        end = min(start + room, len(data))
        while end < len(data) and data[end] & 0xC0 == 0x80:  # a continuation byte
            end -= 1
        pieces.append(data[start:end].decode("utf-8"))
        start, room = end, _FOLD_AT - 1
    return "\r\n ".join(pieces)


__all__ = ["render_ics"]
