"""Issue 15: CTL and ATL are "42 and 7 days by default, configurable". The engine takes
any time constants (tests/pacekeeper/fitness/analytics/test_load.py); here the tool and
its HTTP twin do: `get_fitness_chart` with `ctl_days` / `atl_days` against a plain Python
loop over the days, the warm-up long enough for a slow CTL, and bad values refused as
invalid params (MCP-3, -32602) and 400 `validation_error` over HTTP (ERR-1). SQLite and
PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from tests._pmc import plain_pmc
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store, _today


def _at(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=10)


@pytest.mark.parametrize(("ctl_days", "atl_days"), [(42, 7), (28, 5), (100, 10)])
async def test_chart_time_constants_against_a_plain_loop(harness: Harness, ctl_days: int,
                                                         atl_days: int) -> None:
    """400 days of history (load 40 + 5 x (day mod 9), a rest day each week), the chart
    asked for its last 60 days, against the loop over the whole history (a fixed 252-day
    warm-up would drop CTL 100's e^-2.5, about 8 %)."""
    h = harness
    auth, owner = await _person(h, f"tc{ctl_days}-{atl_days}@example.com")
    today = _today(h)
    first = today - timedelta(days=399)
    loads = [0.0 if i % 7 == 3 else 40.0 + 5 * (i % 9) for i in range(400)]
    await _store(h, owner, [{"start": _at(first + timedelta(days=i)), "metrics": {"load": x}}
                            for i, x in enumerate(loads) if x])
    # docs/analytics.md: the PMC starts at the first activity whatever range is asked
    # (issue 27 item 12): the loop over the whole history, to the rounding.
    want = plain_pmc(loads, ctl_days, atl_days)[-60:]
    start = today - timedelta(days=59)
    args: dict[str, object] = {"from": start.isoformat(), "to": today.isoformat()}
    if (ctl_days, atl_days) != (42, 7):
        args |= {"ctl_days": ctl_days, "atl_days": atl_days}
    chart = (await _mcp(h, auth, "get_fitness_chart", args))["structuredContent"]
    assert (chart["ctl_days"], chart["atl_days"]) == (ctl_days, atl_days)
    assert len(chart["days"]) == 60
    for day, (ctl, atl, tsb) in zip(chart["days"], want, strict=True):
        assert day["ctl"] == pytest.approx(ctl, abs=0.051)
        assert day["atl"] == pytest.approx(atl, abs=0.051)
        assert day["tsb"] == pytest.approx(tsb, abs=0.051)
    if (ctl_days, atl_days) != (42, 7):
        assert f"(CTL {ctl_days} days, ATL {atl_days} days)" in chart["summary"]
        # Different constants give a different chart: the arguments are used.
        default = plain_pmc(loads, 42, 7)[-1]
        assert abs(default[0] - want[-1][0]) > 0.5 or abs(default[1] - want[-1][1]) > 0.5
    http = await h.client.get("/api/fitness-chart", headers=auth,
                              params={k: str(v) for k, v in args.items()})
    assert http.status_code == 200 and http.json() == chart


@pytest.mark.parametrize("bad", [0, 366, -7, 4.5, "forty-two"])
async def test_bad_time_constants_are_invalid_params(harness: Harness, bad: object) -> None:
    h = harness
    auth, _ = await _person(h, f"tc-bad-{bad!s}@example.com")
    for name in ("ctl_days", "atl_days"):
        body = await _mcp(h, auth, "get_fitness_chart", {name: bad})
        assert body["error"]["code"] == -32602, body
        http = await h.client.get("/api/fitness-chart", headers=auth, params={name: str(bad)})
        assert http.status_code == 400, http.text
        assert http.json()["error"] == "validation_error"
        assert name in http.json()["message"]
