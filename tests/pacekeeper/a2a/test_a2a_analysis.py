"""Issue 15, "the same tools over A2A": analysis tools run through `POST /a2a/execute`
(A2A-3) as the key's owner, their figures checked against values built here: the
fitness chart against a plain Python loop over the stored daily loads, the race
prediction against Daniels' VDOT 50 row and Riegel by hand, a power curve against the
stored curves' best by hand; another key's owner sees none of it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pacekeeper.fitness import Owner
from pacekeeper.fitness import analytics as an
from tests._pmc import plain_pmc
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _store, _today


async def _keyed(h: Harness, email: str) -> tuple[dict[str, str], Owner]:
    key = await create_key(h, await user_token(h, email))
    user = await h.services.users.get(uuid.UUID(key["user_id"]))
    assert user is not None
    return {"X-API-Key": key["api_key"]}, Owner(user.id, user.tenant_id)


async def _run(h: Harness, headers: dict[str, str], tool: str, arguments: dict[str, Any]
               ) -> dict[str, Any]:
    response = await h.client.post("/a2a/execute", headers=headers,
                                   json={"tool": tool, "arguments": arguments})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["tool"] == tool and body["isError"] is False, body
    structured: dict[str, Any] = body["structuredContent"]
    return structured


async def test_analysis_tools_over_a2a_against_independent_values(harness: Harness) -> None:
    h = harness
    headers, owner = await _keyed(h, "a2a-coach@example.com")
    today = _today(h)
    first = today - timedelta(days=59)
    loads = [float(40 + (k * 23) % 70) if k % 4 else 0.0 for k in range(60)]
    std = an.STANDARD_DURATIONS
    curve_a = {d: 300.0 + 12000.0 / d for d in std if d <= 3600}
    curve_b = {d: (v * 1.04 if d <= 60 else v * 0.96) for d, v in curve_a.items()}
    items = []
    for k, load in enumerate(loads):
        if not load:
            continue
        metrics: dict[str, Any] = {"load": load}
        if k in (50, 55):
            c = curve_a if k == 50 else curve_b
            ds = [d for d in std if d in c]
            metrics.update(curve_durations=ds, power_curve=[c[d] for d in ds])
        items.append({"start": datetime.combine(first + timedelta(days=k),
                                                datetime.min.time(), UTC)
                      + timedelta(hours=10), "metrics": metrics})
    await _store(h, owner, items)

    # The chart: CTL / ATL / TSB from a plain loop (nothing before the first day).
    chart = await _run(h, headers, "get_fitness_chart",
                       {"from": first.isoformat(), "to": today.isoformat()})
    assert len(chart["days"]) == 60
    for day, load, (ctl, atl, tsb) in zip(chart["days"], loads, plain_pmc(loads),
                                          strict=True):
        assert day["tsb"] == pytest.approx(tsb, abs=0.051)
        assert day["load"] == pytest.approx(load, abs=0.051)
        assert day["ctl"] == pytest.approx(ctl, abs=0.051)
        assert day["atl"] == pytest.approx(atl, abs=0.051)

    # Race prediction: Daniels' VDOT 50 row (5 km 19:57 -> marathon 3:10:49, 0.3 %) and
    # Riegel 1197 x (42195 / 5000)^1.06 by hand.
    race = await _run(h, headers, "predict_race_time",
                      {"distance_m": 5000, "time_s": 1197, "target_distance_m": 42195})
    assert race["vdot"] == pytest.approx(50.0, abs=0.1)
    by = {p["method"]: p["time_s"] for p in race["predictions"]}
    assert by["vdot"] == pytest.approx(3 * 3600 + 10 * 60 + 49, rel=0.003)
    assert by["riegel"] == pytest.approx(1197 * (42195 / 5000) ** 1.06, abs=0.5)  # whole s

    # A power curve: the two rides' element-wise best, by hand.
    curve = await _run(h, headers, "get_power_curve", {"durations_s": [5, 60, 300, 1200]})
    assert curve["activities"] == 2
    assert {p["duration_s"]: p["watts"] for p in curve["points"]} == pytest.approx(
        {d: round(max(curve_a[d], curve_b[d]), 1) for d in (5, 60, 300, 1200)})

    # Another key's owner: an empty chart and no curve.
    other, _ = await _keyed(h, "a2a-other@example.com")
    theirs = await _run(h, other, "get_fitness_chart",
                        {"from": first.isoformat(), "to": today.isoformat()})
    assert all(d["ctl"] == 0 and d["load"] == 0 for d in theirs["days"])
    assert (await _run(h, other, "get_power_curve", {}))["activities"] == 0
