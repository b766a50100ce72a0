"""Zone bounds as a person sees them, against how time in zone is counted, and Friel's
running heart-rate set (audit findings, 2026-11-28; each test failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._calculators import zones
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet


@pytest.mark.parametrize("settings", [{"ftp_watts": 250}, {"ftp_watts": 333},
                                      {"lthr_bpm": 165}, {"lthr_bpm": 171},
                                      {"max_hr_bpm": 190, "resting_hr_bpm": 50}])
def test_zone_bounds_show_the_first_whole_unit_of_each_zone(settings: dict[str, int]) -> None:
    """A bound of 262.5 W means 262 W is in the lower zone and 263 W in the upper: each
    zone's shown low is the first whole unit in it (the classification is value >= bound),
    so the zone a whole value is shown in is the zone it is counted in."""
    if "ftp_watts" in settings:
        bounds, rows = an.power_zones(settings["ftp_watts"]), zones(settings)["power"]
    elif "lthr_bpm" in settings:
        bounds, rows = an.lthr_zones(settings["lthr_bpm"]), zones(settings)["heart_rate"]
    else:
        bounds = an.karvonen_zones(settings["resting_hr_bpm"], settings["max_hr_bpm"])
        rows = zones(settings)["heart_rate"]
    for value in range(0, 601):
        counted = int(np.searchsorted(np.asarray(bounds, dtype=float), value, side="right")) - 1
        shown = [i for i, row in enumerate(rows)
                 if row["low"] <= value and (row["high"] is None or value < row["high"])]
        assert shown == ([counted] if counted >= 0 else []), (value, rows)






def test_a_runs_heart_rate_zones_are_friels_running_set() -> None:
    """Friel's guide gives runs their own LTHR percentages (85/90/95/100/103/106) and rides
    theirs (81/90/94/100/103/106): with LTHR 160, 130 bpm is zone 1 on a run (< 136) and
    zone 2 on a ride (>= 129.6); the zones calculator shows both sets."""
    hr = np.full(600, 130.0)
    streams = StreamSet(np.arange(600.0), {"heartrate": hr})
    athlete = an.AthleteSnapshot(lthr_bpm=160)
    run = an.analyze_activity(streams, Sport.RUN, athlete)
    ride = an.analyze_activity(streams, Sport.RIDE, athlete)
    assert run.hr_zone_bounds == pytest.approx([0, 136, 144, 152, 160, 164.8, 169.6])
    assert ride.hr_zone_bounds == pytest.approx([0, 129.6, 144, 150.4, 160, 164.8, 169.6])
    assert run.time_in_hr_zones[:2] == [600, 0] and ride.time_in_hr_zones[:2] == [0, 600]
    shown = zones({"lthr_bpm": 160})
    assert [z["low"] for z in shown["heart_rate_run"]] == [0, 136, 144, 152, 160, 165, 170]
    assert [z["low"] for z in shown["heart_rate"]] == [0, 130, 144, 151, 160, 165, 170]
