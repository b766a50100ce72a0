"""Each format's sport labels onto ``Sport``."""

from __future__ import annotations

from typing import Final

from pacekeeper.fitness.models import Sport

# FIT profile `sub_sport` values that decide on their own, then `sport` values.
_FIT_SUB_SPORT: Final[dict[str, Sport]] = {
    "strength_training": Sport.STRENGTH,
    "yoga": Sport.YOGA,
    "pilates": Sport.YOGA,
    "indoor_rowing": Sport.ROW,
    "indoor_cycling": Sport.RIDE,
    "spin": Sport.RIDE,
    "treadmill": Sport.RUN,
    "indoor_running": Sport.RUN,
    "indoor_walking": Sport.WALK,
    "elliptical": Sport.WORKOUT,
    "stair_climbing": Sport.WORKOUT,
    "cardio_training": Sport.WORKOUT,
    "hiit": Sport.WORKOUT,
    "lap_swimming": Sport.SWIM,
    "open_water": Sport.SWIM,
}
_FIT_SPORT: Final[dict[str, Sport]] = {
    "running": Sport.RUN,
    "cycling": Sport.RIDE,
    "e_biking": Sport.RIDE,
    "swimming": Sport.SWIM,
    "walking": Sport.WALK,
    "hiking": Sport.HIKE,
    "mountaineering": Sport.HIKE,
    "rowing": Sport.ROW,
    "paddling": Sport.ROW,
    "kayaking": Sport.ROW,
    "stand_up_paddleboarding": Sport.ROW,
    "alpine_skiing": Sport.SKI,
    "cross_country_skiing": Sport.SKI,
    "snowboarding": Sport.SKI,
    "training": Sport.WORKOUT,
    "fitness_equipment": Sport.WORKOUT,
    "hiit": Sport.WORKOUT,
    "floor_climbing": Sport.WORKOUT,
}


def from_fit(sport: str | None, sub_sport: str | None) -> Sport:
    if sub_sport is not None and sub_sport in _FIT_SUB_SPORT:
        return _FIT_SUB_SPORT[sub_sport]
    if sport is not None:
        return _FIT_SPORT.get(sport, Sport.OTHER)
    return Sport.OTHER


def from_tcx(sport: str | None) -> Sport:
    """TCX ``Activity/@Sport`` is one of Running, Biking, Other (TrainingCenterDatabase v2)."""
    key = (sport or "").strip().lower()
    return {"running": Sport.RUN, "biking": Sport.RIDE}.get(key, Sport.OTHER)


# Strava's GPX exports write a number in <trk><type>: 1 ride, 4 hike, 9 run, 10 walk,
# 16 swim, 17 virtual ride, ... (as seen in Strava's own export, 4801048867_strava.gpx).
_STRAVA_GPX_TYPES: Final[dict[str, Sport]] = {
    "1": Sport.RIDE,
    "2": Sport.SKI,
    "3": Sport.SKI,
    "4": Sport.HIKE,
    "7": Sport.SKI,
    "9": Sport.RUN,
    "10": Sport.WALK,
    "11": Sport.WORKOUT,
    "16": Sport.SWIM,
    "17": Sport.RIDE,
    "18": Sport.RIDE,
    "22": Sport.ROW,
    "29": Sport.STRENGTH,
    "30": Sport.YOGA,
}
_GPX_WORDS: Final[dict[str, Sport]] = {
    "cycling": Sport.RIDE,
    "biking": Sport.RIDE,
    "ride": Sport.RIDE,
    "road_biking": Sport.RIDE,
    "mountain_biking": Sport.RIDE,
    "virtualride": Sport.RIDE,
    "running": Sport.RUN,
    "run": Sport.RUN,
    "trail_running": Sport.RUN,
    "walking": Sport.WALK,
    "walk": Sport.WALK,
    "hiking": Sport.HIKE,
    "hike": Sport.HIKE,
    "swimming": Sport.SWIM,
    "swim": Sport.SWIM,
    "open_water_swimming": Sport.SWIM,
    "rowing": Sport.ROW,
    "row": Sport.ROW,
    "alpine_skiing": Sport.SKI,
    "backcountry_skiing": Sport.SKI,
    "cross_country_skiing": Sport.SKI,
    "nordicski": Sport.SKI,
    "alpineski": Sport.SKI,
}


def from_gpx(type_: str | None) -> Sport:
    """GPX ``<trk><type>``: Garmin Connect writes FIT sport names (``cycling``), Strava a
    number; anything else is OTHER."""
    if not type_:
        return Sport.OTHER
    key = type_.strip().lower().replace(" ", "_").replace("-", "_")
    return _STRAVA_GPX_TYPES.get(key) or _GPX_WORDS.get(key) or _FIT_SPORT.get(key, Sport.OTHER)
