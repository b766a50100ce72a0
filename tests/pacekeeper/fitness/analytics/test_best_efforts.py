"""Best efforts (issue 27, item 11): a 10,022 m run read "10 km in -5.0 s" and VDOT
1,140,920. Cause: the start mark ``dist[j] - D`` was compared with the absolute distance
stream, whose first sample is a few metres in (0.7 m on the sandbox's runs): rounding
put the mark under the first sample, ``searchsorted`` answered index -1, which numpy
read as the run's last second. Checked on every run of a generated decade of sandbox
data (no negative or impossible time, the same answer as a brute-force search on a
sample), on real recordings against the same brute force, and on hand-made streams."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.providers.sandbox import _generator as sandbox
from tests.pacekeeper.fitness._activity_files import activity

from ._fit import read_fit

# The fastest a human has covered each distance (world records, men's, rounded down):
# no effort may be faster.
WORLD_RECORD_S = {"400m": 43.0, "800m": 100.0, "1km": 131.0, "1mile": 223.0,
                  "5km": 755.0, "10km": 1571.0, "15km": 2487.0, "half_marathon": 3451.0,
                  "marathon": 7235.0}


def brute_force(distance: np.ndarray, time: np.ndarray, target: float) -> float | None:
    """Every (start, end) pair of samples, O(n^2): for an end j, the start mark lies in the
    segment [i, i + 1] with d[j] - d[i] >= D > d[j] - d[i + 1]; its time is interpolated
    inside that segment. The stream is the one ``best_efforts`` reads: NaN dropped, no
    step back, no step faster than ``MAX_RUN_SPEED_MPS``, measured from its start."""
    ok = ~np.isnan(distance)
    d, t = distance[ok], time[ok]
    steps = [0.0]
    top = d[0]
    for k in range(1, len(d)):
        grown = max(0.0, d[k] - top)
        top = max(top, d[k])
        steps.append(min(grown, an.MAX_RUN_SPEED_MPS * max(t[k] - t[k - 1], 0.0)))
    cum = np.cumsum(steps)
    best = None
    for j in range(1, len(cum)):
        covered = cum[j] - cum[:j]  # from each earlier sample to j
        starts = np.flatnonzero((covered >= target) & (cum[j] - cum[1:j + 1] < target))
        for i in starts:
            span = cum[i + 1] - cum[i]
            frac = (cum[j] - target - cum[i]) / span if span > 0 else 0.0
            took = t[j] - (t[i] + frac * (t[i + 1] - t[i]))
            best = took if best is None else min(best, took)
    return best


def test_a_run_whose_first_sample_is_not_at_zero():
    # 0.7 m at the first sample, 4 m/s: 400.7 - 400 rounds to 0.69999999999998863,
    # under 0.7; the start index was -1 and the 400 m read -2899 s (t[100] - t[-1]).
    d = 0.7 + 4.0 * np.arange(3000.0)
    out = an.best_efforts(d)
    assert out["400m"] == pytest.approx(100.0, rel=1e-12)
    assert out["5km"] == pytest.approx(1250.0, rel=1e-12)
    assert out["10km"] == pytest.approx(2500.0, rel=1e-12)
    assert all(v is None or v > 0 for v in out.values())


def test_a_gps_jump_is_not_an_effort():
    # 3 m/s with a 600 m jump forward in one second (then the stream carries on from
    # there): that second counts 12.5 m (the fastest a runner goes), so the best 400 m
    # is that second and 387.5 m at 3 m/s: 1 + 387.5 / 3 s (it was 0.66 s: 603 m in 1 s).
    d = 3.0 * np.arange(1000.0)
    d[500:] += 600.0
    out = an.best_efforts(d)
    assert out["400m"] == pytest.approx(1 + 387.5 / 3.0, rel=1e-12)
    assert out["400m"] == pytest.approx(brute_force(d, np.arange(1000.0), 400.0))
    # A step back (GPS drift) is no progress: the distance holds, then catches up in one
    # second at no more than 12.5 m; the stream cannot tell more, and the answer is the
    # brute force's on it, never faster than 1 km at 3 m/s with that one second at 12.5.
    back = 3.0 * np.arange(1000.0)
    back[300:310] -= 50.0
    got = an.best_efforts(back)["1km"]
    assert got == pytest.approx(brute_force(back, np.arange(1000.0), 1000.0), rel=1e-12)
    assert got >= 1 + (1000 - 12.5) / 3.0 - 1e-9


def _runs_of_a_decade() -> list[sandbox.SandboxActivity]:
    return [a for a in sandbox.activities_between(1, date(2016, 1, 1), date(2025, 12, 31))
            if a.sport == "Run"]


@pytest.mark.slow
def test_every_run_of_a_generated_decade():
    """All 847 runs of sandbox athlete 1 over ten years, analysed as import stores them:
    every best effort positive, no faster than the world record and no faster than the
    runner's own top speed in that run; every 40th run against the brute force."""
    runs = _runs_of_a_decade()
    assert len(runs) > 800
    for k, act in enumerate(runs):
        s = sandbox.synthetic_streams(act.id)
        time = np.asarray(s.time, dtype=np.int64)
        d = np.asarray(s.distance, dtype=np.float64)
        streams = StreamSet(time, {"distance": d,
                                   "speed": np.asarray(s.velocity, dtype=np.float64)})
        m = an.analyze_activity(streams, Sport.RUN, an.AthleteSnapshot())
        assert m.best_efforts is not None
        top = max(s.velocity)
        for name, took in m.best_efforts.items():
            meters = an.BEST_EFFORT_DISTANCES[name]
            if meters > d[-1] - d[0]:
                assert took is None, (act.id, name)
                continue
            assert took is not None, (act.id, name)
            assert took >= WORLD_RECORD_S[name], (act.id, name, took)
            # no faster than the runner ever ran in it (0.1 m rounding of the stream)
            assert took >= (meters - 0.2) / top, (act.id, name, took)
            assert took <= time[-1] - time[0], (act.id, name, took)
        if k % 40 == 0:
            for name in ("400m", "1km", "5km"):
                expected = brute_force(d, time.astype(float), an.BEST_EFFORT_DISTANCES[name])
                if expected is None:  # a run shorter than the distance: none either side
                    assert m.best_efforts[name] is None, (act.id, name)
                    continue
                assert m.best_efforts[name] == pytest.approx(expected, rel=1e-9, abs=1e-9), \
                    (act.id, name)


def test_the_real_run_against_the_brute_force():
    run = read_fit("activity-small-fenix2-run.fit")
    d, t = run.channels["distance"], run.seconds.astype(float)
    out = an.best_efforts(d, t)
    for name in ("400m", "1km", "1mile", "5km"):
        assert out[name] == pytest.approx(
            brute_force(d, t, an.BEST_EFFORT_DISTANCES[name]), rel=1e-9), name
        assert out[name] >= WORLD_RECORD_S[name]


@pytest.mark.parametrize("name", ["fit/activity-small-fenix2-run.fit",
                                  "fit/garmin-fenix-5-walk.fit"])
def test_imported_runs_against_the_brute_force(name):
    a = activity(name)
    d = a.streams.get("distance")
    t = a.streams.time.astype(float)
    out = an.best_efforts(d, t)
    for dist in ("400m", "1km"):
        expected = brute_force(d, t, an.BEST_EFFORT_DISTANCES[dist])
        if expected is None:
            assert out[dist] is None
        else:
            assert out[dist] == pytest.approx(expected, rel=1e-9), dist
            assert out[dist] >= WORLD_RECORD_S[dist]
