"""Multisport files, pool swims and the device's own totals (issue 27, items 1, 2, 8).

Expected values come from the files' own session, lap and length messages, read here
with Garmin's FIT SDK (not our decoder), or from small FIT files built here whose answer
is known by construction. Each test failed before its fix:
- multisport: the activity's distance was the last leg's (Fenix 2: 28,927 m of 69,831 m);
- pool swims: each length's end sample fell into the next (resting) lap, moving time came
  from a speed that does not exist in a pool, heart rate of ``hr`` messages was smoothed
  over the sparse records, elapsed time lost the seconds before the first record;
- device totals: our stream figures were shown where the device wrote its own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from garmin_fit_sdk import Decoder, Encoder, Profile, Stream

from pacekeeper.fitness.importers import ParsedActivity, parse_activity
from pacekeeper.fitness.models import Sport
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.test_mcp_endpoint import _session

from ._activity_files import DATA, activity

MULTISPORT = ["fit/activity-large-fenxi2-multisport.fit", "fit/triathlon_summary_first.fit",
              "fit/6471559601_ACTIVITY.fit"]
# The Forerunner 910XT's records carry distance but no time: its lengths carry the time
# (refused as ``empty`` before).
POOL = ["fit/activity_poolswim_with_hr.fit", "fit/coros-pace3-pool-swim.fit",
        "corpus/sports-lib/fr910xt-pool-7617306288.fit"]
DEVICE_REL = 0.005  # device totals: 0.5 %
DERIVED_REL = 0.01  # figures derived from samples: 1 %
MESG = Profile["mesg_num"]


def _messages(name: str) -> dict[str, Any]:
    messages, errors = Decoder(Stream.from_file(str(DATA / name))).read()
    assert not errors
    return messages


def _s(moment: datetime) -> float:
    return moment.timestamp()


# -------------------------------------------------------------------------- multisport

@pytest.mark.parametrize("name", MULTISPORT)
def test_a_multisport_file_is_its_legs_and_their_total(name: str) -> None:
    """FIG-1 (item 1). Each session is a leg with its own sport, times and figures; the
    activity's distance is the sum of the legs' (the device's session totals), and our
    own per-leg distance from the leg's samples agrees with the device's within 1 %."""
    sessions = sorted(_messages(name)["session_mesgs"], key=lambda s: s["start_time"])
    a = activity(name)
    assert len(a.legs) == len(sessions)
    device_total = sum(s["total_distance"] for s in sessions)
    assert a.distance_m == pytest.approx(device_total, rel=1e-9)
    assert sum(leg.distance_m or 0 for leg in a.legs) == pytest.approx(device_total, rel=1e-9)
    # Ours, from the samples: the whole and each leg (short transitions: within 2 m).
    assert a.computed["distance_m"] == pytest.approx(device_total, rel=DEVICE_REL)
    for leg, session in zip(a.legs, sessions, strict=True):
        assert leg.transition == (session["sport"] == "transition")
        assert (leg.file_sport or "").split("/")[0] == session["sport"]
        assert leg.elapsed_s == session["total_elapsed_time"]
        assert leg.timer_s == session["total_timer_time"]
        assert leg.distance_m == session["total_distance"]
        assert leg.computed["distance_m"] == pytest.approx(
            session["total_distance"], rel=DERIVED_REL, abs=2.0)
        assert leg.computed["elapsed_s"] == pytest.approx(
            session["total_elapsed_time"], rel=DEVICE_REL, abs=2.0)
        if (hr := session.get("avg_heart_rate")) is not None:
            assert leg.avg_heartrate == hr
            assert leg.computed["avg_heartrate"] == pytest.approx(hr, abs=1.0)
        if (watts := session.get("avg_power")) is not None:
            assert leg.avg_watts == watts
            assert leg.computed["avg_watts"] == pytest.approx(watts, rel=DERIVED_REL)
    # The activity's elapsed time is the legs' together; its average heart rate their
    # timer-weighted mean (a 70 s transition counts less than a 26-minute ride).
    assert a.elapsed_s == pytest.approx(sum(s["total_elapsed_time"] for s in sessions))
    with_hr = [s for s in sessions if s.get("avg_heart_rate")]
    if with_hr:
        weighted = (sum(s["avg_heart_rate"] * s["total_timer_time"] for s in with_hr)
                    / sum(s["total_timer_time"] for s in with_hr))
        assert a.avg_heartrate == pytest.approx(weighted)
        assert a.max_heartrate == max(s["max_heart_rate"] for s in with_hr)


def test_the_fenix2_multisport_is_no_longer_its_last_leg() -> None:
    """FIG-1. The audit's file: 28,927 m shown (the last leg's), 69,831 m the legs' sum."""
    a = activity("fit/activity-large-fenxi2-multisport.fit")
    assert a.distance_m == pytest.approx(69_831.36, abs=0.01)
    assert [leg.file_sport for leg in a.legs] == [
        "generic", "transition", "running", "transition", "running", "transition", "cycling"]
    assert [leg.sport for leg in a.legs][-1] == Sport.RIDE
    # The stream's distance is one cumulative series: it never falls at a leg's start
    # (the device's own values step back by 0.01 m twice in the run).
    distance = a.streams.get("distance")
    assert distance is not None
    kept = distance[~np.isnan(distance)]
    assert np.all(np.diff(kept) >= -0.011)


def _multisport_fit() -> bytes:
    """A run of 100 s at 3 m/s, then a ride of 100 s at 8 m/s whose distance restarts at
    0 (as the Fenix 2 writes it); the sessions total 300 m and 800 m."""
    t0 = datetime(2026, 6, 7, 8, 0, tzinfo=UTC)
    enc = Encoder()
    enc.write_mesg({"mesg_num": MESG["FILE_ID"], "type": "activity",
                    "manufacturer": "development", "product": 1, "time_created": t0,
                    "serial_number": 7})
    for i in range(200):
        run = i < 100
        enc.write_mesg({"mesg_num": MESG["RECORD"], "timestamp": t0 + timedelta(seconds=i),
                        "distance": 3.0 * i if run else 8.0 * (i - 100),
                        "speed": 3.0 if run else 8.0, "heart_rate": 150 if run else 140})
    for k, (sport, start, distance, hr) in enumerate(
            [("running", 0, 300.0, 150), ("cycling", 100, 800.0, 140)]):
        enc.write_mesg({"mesg_num": MESG["SESSION"], "message_index": k,
                        "timestamp": t0 + timedelta(seconds=start + 100),
                        "start_time": t0 + timedelta(seconds=start), "sport": sport,
                        "total_elapsed_time": 100.0, "total_timer_time": 100.0,
                        "total_distance": distance, "avg_heart_rate": hr})
    return enc.close()


def test_a_leg_that_restarts_its_distance_is_added_on() -> None:
    """FIG-1, synthetic, exact: the legs' device totals add up to 1,100 m; from the samples the
    run covers 297 m (to its last sample at 99 s) and the ride 792 m, 1,089 m together
    (the last value alone, the old answer, was the ride's 792 m)."""
    a = parse_activity(_multisport_fit())
    assert a.distance_m == 1100.0
    assert a.computed["distance_m"] == pytest.approx(1089.0)
    assert [leg.computed["distance_m"] for leg in a.legs] == pytest.approx([297.0, 792.0])
    assert [leg.sport for leg in a.legs] == [Sport.RUN, Sport.RIDE]
    assert [leg.avg_heartrate for leg in a.legs] == [150, 140]
    assert a.avg_heartrate == pytest.approx(145.0)  # the legs' timer-weighted mean
    assert a.elapsed_s == 200.0


# --------------------------------------------------------------------------- pool swims

def _lengths_by_lap(messages: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The device's own assignment: each lap's lengths by first_length_index/num_lengths
    (COROS writes rest laps with no lengths)."""
    lengths = messages["length_mesgs"]
    out = []
    for lap in messages["lap_mesgs"]:
        first, count = lap.get("first_length_index") or 0, lap.get("num_lengths") or 0
        out.append([x for x in lengths[first:first + count] if x["length_type"] == "active"])
    return out


@pytest.mark.parametrize("name", POOL)
def test_pool_swim_laps_are_the_devices_lengths(name: str) -> None:
    """FIG-2 (item 2). Every lap's distance is the device's (rest laps 0 m), and our own, from
    the lengths, agrees exactly: a length belongs to the lap its middle is in (before,
    its end sample fell into the next, resting lap: 275 / 25 / 0 for 300 / 0 / 100)."""
    messages = _messages(name)
    pool = messages["session_mesgs"][0]["pool_length"]
    a = activity(name)
    assert len(a.laps) == len(messages["lap_mesgs"])
    for lap, device, lengths in zip(a.laps, messages["lap_mesgs"], _lengths_by_lap(messages),
                                    strict=True):
        assert lap.distance_m == device["total_distance"]
        assert lap.computed["distance_m"] == pytest.approx(len(lengths) * pool)
        assert lap.computed["distance_m"] == pytest.approx(device["total_distance"])
        assert lap.swim is not None
        assert lap.swim["lengths"] == len(lengths)
        assert lap.swim["rest"] == (not lengths)
        assert lap.moving_s == pytest.approx(sum(x["total_timer_time"] for x in lengths))


@pytest.mark.parametrize("name", POOL)
def test_pool_swim_figures_come_from_its_lengths(name: str) -> None:
    """FIG-2 (item 2). Distance, moving time (the active lengths' time), elapsed, pace per
    100 m, strokes, SWOLF and rests from the device's lengths and laps."""
    messages = _messages(name)
    session = messages["session_mesgs"][0]
    active = [x for x in messages["length_mesgs"] if x["length_type"] == "active"]
    swum = sum(x["total_timer_time"] for x in active)
    a = activity(name)
    assert a.sport == Sport.SWIM
    assert a.distance_m == session["total_distance"]
    assert a.elapsed_s == session["total_elapsed_time"]
    assert a.timer_s == session["total_timer_time"]
    assert a.moving_s == pytest.approx(swum)
    assert a.avg_speed_mps == pytest.approx(session["total_distance"] / swum)
    distance = a.streams.channels.get("distance")
    if distance is not None:  # the chart's distance ends where the device's does
        assert np.nanmax(distance) == pytest.approx(session["total_distance"], rel=DEVICE_REL)
    s = a.swim
    assert s is not None
    assert s.pool_length_m == session["pool_length"]
    assert s.active_lengths == len(active)
    assert s.distance_m == pytest.approx(len(active) * session["pool_length"])
    assert s.distance_m == pytest.approx(session["total_distance"])
    if "num_active_lengths" in session:
        assert s.active_lengths == session["num_active_lengths"]
    assert s.pace_s_per_100m == pytest.approx(swum / s.distance_m * 100, abs=0.05)
    stroked = [x for x in active if x.get("total_strokes")]
    assert s.strokes == sum(x["total_strokes"] for x in stroked)
    if "total_strokes" in session:
        assert s.strokes == session["total_strokes"]
    swolf = np.mean([x["total_timer_time"] + x["total_strokes"] for x in stroked])
    assert s.swolf == pytest.approx(swolf, abs=0.05)
    rests = [lap for lap in messages["lap_mesgs"] if not lap["total_distance"]]
    assert len(s.rest) == len(rests)
    assert s.rest_s == pytest.approx(sum(lap["total_elapsed_time"] for lap in rests), abs=0.1)


def test_pool_swim_heart_rate_is_over_the_lengths_swum() -> None:
    """FIG-2 (item 2). The Fenix 3 averages a swim's heart rate over its lengths (103); ours
    from the strap's ``hr`` messages over the same seconds agrees within 1 bpm (over
    every second, rests included, it would be 96.9)."""
    messages = _messages("fit/activity_poolswim_with_hr.fit")
    session = messages["session_mesgs"][0]
    a = activity("fit/activity_poolswim_with_hr.fit")
    assert a.avg_heartrate == session["avg_heart_rate"]
    assert a.computed["avg_heartrate"] == pytest.approx(session["avg_heart_rate"], abs=1.0)
    assert a.max_heartrate == session["max_heart_rate"]


def _pool_swim_fit(*, with_hr: bool = True) -> bytes:
    """A 25 m pool: 4 lengths of 30 s (12 strokes each), 60 s of rest, 2 lengths of 40 s
    (20 strokes). Records only at each length's end (as watches write a pool swim);
    heart rate only in ``hr`` messages, one beat a second: 150 bpm while swimming,
    100 bpm at rest. Answers: 150 m, 200 s swum, elapsed 260 s, laps 100 / 0 / 50 m,
    pace 133.3 s per 100 m, SWOLF (4 x 42 + 2 x 60) / 6 = 48, average heart rate over
    the lengths 150 bpm."""
    t0 = datetime(2026, 6, 8, 7, 0, tzinfo=UTC)
    enc = Encoder()
    enc.write_mesg({"mesg_num": MESG["FILE_ID"], "type": "activity",
                    "manufacturer": "development", "product": 1, "time_created": t0,
                    "serial_number": 8})
    plan = [(0, 30, 12, True), (30, 30, 12, True), (60, 30, 12, True), (90, 30, 12, True),
            (120, 60, 0, False), (180, 40, 20, True), (220, 40, 20, True)]
    distance = 0.0
    for start, length, _, active in plan:
        if active:
            distance += 25.0
            enc.write_mesg({"mesg_num": MESG["RECORD"],
                            "timestamp": t0 + timedelta(seconds=start + length),
                            "distance": distance, "speed": 25.0 / length})
    if with_hr:  # one anchor message, then deltas: 8 beats per message
        beats = [(float(t), 150 if t < 120 or t >= 180 else 100) for t in range(0, 261)]
        enc.write_mesg({"mesg_num": MESG["HR"], "timestamp": t0, "fractional_timestamp": 0.0,
                        "event_timestamp": [0.0], "filtered_bpm": [150]})
        for k in range(1, len(beats), 8):
            chunk = beats[k:k + 8]
            enc.write_mesg({"mesg_num": MESG["HR"],
                            "event_timestamp": [t for t, _ in chunk],
                            "filtered_bpm": [b for _, b in chunk]})
    for i, (start, length, strokes, active) in enumerate(plan):
        enc.write_mesg({"mesg_num": MESG["LENGTH"], "message_index": i,
                        "timestamp": t0 + timedelta(seconds=start + length),
                        "start_time": t0 + timedelta(seconds=start),
                        "total_elapsed_time": float(length), "total_timer_time": float(length),
                        "length_type": "active" if active else "idle",
                        "total_strokes": strokes, "swim_stroke": "freestyle"})
    for i, (start, length, meters, first, count) in enumerate(
            [(0, 120, 100.0, 0, 4), (120, 60, 0.0, 4, 1), (180, 80, 50.0, 5, 2)]):
        enc.write_mesg({"mesg_num": MESG["LAP"], "message_index": i,
                        "timestamp": t0 + timedelta(seconds=start + length),
                        "start_time": t0 + timedelta(seconds=start),
                        "total_elapsed_time": float(length), "total_timer_time": float(length),
                        "total_distance": meters, "first_length_index": first,
                        "num_lengths": count, "sport": "swimming", "sub_sport": "lap_swimming"})
    enc.write_mesg({"mesg_num": MESG["SESSION"], "timestamp": t0 + timedelta(seconds=260),
                    "start_time": t0, "sport": "swimming", "sub_sport": "lap_swimming",
                    "total_elapsed_time": 260.0, "total_timer_time": 260.0,
                    "total_distance": 150.0, "pool_length": 25.0, "num_active_lengths": 6})
    return enc.close()


def test_a_pool_swim_with_a_known_answer() -> None:
    """FIG-2, synthetic, exact (the answers in ``_pool_swim_fit``'s docstring)."""
    a = parse_activity(_pool_swim_fit())
    assert a.distance_m == 150.0
    assert a.elapsed_s == 260.0  # the session's: the first record is one length in
    assert a.moving_s == 200.0
    assert [lap.distance_m for lap in a.laps] == [100.0, 0.0, 50.0]
    assert [lap.computed["distance_m"] for lap in a.laps] == [100.0, 0.0, 50.0]
    assert [lap.moving_s for lap in a.laps] == [120.0, 0.0, 80.0]
    s = a.swim
    assert s is not None
    assert (s.active_lengths, s.strokes, s.swolf) == (6, 88, 48.0)
    assert s.pace_s_per_100m == pytest.approx(133.3)
    # The rest from the activity's start (its first sample, one length in: second 0 of
    # the streams) and its length.
    assert s.rest == ((90.0, 60.0),) and s.rest_s == 60.0
    # Heart rate of the hr messages, second by second over the lengths swum; the laps'
    # own: 150 while swimming, 100 at rest.
    assert a.avg_heartrate == pytest.approx(150.0)
    assert [lap.avg_heartrate for lap in a.laps] == pytest.approx([150.0, 100.0, 150.0])


def test_heart_rate_of_hr_messages_is_the_strap_series_not_the_records_average() -> None:
    """Between records 30-60 s apart, the SDK's merge gives each record the mean of its
    interval and the grid interpolates between them: the rest's 100 bpm smears into
    the lengths around it. The strap's own series keeps each second."""
    a = parse_activity(_pool_swim_fit())
    hr = a.streams.get("heartrate")
    assert hr is not None
    start = round(_s(a.laps[1].start) - _s(a.start))  # the rest, on the grid
    assert np.nanmean(hr[start:start + 60]) == pytest.approx(100.0)


def test_hr_messages_without_a_fractional_timestamp_do_not_refuse_the_file() -> None:
    """``fractional_timestamp`` is optional in an ``hr`` message; the SDK's own merge
    raised without it and the whole file was refused as damaged. Beats every second at
    150 bpm: the activity's heart rate is 150."""
    t0 = datetime(2026, 6, 9, 7, 0, tzinfo=UTC)
    enc = Encoder()
    enc.write_mesg({"mesg_num": MESG["FILE_ID"], "type": "activity",
                    "manufacturer": "development", "product": 1, "time_created": t0,
                    "serial_number": 9})
    for i in range(0, 61, 5):
        enc.write_mesg({"mesg_num": MESG["RECORD"], "timestamp": t0 + timedelta(seconds=i),
                        "distance": float(i)})
    enc.write_mesg({"mesg_num": MESG["HR"], "timestamp": t0, "event_timestamp": [0.0],
                    "filtered_bpm": [150]})
    for k in range(1, 61, 6):
        enc.write_mesg({"mesg_num": MESG["HR"], "event_timestamp": [float(t) for t in
                                                                     range(k, k + 6)],
                        "filtered_bpm": [150] * 6})
    a = parse_activity(enc.close())
    assert a.avg_heartrate == pytest.approx(150.0)
    assert a.max_heartrate == 150.0


# ------------------------------------------------------------------------ device totals

@pytest.mark.parametrize("name", ["fit/4801048867.fit", "fit/garmin-edge-500-activity.fit"])
def test_laps_show_the_devices_lap_totals_with_ours_beside(name: str) -> None:
    """FIG-7 (item 8). A lap's distance, timer time and heart rate are the lap
    message's; ours from the streams stays beside and agrees (distance 0.5 %)."""
    laps = _messages(name)["lap_mesgs"]
    a = activity(name)
    assert len(a.laps) == len(laps)
    for lap, device in zip(a.laps, laps, strict=True):
        assert lap.distance_m == device["total_distance"]
        assert lap.timer_s == device["total_timer_time"]
        assert lap.computed["distance_m"] == pytest.approx(
            device["total_distance"], rel=DEVICE_REL, abs=5.0)
        if device.get("avg_heart_rate"):
            assert lap.avg_heartrate == device["avg_heart_rate"]


def _shown_figures(a: ParsedActivity) -> dict[str, float | None]:
    return {"distance_m": a.distance_m, "elapsed_s": a.elapsed_s, "moving_s": a.moving_s}


def test_a_file_without_device_totals_shows_ours() -> None:
    """FIG-7. No session totals (a GPX): nothing to prefer, ours is
    shown and nothing is kept beside."""
    gpx = activity("gpx/activity_4801048867.gpx.gz")
    assert gpx.computed == {} and gpx.timer_s is None
    assert all(v is not None for v in _shown_figures(gpx).values())


# ------------------------------------------------------------------- one distance, HTTP

async def test_one_distance_everywhere_and_the_structure_over_http(harness: Harness) -> None:
    """FIG-7, FIG-1, FIG-2. The activity, its metrics, its legs and its swim give one
    distance, over HTTP and the MCP tool: the device's
    (2,606.0 against 2,583.18 in the metrics before, on a pool swim)."""
    body = await harness.register("structure@example.com")
    harness.client.cookies.clear()
    auth = {"authorization": f"Bearer {body['token']}"}
    mcp = await _session(harness.client, auth)
    for name, total in (("fit/activity_poolswim_with_hr.fit", 1700.0),
                        ("fit/activity-large-fenxi2-multisport.fit", 69_831.36)):
        path = DATA / name
        r = await harness.client.post("/api/activities/import", headers=auth,
                                      files={"file": (Path(name).name, path.read_bytes())})
        assert r.status_code == 201, r.text
        activity_id = r.json()["activity"]["id"]
        got = (await harness.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
        assert got["distance_m"] == pytest.approx(total, abs=0.05)
        assert got["metrics"]["distance_m"] == pytest.approx(total, abs=0.05)
        assert "distance_m" in got["computed"]
        # The MCP tool answers the same, to the metre (its figures are rounded to what
        # the measurement supports; it validates against its output schema).
        call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                "params": {"name": "get_activity", "arguments": {"activity_id": activity_id}}}
        answer = (await harness.client.post("/mcp", headers=mcp, json=call)).json()["result"]
        assert answer.get("isError") is not True, answer
        tool = answer["structuredContent"]
        assert tool["distance_m"] == round(got["distance_m"])
        assert tool["metrics"]["distance_m"] == round(got["metrics"]["distance_m"])
        for shown in (got, tool):
            if "legs" in shown:
                rounding = 0.5 * len(shown["legs"]) if shown is tool else 1e-6 * total
                assert sum(leg["distance_m"] for leg in shown["legs"]) == pytest.approx(
                    total, abs=rounding)
                assert len(shown["legs"]) == 7
                assert shown["name"].endswith(" multisport")  # not "Morning other"
            else:
                assert shown["swim"]["distance_m"] == pytest.approx(total)
                assert shown["swim"]["active_lengths"] == 68
                assert shown["laps"][1]["swim"]["rest"] is True
