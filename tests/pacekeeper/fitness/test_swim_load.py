"""A swim's load from the swimmer's threshold pace (issue 27: swim load from CSS; FIG-8,
the sport's own threshold): sTSS,
IF cubed (TrainingPeaks). By hand on TrainingPeaks' own definition, and on a real pool
swim (a Garmin watch's lengths) through the service's import and its recompute."""

from __future__ import annotations

from typing import Any

import pytest

from pacekeeper.fitness import analytics as an
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness._activity_files import raw
from tests.pacekeeper.fitness.test_sport_thresholds import patch, person

POOL = "fit/activity_poolswim_with_hr.fit"


def test_an_hour_at_css_is_100_and_if_is_cubed() -> None:
    # 3,600 m in an hour at a CSS of 100 s/100 m: IF 1, sTSS 100.
    assert an.swim_tss(3600.0, 3600.0, 100.0) == pytest.approx(100.0)
    # 3,000 m in 55 min (3,300 s) moving, CSS 1:33/100 m: NSS 0.90909 m/s, threshold
    # 1.07527 m/s, IF 0.845455, IF^3 0.604318, x 0.916667 h x 100 = 55.40.
    assert an.swim_tss(3000.0, 3300.0, 93.0) == pytest.approx(55.396, abs=0.001)
    # The same swim 10 % faster costs 1.1^3 = 1.331 times the intensity, not 1.21.
    slow, fast = an.swim_tss(1000.0, 1000.0, 100.0), an.swim_tss(1100.0, 1000.0, 100.0)
    assert slow is not None and fast is not None and fast / slow == pytest.approx(1.331)
    assert an.swim_tss(0.0, 600.0, 100.0) is None and an.swim_tss(500.0, 600.0, 0.0) is None


async def test_a_pool_swim_is_loaded_from_css(harness: Harness) -> None:
    """The swim's load is hrTSS while no CSS is set (heart rate from its strap); with a
    CSS it is sTSS from the swim's own distance and moving time (its lengths), as the
    activity shows them."""
    h = harness
    auth, owner = await person(h, "swim-load@example.com")
    await patch(h, auth, {"lthr_bpm": 160, "max_hr_bpm": 185, "resting_hr_bpm": 50,
                          "valid_from": "2000-01-01"})
    outcomes = await h.services.fitness.import_file(owner, raw(POOL), "swim.fit",
                                                    bounded=False)
    assert outcomes[0].activity is not None
    activity_id = str(outcomes[0].activity.id)

    async def shown() -> tuple[dict[str, Any], dict[str, Any]]:
        detail = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
        analysis = await h.client.get(f"/api/activities/{activity_id}/analysis", headers=auth)
        assert analysis.status_code == 200, analysis.text
        return detail, analysis.json()["metrics"]

    _, before = await shown()
    assert before["load_method"] == "heart_rate"
    await patch(h, auth, {"sport": "swim", "threshold_pace_s_per_100m": 110,
                          "valid_from": "2000-01-01"})
    detail, after = await shown()
    distance, moving = detail["distance_m"], detail["moving_time_s"]
    intensity = (distance / moving) / (100.0 / 110.0)
    assert after["load_method"] == "swimming"
    assert after["load"] == pytest.approx(intensity**3 * moving / 3600 * 100, rel=1e-3)
