"""The plan as an iCalendar feed (RFC 5545): folding, escaping, CRLF, all-day and timed
events, and the output parsed back by the ``icalendar`` package (issue 32)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import icalendar
import pytest

from pacekeeper.workouts import WorkoutExportError, render_ics

_STAMP = datetime(2026, 12, 7, 7, 30, tzinfo=timezone(timedelta(hours=1)))

_EVENTS = [
    {"uid": "w-1@pacekeeper", "date": "2026-12-08", "name": "5 x 4 min VO2",
     "sport": "cycling", "description": "Hard; then easy, really\\done\nsecond line",
     "duration_s": 3300},
    {"uid": "w-2@pacekeeper", "date": "2026-12-09", "time": "06:30",
     "name": "Easy run", "sport": "running", "description": "", "duration_s": 2700},
]


def _lines(text: str) -> list[str]:
    assert text.endswith("\r\n")
    assert "\n" not in text.replace("\r\n", "")  # every line ends in CRLF, no bare LF
    return text.split("\r\n")[:-1]


def test_the_calendar_by_hand() -> None:
    assert _lines(render_ics(_EVENTS, dtstamp=_STAMP)) == [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Pacekeeper//Training plan//EN",
        "CALSCALE:GREGORIAN", "METHOD:PUBLISH", "NAME:Training plan",
        "X-WR-CALNAME:Training plan", "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
        "X-PUBLISHED-TTL:PT1H",
        "BEGIN:VEVENT", "UID:w-1@pacekeeper",
        "DTSTAMP:20261207T063000Z",  # 07:30 at +01:00, in UTC
        "DTSTART;VALUE=DATE:20261208", "DTEND;VALUE=DATE:20261209",
        "SUMMARY:5 x 4 min VO2",
        # 75 octets exactly: the longest line that is not folded
        "DESCRIPTION:Hard\\; then easy\\, really\\\\done\\nsecond line\\n\\nPlanned: 55 min",
        "CATEGORIES:cycling", "TRANSP:TRANSPARENT", "END:VEVENT",
        "BEGIN:VEVENT", "UID:w-2@pacekeeper", "DTSTAMP:20261207T063000Z",
        "DTSTART:20261209T063000", "DURATION:PT2700S", "SUMMARY:Easy run",
        "CATEGORIES:running", "TRANSP:TRANSPARENT", "END:VEVENT",
        "END:VCALENDAR"]


def test_icalendar_reads_it_back() -> None:
    calendar = icalendar.Calendar.from_ical(render_ics(_EVENTS, dtstamp=_STAMP))
    first, second = calendar.walk("VEVENT")
    assert str(first["UID"]) == "w-1@pacekeeper"
    assert first.decoded("DTSTART") == date(2026, 12, 8)
    assert first.decoded("DTEND") == date(2026, 12, 9)
    assert first.decoded("DTSTAMP") == datetime(2026, 12, 7, 6, 30, tzinfo=UTC)
    assert str(first["DESCRIPTION"]) == (
        "Hard; then easy, really\\done\nsecond line\n\nPlanned: 55 min")
    assert second.decoded("DTSTART") == datetime(2026, 12, 9, 6, 30)
    assert second.decoded("DURATION") == timedelta(minutes=45)


def test_long_lines_fold_at_75_octets_without_splitting_a_character() -> None:
    name = "€" * 40 + "Intervalle über die Schwelle, " * 3 + "ü€😀" * 10
    text = render_ics([{"uid": "u", "date": "2026-12-08", "name": name, "sport": "running",
                        "description": ""}], dtstamp=_STAMP)
    lines = _lines(text)
    summary = [i for i, line in enumerate(lines) if line.startswith("SUMMARY:")][0]
    folded = [lines[summary]]
    while lines[summary + len(folded)].startswith(" "):
        folded.append(lines[summary + len(folded)])
    assert len(folded) > 3
    assert all(len(line.encode()) <= 75 for line in lines)  # decode() above: no split
    assert all(len(line.encode()) >= 72 for line in folded[:-1])  # folded late, not early
    unfolded = folded[0] + "".join(line[1:] for line in folded[1:])
    assert unfolded == "SUMMARY:" + name.replace(",", "\\,")
    parsed = icalendar.Calendar.from_ical(text).walk("VEVENT")[0]
    assert str(parsed["SUMMARY"]) == name


def test_a_plan_with_no_workouts_is_an_empty_calendar() -> None:
    calendar = icalendar.Calendar.from_ical(render_ics([], dtstamp=_STAMP))
    assert calendar.walk("VEVENT") == []


@pytest.mark.parametrize(("event", "message"), [
    ({"uid": "", "date": "2026-12-08"}, "uid"),
    ({"uid": "a", "date": "8 Dec"}, "YYYY-MM-DD"),
    ({"uid": "a", "date": "2026-12-08", "time": "6.30 am"}, "HH:MM"),
    ({"uid": "a", "date": "2026-12-08", "duration_s": -5}, "duration_s"),
])
def test_bad_events_are_clear_errors(event: dict[str, object], message: str) -> None:
    with pytest.raises(WorkoutExportError, match=message):
        render_ics([event], dtstamp=_STAMP)


def test_dtstamp_must_carry_its_zone() -> None:
    with pytest.raises(WorkoutExportError, match="aware"):
        render_ics([], dtstamp=datetime(2026, 12, 7))  # noqa: DTZ001
