"""Activity import from the real files: outcomes, the device's own figures, cross-format
agreement, streams.

Rules under test (the importer issue's, in words):
- every real file parses or is rejected with the expected reason;
- our summary figures, computed from the streams by one method for every format, agree
  with the session figures the recording device wrote, within stated tolerances;
- the FIT, TCX and GPX exports of one ride agree with each other;
- streams are on a 1 Hz grid, positions in degrees, speed in m/s, NaN in pauses.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from garmin_fit_sdk import Encoder, Profile

from pacekeeper.fitness.importers import ImportRejected, ParsedActivity, parse_activity
from pacekeeper.fitness.models import Sport

from ._activity_files import activity, all_files, content, parsed

OK = "ok"
# Every file's expected outcome: OK with its sport, or the rejection reason.
EXPECTED: dict[str, tuple[str, Sport | None]] = {
    # Damaged on purpose. A bad file CRC with every message intact is accepted (the
    # decoder read all messages against their definitions; only the checksum differs).
    # A chained file whose later part is broken keeps its complete first file. A file
    # cut short of its declared size is imported as far as it reads, with a warning
    # (FIG-11; see _fit's docstring).
    "corrupt/activity-activity-filecrc.fit": (OK, Sport.RUN),
    "corrupt/activity-filecrc.fit": (OK, Sport.RUN),
    "corrupt/activity-settings-corruptheader.fit": (OK, Sport.RUN),
    "corrupt/activity-settings-nodata.fit": (OK, Sport.RUN),
    "corrupt/activity-unexpected-eof.fit": (OK, Sport.RUN),
    "corrupt/strava-android-app-201.10-b1218918.fit": (OK, Sport.RUN),  # 19 bytes short
    "fit/compressed-speed-distance.fit": (OK, Sport.RUN),  # Forerunner 70: compressed times
    "fit/2013-02-06-12-11-14.fit": (OK, Sport.RUN),  # Forerunner 110, smart recording
    "fit/2015-10-13-08-43-15.fit": (OK, Sport.RIDE),  # Edge 200, auto-pauses
    "fit/elemnt-bolt-no-application-id-inside-developer-data-id.fit": (OK, Sport.RIDE),
    "fit/2020-06-01-16-52-40.fit": (OK, Sport.RIDE),
    "fit/4801048867.fit": (OK, Sport.RIDE),
    "fit/6449921903_ACTIVITY.fit": (OK, Sport.RIDE),
    "fit/6471559601_ACTIVITY.fit": (OK, Sport.OTHER),  # multisport: run, transition, row
    "fit/MonitoringFile.fit": ("not_an_activity", None),
    "fit/Settings.fit": ("not_an_activity", None),
    "fit/activity-large-fenxi2-multisport.fit": (OK, Sport.OTHER),  # run, ..., ride
    "fit/activity-small-fenix2-run.fit": (OK, Sport.RUN),
    "fit/activity_poolswim_with_hr.fit": (OK, Sport.SWIM),
    "fit/coros-pace3-pool-swim.fit": (OK, Sport.SWIM),
    "fit/developer-types-sample.fit": (OK, Sport.RUN),
    "fit/garmin-edge-500-activity.fit": (OK, Sport.RIDE),
    "fit/garmin-fenix-5-bike.fit": (OK, Sport.RIDE),
    "fit/garmin-fenix-5-walk.fit": (OK, Sport.WALK),
    "fit/garmin-fr935-cr.fit": (OK, Sport.SWIM),
    "fit/null_compressed_speed_dist.fit": (OK, Sport.RIDE),
    "fit/sample-activity-indoor-trainer.fit": (OK, Sport.RIDE),
    "fit/sample-activity.fit": (OK, Sport.RIDE),
    "fit/triathlon_summary_first.fit": (OK, Sport.OTHER),  # swim, T1, bike, T2, run
    "gpx/4801048867_strava.gpx.gz": (OK, Sport.RIDE),  # Strava's <type>1</type>
    "gpx/activity_4801048867.gpx.gz": (OK, Sport.RIDE),  # Garmin's <type>cycling</type>
    "gpx/Mojstrovka.gpx": ("not_an_activity", None),  # every time is 1901-12-13 (placeholder)
    "gpx/cerknicko-jezero.gpx": (OK, Sport.OTHER),
    "gpx/cerknicko-without-times.gpx": ("not_an_activity", None),
    "gpx/gpx1.1_with_all_fields.gpx": ("not_an_activity", None),  # one timed point
    "gpx/korita-zbevnica.gpx": (OK, Sport.OTHER),  # untimed saved tracks skipped
    "gpx/route.gpx": ("not_an_activity", None),
    "gpx/track-with-empty-segment.gpx": (OK, Sport.OTHER),
    "gpx/unicode_with_bom.gpx": ("not_an_activity", None),  # a waypoint only
    "tcx/3173437224.tcx.gz": (OK, Sport.RUN),
    "tcx/activity_4801048867.tcx.gz": (OK, Sport.RIDE),
    "tcx/stravalib-sample.tcx": (OK, Sport.RIDE),
    "tcx/cross-country-skiing_activity_1.tcx.gz": (OK, Sport.OTHER),  # Sport="Other"
    "tcx/sup_activity_1.tcx": (OK, Sport.OTHER),  # stand-up paddling, Sport="Other"
}
ACTIVITIES = sorted(name for name, (outcome, _) in EXPECTED.items() if outcome == OK)
# A file read in part (truncated, with a warning) is not compared with its device's
# totals for the whole activity.
FIT_WITH_SESSION = [
    n for n in ACTIVITIES if n.endswith(".fit") and activity(n).device_metrics.get("total_timer_time")
    and not activity(n).warnings
]


def test_every_copied_file_has_an_expected_outcome() -> None:
    # The proof corpus of issue 27 has its own outcomes and figures: test_corpus.py.
    assert [f for f in all_files() if not f.startswith("corpus/")] == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_file_parses_or_is_rejected_as_expected(name: str) -> None:
    """Every real file parses (with its sport) or is rejected with the expected reason
    and a message that is safe to show (no path, no decoder internals)."""
    outcome, sport = EXPECTED[name]
    result = parsed(name)
    if outcome == OK:
        assert isinstance(result, ParsedActivity), result
        assert result.sport == sport
        assert result.sha256 == hashlib.sha256(content(name)).hexdigest()
        assert result.start.tzinfo is UTC or result.start.utcoffset() == timedelta(0)
        assert result.elapsed_s >= 1
    else:
        assert isinstance(result, ImportRejected), result
        assert result.reason == outcome
        assert "/" not in result.message.replace("n/a", "")
        assert "Error" not in result.message and "byte:" not in result.message


# Tolerances for our stream figures against the session message the device wrote.
DISTANCE_REL = 0.005  # 0.5 %
ELAPSED_ABS_S, ELAPSED_REL = 2.0, 0.005
HR_ABS_BPM = 1.0
POWER_REL = 0.01  # 1 %
MAX_ABS = 1.0  # max HR (bpm) and max power (W): the same samples, so within rounding
CADENCE_REL = 0.025  # 2.5 % (~2 rpm): time-weighted on the grid vs the device's sampling
ASCENT_ABS_M, ASCENT_REL = 10.0, 0.20  # elevation gain: method-dependent, looser
# Files where the device's own figure is not comparable, and why.
DEVICE_EXCEPTIONS = {
    ("fit/2020-06-01-16-52-40.fit", "elapsed"): (
        "the Edge 1000 wrote total_elapsed_time 113 s while its own records span 126 s "
        "and the session 138 s of wall clock"
    ),
    ("fit/elemnt-bolt-no-application-id-inside-developer-data-id.fit", "avg_power"): (
        "the ELEMNT's 182 W fits neither its records (186.1 W with dropouts as zero, 213.6 W "
        "without) nor its total_work (26,887 J over its 132 s timer: 203.7 W); NP matches"
    ),
    ("fit/elemnt-bolt-no-application-id-inside-developer-data-id.fit", "distance"): (
        "the device's 963.65 m runs 7.6 m past its last record (956.03 m): it counted to "
        "its timer stop, 1 s after the last record"
    ),
    ("fit/elemnt-bolt-no-application-id-inside-developer-data-id.fit", "max_power"): (
        "the device's 665 W is not in its records (their maximum is 662 W)"
    ),
    ("fit/elemnt-bolt-no-application-id-inside-developer-data-id.fit", "avg_cadence"): (
        "the device's 56 rpm is neither its records' non-zero mean (59.1, ours, Garmin's "
        "default) nor their mean with zeros (52.8)"
    ),
    ("fit/2013-02-06-12-11-14.fit", "moving"): (
        "a run without auto-pause: 391 s below 0.5 m/s (standing) and 102 s in long "
        "recording gaps count on the device's timer, not as moving time"
    ),
    ("fit/compressed-speed-distance.fit", "moving"): (
        "a Forerunner 70 run without auto-pause: 57 of its 754 records (270 s) read 0 m/s "
        "from the foot pod while the timer ran"
    ),
    ("fit/coros-pace3-pool-swim.fit", "avg_hr"): (
        "COROS averages a pool swim's heart rate over every second, rests included (its "
        "records' mean is 119.4, it wrote 119); we average over the lengths swum, as the "
        "Fenix 3 does (120.2 bpm here, 1.0 %)"
    ),
    ("fit/garmin-fr935-cr.fit", "avg_hr"): (
        "an apnea session: the device's 80 bpm average is not over its heart rate, whose "
        "mean is 85.3 bpm over the strap's beats (85.4 over its records)"
    ),
}


def _sdk_messages(name: str) -> dict[str, list[dict[str, object]]]:
    from garmin_fit_sdk import Decoder, Stream

    from ._activity_files import DATA
    messages, _ = Decoder(Stream.from_file(str(DATA / name))).read()
    return messages


def _device(name: str, key: str) -> float | None:
    return activity(name).device_metrics.get(key)


@pytest.mark.parametrize("name", FIT_WITH_SESSION)
def test_fit_figures_agree_with_the_devices_session(name: str) -> None:
    """FIG-7. Our figures computed from the streams (kept in ``computed`` where the device's
    own total is shown) agree with the FIT session message; the figures shown are the
    device's."""
    shown = activity(name)
    checked = []

    def device(key: str) -> float | None:
        value = _device(name, key)
        if value is not None:
            checked.append(key)
        return value

    class Ours:  # our figure: kept beside the device's, or shown where it has none
        def __getattr__(self, field: str) -> float | None:
            if field in shown.computed:
                return shown.computed[field]
            value: float | None = getattr(shown, field)
            return value

    a = Ours()
    if (d := device("total_distance")) is not None and a.distance_m is not None and (
            name, "distance") not in DEVICE_EXCEPTIONS:
        assert shown.distance_m == d
        assert a.distance_m == pytest.approx(d, rel=DISTANCE_REL, abs=1.0)
    if (d := device("total_elapsed_time")) is not None:
        assert shown.elapsed_s == d
        if (name, "elapsed") not in DEVICE_EXCEPTIONS:
            assert abs(a.elapsed_s - d) <= max(ELAPSED_ABS_S, ELAPSED_REL * d)
    if (d := device("total_timer_time")) is not None and a.moving_s is not None:
        # Moving time is at most the timer time (stops at lights count on the timer),
        # and for anything over ten minutes at least 95 % of it; a pool swim's is its
        # lengths' time, the rests not counted though the timer runs through them
        # (tested against the lengths in test_import_structure).
        assert shown.timer_s == d
        assert a.moving_s <= d * 1.01 + 2
        if d >= 600 and shown.swim is None and (name, "moving") not in DEVICE_EXCEPTIONS:
            assert a.moving_s >= 0.95 * d
    # A device without a strap writes 0 bpm; we hold no heart rate then.
    if (d := device("avg_heart_rate")) and (name, "avg_hr") not in DEVICE_EXCEPTIONS:
        assert shown.avg_heartrate == d
        assert a.avg_heartrate is not None
        assert abs(a.avg_heartrate - d) <= HR_ABS_BPM
    if d := device("max_heart_rate"):
        assert a.max_heartrate is not None and abs(a.max_heartrate - d) <= MAX_ABS
    if (d := device("avg_power")) is not None:
        assert shown.avg_watts == d
    if (d := device("avg_power")) is not None and (name, "avg_power") not in DEVICE_EXCEPTIONS:
        # Ours counts recorded zeros and a record without power (a dropout) as 0 W
        # (GoldenCheetah, the Wahoo ELEMNT): against the records read by the SDK. A
        # device may leave zeros out (a setting not in the file), and Garmin's Edges
        # leave dropouts out: the device's figure must match one of those readings.
        assert a.avg_watts is not None
        messages = _sdk_messages(name)
        # A record written as the timer starts (again) is no second of timer time: a
        # missing power there is no dropout (the Edge 1000's and 500's restarts).
        starts = {e["timestamp"] for e in messages.get("event_mesgs", [])
                  if e.get("event") == "timer" and e.get("event_type") == "start"}
        records = [r.get("power") for r in messages["record_mesgs"]
                   if r.get("power") is not None or r["timestamp"] not in starts]
        zero_filled = float(np.mean([p or 0 for p in records]))
        assert a.avg_watts == pytest.approx(zero_filled, rel=POWER_REL)
        present = [p for p in records if p is not None]
        readings = [zero_filled, float(np.mean(present)), float(np.mean([p for p in present if p]))]
        assert min(abs(r - d) for r in readings) <= POWER_REL * d
    if (d := device("max_power")) is not None and (name, "max_power") not in DEVICE_EXCEPTIONS:
        assert a.max_watts is not None and abs(a.max_watts - d) <= MAX_ABS
    if (d := device("avg_cadence")) and (name, "avg_cadence") not in DEVICE_EXCEPTIONS:
        assert shown.avg_cadence == pytest.approx(d + (_device(name, "avg_fractional_cadence") or 0))
        assert a.avg_cadence == pytest.approx(d, rel=CADENCE_REL)
    if (d := device("total_calories")) is not None:
        assert shown.calories == d  # passed through, not computed
    if (d := device("total_ascent")) is not None and a.elevation_gain_m is not None:
        assert shown.elevation_gain_m == d
        assert abs(a.elevation_gain_m - d) <= max(ASCENT_ABS_M, ASCENT_REL * d)
    assert checked, "no session figure to compare"


def test_device_metrics_keep_the_sessions_own_training_figures() -> None:
    """device_metrics holds what the device wrote, e.g. NP/TSS/IF/FTP on an Edge 800."""
    m = activity("fit/sample-activity-indoor-trainer.fit").device_metrics
    assert m["normalized_power"] == 228
    assert m["training_stress_score"] == pytest.approx(50.8)
    assert m["intensity_factor"] == pytest.approx(0.914)
    assert m["threshold_power"] == 250
    assert m["avg_power"] == 201
    assert not any(k.endswith(("_lat", "_long")) for k in m)


def test_fit_device_name_offset_and_laps() -> None:
    a = activity("fit/garmin-edge-500-activity.fit")
    assert a.device_name == "Garmin Edge 500"
    assert len(a.laps) == 9
    b = activity("fit/4801048867.fit")
    assert b.device_name == "Garmin Forerunner 935"
    assert b.utc_offset_s == 7200  # activity.local_timestamp - timestamp (CEST)
    assert len(b.laps) == 8
    assert sum(lap.distance_m or 0 for lap in b.laps) == pytest.approx(b.distance_m, rel=1e-3)
    assert activity("fit/null_compressed_speed_dist.fit").utc_offset_s is None  # local_timestamp 0


RIDE = {
    "fit": "fit/4801048867.fit",
    "tcx": "tcx/activity_4801048867.tcx.gz",
    "gpx": "gpx/activity_4801048867.gpx.gz",
    "strava_gpx": "gpx/4801048867_strava.gpx.gz",
}


@pytest.mark.parametrize("other", ["tcx", "gpx", "strava_gpx"])
def test_one_ride_in_every_format_agrees(other: str) -> None:
    """The FIT, the TCX and both GPX exports of ride 4801048867 agree: start to the
    second, elapsed within 1 s, distance within 0.1 % (TCX carries the device's distance)
    or 0.5 % (GPX: great-circle distance of the positions), average HR within 0.5 bpm,
    moving time within 1 %, elevation gain within 5 %. This ride carries no power."""
    fit = activity(RIDE["fit"])
    b = activity(RIDE[other])
    assert b.start == fit.start
    assert abs(b.elapsed_s - fit.elapsed_s) <= 1
    assert b.distance_m is not None and fit.distance_m is not None
    rel = 0.001 if other == "tcx" else 0.005
    assert b.distance_m == pytest.approx(fit.distance_m, rel=rel)
    assert b.avg_heartrate is not None and fit.avg_heartrate is not None
    assert abs(b.avg_heartrate - fit.avg_heartrate) <= 0.5
    assert b.max_heartrate == fit.max_heartrate
    assert b.moving_s == pytest.approx(fit.moving_s, rel=0.01)
    assert b.elevation_gain_m == pytest.approx(fit.elevation_gain_m, rel=0.05)
    assert fit.avg_watts is None and b.avg_watts is None


def test_tcx_laps_match_the_fit_laps() -> None:
    fit = activity(RIDE["fit"])
    tcx = activity(RIDE["tcx"])
    assert [lap.start for lap in tcx.laps] == [lap.start for lap in fit.laps]
    for a, b in zip(fit.laps, tcx.laps, strict=True):
        assert b.distance_m == pytest.approx(a.distance_m, rel=0.002, abs=2)
        assert b.calories == a.calories
    assert activity(RIDE["gpx"]).laps == ()  # GPX has no laps (segments are pauses)


@pytest.mark.parametrize("name", ACTIVITIES)
def test_streams_are_on_a_1hz_grid(name: str) -> None:
    a = activity(name)
    s = a.streams
    n = len(s)
    # The grid spans the samples; elapsed time (ours, or the device's shown) runs to the
    # session's end, which may follow the last sample (a final timer stop after it).
    assert n - 1 <= (a.computed.get("elapsed_s") or a.elapsed_s)
    assert np.array_equal(s.time, np.arange(n))
    for key in s.keys:
        values = s.get(key)
        assert values is not None and values.dtype == np.float64 and len(values) == n
    if s.has("lat"):
        lat, lng = s.get("lat"), s.get("lng")
        assert lat is not None and lng is not None
        assert np.nanmax(np.abs(lat)) <= 90 and np.nanmax(np.abs(lng)) <= 180
    if s.has("distance"):
        d = s.get("distance")
        assert d is not None
        kept = d[~np.isnan(d)]
        assert np.all(np.diff(kept) >= -0.01)  # cumulative


def test_fit_positions_are_degrees_and_speed_is_mps() -> None:
    fit = activity(RIDE["fit"])
    lat, lng, speed = fit.streams.get("lat"), fit.streams.get("lng"), fit.streams.get("speed")
    assert lat is not None and lng is not None and speed is not None
    assert lat[0] == pytest.approx(52.0973124, abs=1e-6)  # the GPX export's first point
    assert lng[0] == pytest.approx(6.6416648, abs=1e-6)
    assert np.nanmax(speed) == pytest.approx(fit.device_metrics["enhanced_max_speed"], abs=0.01)


def test_pauses_are_nan() -> None:
    """sample-activity.fit has a 385 s auto-pause: those seconds hold no sample."""
    a = activity("fit/sample-activity.fit")
    hr = a.streams.get("heartrate")
    assert hr is not None
    gaps = np.flatnonzero(np.isnan(hr))
    runs = np.split(gaps, np.flatnonzero(np.diff(gaps) > 1) + 1)
    assert max(len(r) for r in runs) >= 380
    for key in a.streams.keys:
        values = a.streams.get(key)
        assert values is not None
        longest = max(runs, key=len)
        assert np.all(np.isnan(values[longest]))


def _fit_with_developer_power(with_standard_power: bool) -> bytes:
    mesg = Profile["mesg_num"]
    dev_id = {"mesg_num": mesg["DEVELOPER_DATA_ID"], "developer_data_index": 0,
              "application_id": [7] * 16}
    desc = {"mesg_num": mesg["FIELD_DESCRIPTION"], "developer_data_index": 0,
            "field_definition_number": 0, "fit_base_type_id": 0x84, "field_name": "Power",
            "units": "Watts", "native_mesg_num": 20, "native_field_num": 7}
    enc = Encoder()
    enc.add_developer_field(0, dev_id, desc)
    t0 = datetime(2024, 5, 1, 8, 0, tzinfo=UTC)
    enc.write_mesg({"mesg_num": mesg["FILE_ID"], "type": "activity", "manufacturer": "development",
                    "product": 1, "time_created": t0, "serial_number": 1})
    enc.write_mesg(dev_id)
    enc.write_mesg(desc)
    for i in range(60):
        record = {"mesg_num": mesg["RECORD"], "timestamp": t0 + timedelta(seconds=i),
                  "heart_rate": 150, "speed": 3.0, "distance": 3.0 * i,
                  "developer_fields": {0: 200 + i}}
        if with_standard_power:
            record["power"] = 100
        enc.write_mesg(record)
    return enc.close()


def test_running_power_in_a_developer_field_becomes_the_power_channel() -> None:
    """Developer-field power (natively mapped to record.power) fills the power channel
    when the standard power field is absent; the standard field wins when present."""
    a = parse_activity(_fit_with_developer_power(with_standard_power=False))
    assert a.avg_watts == pytest.approx(229.5)
    assert a.max_watts == 259
    b = parse_activity(_fit_with_developer_power(with_standard_power=True))
    assert b.avg_watts == 100
    # The Stryd sample writes standard power; its developer "Form Power" is not power.
    stryd = activity("fit/developer-types-sample.fit")
    assert stryd.computed["avg_watts"] == pytest.approx(218.7, abs=0.1)


def test_chained_fit_with_a_damaged_copy_is_read_once() -> None:
    """activity-activity-filecrc.fit is two chained copies, the second with a bad CRC:
    the first copy alone is imported (no doubled laps)."""
    a = activity("corrupt/activity-activity-filecrc.fit")
    b = activity("corrupt/activity-filecrc.fit")
    assert len(a.laps) == 1
    assert a.distance_m == b.distance_m
    assert len(a.streams) == len(b.streams)
