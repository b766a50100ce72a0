"""Issue 15's end-to-end proof, as the issue words it: the official `mcp` SDK client
over the live server (`pacekeeper serve`, real sockets) syncs sandbox history, then asks
for the training summary, the fitness chart, a power curve, critical power and a race
prediction; each answer is checked against the analytics engine called here, directly,
on the streams read back from the synced activities over HTTP
(`GET /api/activities/{id}/streams`, full resolution), and where it is cheap against a
plain computation written out here (a day-by-day CTL/ATL loop, cumulative-sum best
averages, a least-squares line for CP, Daniels' and Riegel's formulas).

It also proves that a synced activity carries its metrics and its load (the stored
figures equal the engine's on the read-back streams with the settings valid then), and
that an answer says when figures are being recomputed: the service runs without its
worker, so a settings change's recomputation stays queued and every activity it
concerns is counted in ``recomputing``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import numpy as np
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet
from tests._pmc import plain_pmc
from tests._services import free_port
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

DAYS = 35  # synced history: about twenty activities
ATHLETE = 3  # a sandbox athlete
SETTINGS = {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190, "resting_hr_bpm": 50,
            "threshold_pace_s_per_km": 270.0}
CURVE_DS = [5, 60, 300, 1200]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # No worker: the MCP call does the syncing, and a recomputation stays queued.
    env = service_env(tmp_path_factory.mktemp("analysis-sync-sdk"), free_port(),
                      PACEKEEPER_WORKER="off", PACEKEEPER_SYNC_HISTORY_DAYS=str(DAYS))
    with serve(env) as url:
        yield url


def _client(server: str, auth: dict[str, str]) -> Client:
    http = httpx.AsyncClient(headers=auth, timeout=180)
    return Client(streamable_http_client(f"{server}/mcp", http_client=http))


def _read_back(server: str, auth: dict[str, str]) -> list[dict[str, Any]]:
    """Every activity as the HTTP API gives it back: its detail and its full streams."""
    page = httpx.get(f"{server}/api/activities", params={"limit": "200"}, headers=auth)
    assert page.status_code == 200 and page.json()["next_cursor"] is None, page.text
    out = []
    for listed in page.json()["activities"]:
        detail = httpx.get(f"{server}/api/activities/{listed['id']}", headers=auth).json()
        body = httpx.get(f"{server}/api/activities/{listed['id']}/streams", headers=auth,
                         params={"max_points": "86400"}, timeout=60).json()  # every point
        raw = body["streams"]
        time = np.asarray(raw.pop("time"), dtype=np.int64)
        channels = {k: np.array([np.nan if v is None else v for v in vs], dtype=np.float64)
                    for k, vs in raw.items()}
        start = datetime.fromisoformat(detail["start_time_utc"].replace("Z", "+00:00"))
        day = (start.astimezone(UTC) + timedelta(seconds=detail["utc_offset_s"] or 0)).date()
        out.append({"id": detail["id"], "sport": detail["sport"], "day": day,
                    "utc_day": start.astimezone(UTC).date(),
                    "detail": detail, "streams": StreamSet(time, channels)})
    return out


def _best_average(power: np.ndarray, d: int) -> float:
    """The best mean over any ``d`` consecutive seconds (gaps as 0 W), by cumulative sums."""
    c = np.concatenate(([0.0], np.cumsum(np.nan_to_num(power, nan=0.0))))
    return float(np.max(c[d:] - c[:-d]) / d) if len(power) >= d else math.nan


def _daniels_vdot(distance_m: float, time_s: float) -> float:
    """Daniels-Gilbert, written out: VO2 at the race velocity over the fraction held."""
    t = time_s / 60
    v = distance_m / t
    vo2 = -4.60 + 0.182258 * v + 0.000104 * v * v
    fraction = 0.8 + 0.1894393 * math.exp(-0.012778 * t) + 0.2989558 * math.exp(-0.1932605 * t)
    return vo2 / fraction


async def test_sync_then_the_five_questions_match_the_engine(server: str) -> None:
    http = httpx.AsyncClient(base_url=server, timeout=60)
    body = (await http.post("/api/auth/register", json={
        "email": "synced@example.com", "password": "e2e-Passw0rd!"})).json()
    auth = {"authorization": f"Bearer {body['token']}"}
    settings = await http.patch("/api/athlete", headers=auth,
                                json={**SETTINGS, "valid_from": "2000-01-01"})
    assert settings.status_code == 200, settings.text
    connect_without_browser(server, body["token"], body["user_id"], "strava", ATHLETE)

    async with _client(server, auth) as client:
        synced = await client.call_tool("sync_activities", {"provider": "strava"})
        report = synced.structured_content
        assert report is not None and report["status"] == "done", synced
        assert report["imported"] >= 10 and report["with_streams"] == report["imported"]

        acts = _read_back(server, auth)
        assert len(acts) == report["imported"]
        assert {a["sport"] for a in acts} == {"ride", "run"}
        # The FTP is cycling's: a run is analysed without it (issue 27 item 10), its load
        # from the threshold pace.
        snaps = {"ride": an.AthleteSnapshot(**SETTINGS),  # type: ignore[arg-type]
                 "run": an.AthleteSnapshot(**{**SETTINGS, "ftp_watts": None})}

        # Every synced activity carries its metrics and its load: the engine's, on the
        # streams read back, with the settings valid on its day.
        for a in acts:
            metrics = an.analyze_activity(a["streams"], Sport(a["sport"]), snaps[a["sport"]])
            load = an.tss_for(metrics)
            assert load is not None
            stored = a["detail"]["metrics"]
            assert stored["load"] == pytest.approx(load[0], rel=1e-6)
            assert stored["load_method"] == load[1]
            assert a["detail"]["tss"] == (  # none for a run: no running FTP is set
                None if metrics.tss is None else pytest.approx(metrics.tss, rel=1e-6))
            assert a["detail"]["normalized_power"] == pytest.approx(
                metrics.normalized_power, rel=1e-6)
            a["metrics"], a["load"] = metrics, load[0]
            # The stream is one sample a second, so the hand best averages below apply.
            assert np.all(np.diff(a["streams"].time) == 1)

        today = datetime.now(UTC).date()
        first = min(a["day"] for a in acts)
        n = (today - first).days + 1
        daily = np.zeros(n)
        for a in acts:
            daily[(a["day"] - first).days] += a["load"]
        engine = an.ctl_atl_tsb(daily)
        hand_ctl, hand_atl, hand_tsb = (list(c) for c in zip(*plain_pmc(daily.tolist()),
                                                               strict=True))
        np.testing.assert_allclose(engine.ctl, hand_ctl, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(engine.tsb, hand_tsb, rtol=1e-9, atol=1e-9)

        # 1. The fitness chart: every day's load, CTL, ATL and TSB.
        chart = (await client.call_tool("get_fitness_chart", {
            "from": first.isoformat(), "to": today.isoformat()})).structured_content
        assert chart is not None and chart["recomputing"] == 0
        assert [d["date"] for d in chart["days"]] == [
            (first + timedelta(days=i)).isoformat() for i in range(n)]
        for key, series in (("load", daily.tolist()), ("ctl", hand_ctl), ("atl", hand_atl),
                            ("tsb", hand_tsb)):
            got = np.array([d[key] for d in chart["days"]])
            assert np.max(np.abs(got - np.asarray(series))) <= 0.05 + 1e-9, key

        # 2. The training summary: today's CTL / ATL / TSB, four weekly loads, the
        # activities of four weeks by sport, the 90-day power bests.
        summary = (await client.call_tool("get_training_summary", {})).structured_content
        assert summary is not None and len(str(summary)) < 2048
        assert summary["date"] == today.isoformat() and summary["recomputing"] == 0
        for key, want in (("ctl", hand_ctl[-1]), ("atl", hand_atl[-1]), ("tsb", hand_tsb[-1])):
            assert summary[key] == pytest.approx(want, abs=0.051), key
        four = np.concatenate((np.zeros(max(0, 28 - n)), daily[-28:]))
        assert summary["weekly_load"] == pytest.approx(
            [round(float(four[i:i + 7].sum())) for i in range(0, 28, 7)], abs=0.51)
        recent = [a for a in acts if (today - a["day"]).days < 28]
        by_sport = {s: [a for a in recent if a["sport"] == s] for s in ("ride", "run")}
        assert set(summary["last_4_weeks"]) == {s for s, v in by_sport.items() if v}
        for sport, done in by_sport.items():
            if done:
                week = summary["last_4_weeks"][sport]
                assert week["sessions"] == len(done), summary
                assert week["load"] == pytest.approx(sum(a["load"] for a in done), abs=0.51)
        # The power curve is the rides' (the default sport): runs' power never enters it.
        with_power = [a for a in acts if a["streams"].has("power") and a["sport"] == "ride"]
        for d in CURVE_DS:
            hand = max(_best_average(a["streams"].channels["power"], d) for a in with_power
                       if (today - a["day"]).days < 90)
            assert summary["recent_bests"][f"power_{d}s_w"] == round(hand)

        # 3. A power curve for the period: the best of the read-back rides' power, each
        # duration's best average by hand, and the engine's merged curve.
        curve = (await client.call_tool("get_power_curve", {
            "from": first.isoformat(), "to": today.isoformat(), "durations_s": CURVE_DS}
        )).structured_content
        assert curve is not None and curve["activities"] == len(with_power)
        index = {d: i for i, d in enumerate(an.STANDARD_DURATIONS)}
        curves = []
        for a in with_power:
            c = np.full(len(an.STANDARD_DURATIONS), np.nan)
            pc = a["metrics"].power_curve
            c[: len(pc)] = [np.nan if v is None else v for v in pc]
            curves.append(c)
        best = an.merge_curves(*curves)
        points = {p["duration_s"]: p for p in curve["points"]}
        assert sorted(points) == CURVE_DS
        for d in CURVE_DS:
            hand = max(_best_average(a["streams"].channels["power"], d) for a in with_power)
            assert points[d]["watts"] == pytest.approx(hand, abs=0.5)
            assert points[d]["watts"] == pytest.approx(best[index[d]], abs=0.5)
            # The activity it names holds that best (ties: any of them).
            named = next(a for a in with_power if a["id"] == points[d]["activity_id"])
            assert _best_average(named["streams"].channels["power"], d) == hand

        # 4. Critical power (2-parameter, work = CP t + W' over 2-20 min), on the same
        # period: the engine on the merged curve, and a least-squares line by hand.
        cp = (await client.call_tool("estimate_critical_power", {
            "from": first.isoformat(), "to": today.isoformat()})).structured_content
        assert cp is not None
        ds = np.array(an.STANDARD_DURATIONS, dtype=float)
        fit = an.critical_power_2p(ds, best)
        assert fit is not None
        assert cp["cp_watts"] == pytest.approx(fit.cp, abs=0.5)
        assert cp["w_prime_j"] == pytest.approx(fit.w_prime, abs=0.51)
        window = [d for d in an.STANDARD_DURATIONS if 120 <= d <= 1200]
        t = np.array(window, dtype=float)
        hand_p = np.array([max(_best_average(a["streams"].channels["power"], d)
                               for a in with_power) for d in window])
        slope, intercept = np.polyfit(t, hand_p * t, 1)
        assert cp["cp_watts"] == pytest.approx(slope, abs=0.5)
        assert cp["w_prime_j"] == pytest.approx(intercept, abs=0.51)
        assert cp["points"] == len(window)

        # 5. A race prediction from the synced runs' best 5 km (the engine's best effort
        # on the read-back distance stream, which is what the run stored).
        runs = [a for a in acts if a["sport"] == "run"]
        fives = [a["metrics"].best_efforts.get("5km") for a in runs
                 if a["metrics"].best_efforts]
        for a in runs:
            stored, want = a["detail"]["metrics"]["best_efforts"], a["metrics"].best_efforts
            assert want is not None and set(stored) == set(want)
            for name, t in want.items():
                assert (stored[name] is None) if t is None else (
                    stored[name] == pytest.approx(t, rel=1e-6)), name
        five = min(t for t in fives if t is not None)
        five = round(five, 1)
        race = await client.call_tool("predict_race_time", {
            "distance_m": 5000, "time_s": five, "target_distance_m": 42195})
        got = race.structured_content
        assert got is not None and not race.is_error, race
        assert got["vdot"] == pytest.approx(_daniels_vdot(5000, five), abs=0.051)  # VDOT to 0.1
        assert got["vdot"] == pytest.approx(an.vdot_from_race(5000, five), abs=0.051)
        by = {p["method"]: p["time_s"] for p in got["predictions"]}
        assert by["riegel"] == pytest.approx(five * (42195 / 5000) ** 1.06, abs=0.5)  # whole s
        marathon = an.race_time_for_vdot(an.vdot_from_race(5000, five), 42195)
        assert by["vdot"] == pytest.approx(marathon, abs=0.5)
        assert _daniels_vdot(42195, by["vdot"]) == pytest.approx(
            _daniels_vdot(5000, five), abs=5e-3)  # the same VDOT over the marathon

        # A settings change while its recomputation is queued (no worker runs it): the
        # activities with streams starting (UTC date) on or after its day are counted,
        # and the answers say so.
        since = first + timedelta(days=7)
        changed = await http.patch("/api/athlete", headers=auth,
                                   json={"ftp_watts": 280, "valid_from": since.isoformat()})
        assert changed.status_code == 200 and changed.json()["recomputing"] is True
        stale = sum(a["utc_day"] >= since for a in acts)
        assert 0 < stale < len(acts)
        chart = (await client.call_tool("get_fitness_chart", {
            "from": first.isoformat(), "to": today.isoformat()})).structured_content
        assert chart is not None and chart["recomputing"] == stale
        assert f"({stale} activities being recomputed)" in chart["summary"]
        summary = (await client.call_tool("get_training_summary", {})).structured_content
        assert summary is not None and summary["recomputing"] == stale
        assert f"{stale} activities being recomputed" in summary["summary"]
    await http.aclose()
