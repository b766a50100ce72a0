"""One activity's metrics from its streams: the figures stored per activity."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

import numpy as np

from ..models import Sport
from ..streams import StreamSet
from . import _curves, _heart, _power, _running
from ._types import FloatArray, finite_or_none


@dataclass(frozen=True, slots=True)
class AthleteSnapshot:
    """The athlete's settings valid on the activity's date; every field optional."""

    ftp_watts: float | None = None
    lthr_bpm: float | None = None
    max_hr_bpm: float | None = None
    resting_hr_bpm: float | None = None
    threshold_pace_s_per_km: float | None = None
    threshold_pace_s_per_100m: float | None = None  # a swimmer's CSS
    weight_kg: float | None = None
    sex: Literal["M", "F"] | None = None
    birth_year: int | None = None


@dataclass(frozen=True, slots=True)
class ActivityMetrics:
    """Every per-activity figure that applies; None where its input is missing.

    Times in seconds, power in W, HR in bpm, speed in m/s. Curves are the mean-maximal
    values at ``curve_durations`` (the ``STANDARD_DURATIONS`` no longer than the
    activity); zone times list seconds per zone from zone 1 up, with the zone lower
    bounds in ``*_zone_bounds``.
    """

    sport: str
    duration_s: int
    recorded_s: int  # seconds with any sample
    distance_m: float | None = None
    avg_power: float | None = None
    max_power: float | None = None
    normalized_power: float | None = None
    intensity_factor: float | None = None
    tss: float | None = None
    variability_index: float | None = None
    efficiency_factor: float | None = None
    aerobic_decoupling_pct: float | None = None
    work_kj: float | None = None
    avg_hr: float | None = None
    max_hr: float | None = None
    trimp: float | None = None
    edwards_trimp: float | None = None
    hr_tss: float | None = None
    avg_speed: float | None = None
    max_speed: float | None = None
    normalized_graded_speed: float | None = None
    rtss: float | None = None
    stss: float | None = None  # swim TSS (``analyze`` fills it: it needs the moving time)
    power_zone_bounds: list[float] | None = None
    time_in_power_zones: list[float] | None = None
    hr_zone_model: str | None = None
    hr_zone_bounds: list[float] | None = None
    time_in_hr_zones: list[float] | None = None
    pace_zone_bounds: list[float] | None = None
    time_in_pace_zones: list[float] | None = None
    curve_durations: list[int] | None = None
    power_curve: list[float | None] | None = None
    hr_curve: list[float | None] | None = None
    speed_curve: list[float | None] | None = None
    best_efforts: dict[str, float | None] | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (floats, ints, None, lists, dicts)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _mean(values: FloatArray) -> float | None:
    ok = values[~np.isnan(values)]
    return float(ok.mean()) if len(ok) else None


def _max(values: FloatArray) -> float | None:
    ok = values[~np.isnan(values)]
    return float(ok.max()) if len(ok) else None


def _curve(values: FloatArray, durations: list[int], nan: _curves.NanPolicy) -> list[float | None]:
    return [finite_or_none(v) for v in _curves.mean_max(values, durations, nan=nan)]


def _floats(values: FloatArray) -> list[float]:
    return [float(v) for v in values]


def analyze_activity(streams: StreamSet, sport: Sport, athlete: AthleteSnapshot) -> ActivityMetrics:
    """Compute every metric that applies to this activity (see ``ActivityMetrics``).

    Power metrics need a power channel (TSS and IF also an FTP); TSS takes as duration
    the seconds with a power sample. HR metrics need heart rate (TRIMP and hrTSS also
    resting and maximum HR, hrTSS LTHR). Runs get grade-adjusted speed (Minetti; grade
    from the grade channel, else from altitude over distance), NGP-based rTSS with a
    threshold pace, pace zones and best efforts. Mean-max curves: power and speed with
    NaN as zero, heart rate with NaN windows excluded (``_curves``).
    """
    n = len(streams)
    present = np.zeros(n, dtype=bool)
    for values in streams.channels.values():
        present |= ~np.isnan(values)
    durations = [d for d in _curves.STANDARD_DURATIONS if d <= n]
    m: dict[str, Any] = {
        "sport": str(sport),
        "duration_s": n,
        "recorded_s": int(present.sum()),
        "curve_durations": durations,
    }
    is_run = sport in (Sport.RUN, Sport.WALK, Sport.HIKE)

    distance = streams.get("distance")
    if distance is not None and streams.has("distance"):
        # The cumulative distance counts from 0 at the start, as the device's does (the
        # first sample's value is ground already covered): its largest value, the same
        # figure the import shows (max - min dropped the first sample's 6.6 m).
        m["distance_m"] = float(np.nanmax(distance))

    power = streams.get("power") if streams.has("power") else None
    hr = streams.get("heartrate") if streams.has("heartrate") else None
    speed = streams.get("speed") if streams.has("speed") else None

    if power is not None:
        recorded = power[~np.isnan(power)]
        m["avg_power"] = float(recorded.mean())
        m["max_power"] = float(recorded.max())
        m["work_kj"] = float(recorded.sum() / 1000.0)
        np_w = _power.normalized_power(power)
        m["normalized_power"] = np_w
        if np_w is not None:
            m["variability_index"] = _power.variability_index(np_w, m["avg_power"])
            if hr is not None and (avg := _mean(hr)):
                m["efficiency_factor"] = _power.efficiency_factor(np_w, avg)
        if athlete.ftp_watts:
            power_bounds = _power.power_zones(athlete.ftp_watts)
            m["power_zone_bounds"] = _floats(power_bounds)
            m["time_in_power_zones"] = _floats(_power.time_in_zones(power, power_bounds))
            if np_w is not None:
                m["intensity_factor"] = _power.intensity_factor(np_w, athlete.ftp_watts)
                # Coggan: the whole power series, not the seconds the 30 s windows
                # end on (recorded - 29, what a Garmin Edge writes: -0.8 % an hour).
                m["tss"] = _power.tss(np_w, athlete.ftp_watts, float(len(recorded)))
        if hr is not None:
            m["aerobic_decoupling_pct"] = _power.aerobic_decoupling(power, hr)
        m["power_curve"] = _curve(power, durations, "zero")

    if hr is not None:
        m["avg_hr"] = _mean(hr)
        m["max_hr"] = _max(hr)
        rest, top, lthr = athlete.resting_hr_bpm, athlete.max_hr_bpm, athlete.lthr_bpm
        if rest is not None and top is not None:
            m["trimp"] = _heart.banister_trimp(hr, rest, top, athlete.sex)
            if lthr is not None:
                m["hr_tss"] = _heart.hr_tss(hr, lthr, rest, top, athlete.sex)
        if top is not None:
            m["edwards_trimp"] = _heart.edwards_trimp(hr, top)
        bounds: FloatArray | None = None
        if lthr is not None:
            # Friel's zones mean the same in each sport; a run's sit higher in % LTHR.
            fractions = (_heart.FRIEL_LTHR_RUN_ZONES if sport is Sport.RUN
                         else _heart.FRIEL_LTHR_ZONES)
            m["hr_zone_model"], bounds = "friel_lthr", _heart.lthr_zones(lthr, fractions)
        elif top is not None and rest is not None:
            m["hr_zone_model"], bounds = "karvonen", _heart.karvonen_zones(rest, top)
        elif top is not None:
            m["hr_zone_model"], bounds = "percent_max", _heart.max_hr_zones(top)
        if bounds is not None:
            m["hr_zone_bounds"] = _floats(bounds)
            m["time_in_hr_zones"] = _floats(_power.time_in_zones(hr, bounds))
        m["hr_curve"] = _curve(hr, durations, "exclude")

    if speed is not None:
        m["avg_speed"] = _mean(speed)
        m["max_speed"] = _max(speed)
        m["speed_curve"] = _curve(speed, durations, "zero")
        if is_run:
            grade = streams.get("grade")
            if grade is not None and streams.has("grade"):
                g = grade / 100.0
            else:
                alt = streams.get("altitude")
                g = (
                    _running.grade_from_altitude(alt, distance)
                    if alt is not None and distance is not None
                    else np.zeros(n)
                )
            graded = _running.grade_adjusted_speed(speed, np.nan_to_num(g, nan=0.0))
            ngs = _running.normalized_graded_speed(graded)
            m["normalized_graded_speed"] = ngs
            if ngs is not None and hr is not None and (avg := _mean(hr)):
                m["efficiency_factor"] = _power.efficiency_factor(ngs * 60.0, avg)
            if power is None and hr is not None:
                m["aerobic_decoupling_pct"] = _power.aerobic_decoupling(graded, hr)
            pace = athlete.threshold_pace_s_per_km
            if pace:
                pace_bounds = _running.pace_zones(pace)
                m["pace_zone_bounds"] = _floats(pace_bounds)
                m["time_in_pace_zones"] = _floats(_power.time_in_zones(speed, pace_bounds))
                if ngs is not None:
                    seconds = float((~np.isnan(speed)).sum())
                    m["rtss"] = _running.running_tss(ngs, 1000.0 / pace, seconds)

    if is_run and distance is not None and streams.has("distance"):
        m["best_efforts"] = _curves.best_efforts(distance, streams.time)

    return ActivityMetrics(**m)


LoadSource = Literal["power", "running", "swimming", "heart_rate"]


def tss_for(metrics: ActivityMetrics) -> tuple[float, LoadSource] | None:
    """The load figure for the load model, and which it is: power TSS, else rTSS (runs),
    else sTSS (swims), else hrTSS; None when none could be computed."""
    if metrics.tss is not None:
        return metrics.tss, "power"
    if metrics.rtss is not None:
        return metrics.rtss, "running"
    if metrics.stss is not None:
        return metrics.stss, "swimming"
    if metrics.hr_tss is not None:
        return metrics.hr_tss, "heart_rate"
    return None


__all__ = ["ActivityMetrics", "AthleteSnapshot", "LoadSource", "analyze_activity", "tss_for"]
