"""Issue 15's end-to-end proof: the official `mcp` SDK client against `pacekeeper serve`.
The repository's real FIT files are imported over HTTP (with an FTP set first), then the
assistant asks for the training summary, the fitness chart, a power curve, critical power
and a race prediction; every figure is compared with the engine called here, directly, on
the same files (parsed by the importer, analysed by ``analyze_activity``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.analysis import MAX_DAYS
from pacekeeper.fitness.importers import ImportRejected, parse_activity
from pacekeeper.fitness.models import Sport
from tests._services import free_port
from tests.e2e._service_process import serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

FIT = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit"
FTP = 250


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = service_env(tmp_path_factory.mktemp("analysis-sdk"), free_port())
    with serve(env) as url:
        yield url


def _engine() -> list[dict[str, Any]]:
    """Each importable file: its local day and the engine's metrics with FTP 250."""
    out = []
    for path in sorted(FIT.glob("*.fit")):
        try:
            parsed = parse_activity(path.read_bytes(), path.name)
        except ImportRejected:
            continue
        # FTP 250 is the cycling FTP: other sports' power has no threshold (issue 27, 10).
        metrics = an.analyze_activity(parsed.streams, parsed.sport, an.AthleteSnapshot(
            ftp_watts=FTP if parsed.sport == Sport.RIDE else None))
        load = an.tss_for(metrics)
        day = (parsed.start.astimezone(UTC)
               + timedelta(seconds=parsed.utc_offset_s or 0)).date()
        out.append({"name": path.name, "day": day, "metrics": metrics,
                    "load": None if load is None else load[0], "sport": parsed.sport})
    return out


@pytest.fixture(scope="module")
def person(server: str) -> dict[str, Any]:
    token = httpx.post(f"{server}/api/auth/register",
                       json={"email": "coach@example.com", "password": "e2e-Passw0rd!"}
                       ).json()["token"]
    auth = {"authorization": f"Bearer {token}"}
    ftp = httpx.patch(f"{server}/api/athlete", headers=auth,
                      json={"ftp_watts": FTP, "valid_from": "2000-01-01"})
    assert ftp.status_code == 200, ftp.text
    for path in sorted(FIT.glob("*.fit")):
        response = httpx.post(f"{server}/api/activities/import", headers=auth,
                              files={"file": (path.name, path.read_bytes())}, timeout=120)
        assert response.status_code in (200, 201, 400), response.text
    return {"auth": auth}


def _client(server: str, auth: dict[str, str]) -> Client:
    http = httpx.AsyncClient(headers=auth, timeout=120)
    return Client(streamable_http_client(f"{server}/mcp", http_client=http), mode="auto")


async def test_an_assistant_asks_for_the_analysis(server: str, person: dict[str, Any]) -> None:
    engine = _engine()
    with_load = [e for e in engine if e["load"] is not None]
    assert with_load, "the files give no load"
    first = min(e["day"] for e in engine)
    last = max(e["day"] for e in engine)
    days = (last - first).days + 1
    daily = np.zeros(days)
    for e in with_load:
        daily[(e["day"] - first).days] += e["load"]
    pmc = an.ctl_atl_tsb(daily)
    # A question spans at most MAX_DAYS: the files span more, so the chart is asked for the
    # last MAX_DAYS, and its CTL must still be the whole history's (seeded from the first).
    start = max(first, last - timedelta(days=MAX_DAYS - 1))
    shown = slice((start - first).days, days)
    # The power curve and CP are the rides' (a run's power is not a crank's: issue 27, 10).
    rides = [e for e in engine if e["metrics"].power_curve and e["sport"] == Sport.RIDE
             and e["day"] >= start]
    curves = []
    for e in rides:
        c = np.full(len(an.STANDARD_DURATIONS), np.nan)
        c[: len(e["metrics"].power_curve)] = [np.nan if v is None else v
                                              for v in e["metrics"].power_curve]
        curves.append(c)
    best = an.merge_curves(*curves)

    async with _client(server, person["auth"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert len(tools) >= 40
        summary = (await client.call_tool("get_training_summary", {})).structured_content
        assert summary is not None and summary["summary"]
        assert len(str(summary)) < 2048

        chart = (await client.call_tool("get_fitness_chart", {
            "from": start.isoformat(), "to": last.isoformat()})).structured_content
        assert chart is not None and len(chart["days"]) == len(pmc.ctl[shown])
        got = np.array([d["ctl"] for d in chart["days"]])
        assert np.max(np.abs(got - pmc.ctl[shown])) <= 0.05 + 1e-9
        got_load = np.array([d["load"] for d in chart["days"]])
        assert np.max(np.abs(got_load - daily[shown])) <= 0.05 + 1e-9

        ds = [5, 60, 300, 1200]
        curve = (await client.call_tool("get_power_curve", {
            "from": start.isoformat(), "to": last.isoformat(), "durations_s": ds})
        ).structured_content
        assert curve is not None and curve["activities"] == len(rides)
        index = {d: i for i, d in enumerate(an.STANDARD_DURATIONS)}
        for p in curve["points"]:
            assert p["watts"] == pytest.approx(best[index[p["duration_s"]]], abs=0.5)  # W: whole (issue 27 item 14)
        assert {p["duration_s"] for p in curve["points"]} == {
            d for d in ds if np.isfinite(best[index[d]])}

        fit = an.critical_power_2p(np.array(an.STANDARD_DURATIONS, float), best)
        cp = await client.call_tool("estimate_critical_power", {
            "from": start.isoformat(), "to": last.isoformat()})
        if fit is None:
            assert cp.is_error
        else:
            assert cp.structured_content is not None
            assert cp.structured_content["cp_watts"] == pytest.approx(fit.cp, abs=0.5)

        race = (await client.call_tool("predict_race_time", {
            "distance_m": 5000, "time_s": 1197, "target_distance_m": 42195})
        ).structured_content
        assert race is not None
        vdot = an.vdot_from_race(5000, 1197)
        by = {p["method"]: p["time_s"] for p in race["predictions"]}
        assert by["vdot"] == pytest.approx(an.race_time_for_vdot(vdot, 42195), abs=0.5)  # whole s
        assert by["riegel"] == pytest.approx(an.riegel(1197, 5000, 42195), abs=0.5)
        assert Sport.RIDE in {e["sport"] for e in engine}


def _one_hertz(ride: Any) -> np.ndarray:
    """The power records on the 1 Hz grid by docs/import.md's rule, written out here: a
    second between two records at most 10 s apart is interpolated linearly between them
    (this file's median interval is 1 s); a record without power stays NaN."""
    t, p = ride.seconds.astype(int), ride.channels["power"]
    out = np.full(t[-1] + 1, np.nan)
    out[t] = p
    for a, b, pa, pb in zip(t[:-1], t[1:], p[:-1], p[1:], strict=True):
        if 1 < b - a <= 10:
            out[a + 1:b] = pa + (pb - pa) * np.arange(1, b - a) / (b - a)
    return out


@pytest.mark.parametrize(("name", "cp"), [("6449921903_ACTIVITY.fit", 125.0),
                                          ("sample-activity-indoor-trainer.fit", 220.0)])
async def test_wbal_over_mcp_matches_the_sweat_oracle(server: str, person: dict[str, Any],
                                                      name: str, cp: float) -> None:
    """Issue 15, W' balance: `get_wbal` over MCP (SMCP-4: the ride is the token's user's)
    on a real ride's power, against sweat (GoldenCheetah's Python) run on the same FIT
    file decoded here by the FIT SDK alone, not by the importer: Skiba 2015 against
    sweat's Froncioni-Skiba-Clarke, Skiba 2012 against its Waterworth form."""
    from tests.pacekeeper.fitness.analytics._fit import read_fit
    from tests.pacekeeper.fitness.analytics._oracle import run_sweat

    w_prime = 20000.0
    power = np.nan_to_num(_one_hertz(read_fit(name)), nan=0.0)
    oracle = run_sweat(power.tolist(), cp, w_prime, skiba=False)
    async with httpx.AsyncClient(timeout=120) as http:
        again = await http.post(f"{server}/api/activities/import", headers=person["auth"],
                                files={"file": (name, (FIT / name).read_bytes())})
    assert again.status_code == 200 and again.json()["duplicate"] is True, again.text
    ident = again.json()["activity"]["id"]
    async with _client(server, person["auth"]) as client:
        for model, key in (("skiba2015", "wbal_fsc"), ("skiba2012", "wbal_waterworth")):
            want = np.asarray(oracle[key])
            result = await client.call_tool("get_wbal", {
                "activity_id": ident, "cp_watts": cp, "w_prime_j": w_prime,
                "model": model, "max_points": 1000})
            got = result.structured_content
            assert got is not None and not result.is_error, result
            assert got["basis"] == "given" and got["model"] == model
            # The ride's own length: the tool saw the same seconds as the oracle.
            assert got["series"][-1]["t_s"] < len(want) <= got["series"][-1]["t_s"] + len(
                want) // 1000 + 1
            for point in got["series"]:  # each rounded to the joule, shown from 0 up
                assert point["w_prime_bal_j"] == pytest.approx(max(want[point["t_s"]], 0.0),
                                                               abs=0.51)
            assert got["min_w_prime_bal_j"] == pytest.approx(want.min(), abs=0.51)
            assert want[got["min_at_s"]] == pytest.approx(want.min(), abs=1e-6)
            assert got["time_below_25pct_s"] == int(np.sum(want < 0.25 * w_prime))
            assert want.min() < w_prime - 1000  # the ride dug into W': the check has teeth
