"""Re-deriving after an upgrade (fitness/_engine.py; docs/import.md, "Re-deriving after an
upgrade"): activities an older engine computed are brought to the current one.

A stale activity is written straight through the store, stamped 0, with deliberately wrong
figures and the original bytes of a real file; the oracle is a fresh import of the same
file by another person (the service's import path, not the re-derivation's)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from dataclasses import fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pacekeeper.fitness import NewActivity, Owner, SourceRef, StoredActivity, StreamSet
from pacekeeper.fitness._engine import ENGINE_VERSION
from pacekeeper.fitness._service import compute, summary_of
from pacekeeper.fitness._settings import SettingsHistory
from pacekeeper.fitness.importers import parse_activity
from tests._wait import async_wait_for
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness._activity_files import DATA

SWIM = "fit/activity_poolswim_with_hr.fit"  # laps, lengths, rest: import-level figures
RIDE = "fit/garmin-fenix-5-bike.fit"  # a provider's streams
WRONG_METRICS = {"tss": 999.0, "load": 999.0, "load_method": "power"}


async def person(h: Harness, email: str) -> Owner:
    body = await h.register(email)
    h.client.cookies.clear()
    user = await h.services.users.get(uuid.UUID(body["user_id"]))
    assert user is not None
    return Owner(user.id, user.tenant_id)


def wrong(new: NewActivity, name: str) -> NewActivity:
    """Figures an older engine might have stored: all of them off."""
    return replace(new, name=name, name_generated=False, distance_m=1.0, moving_s=1.0,
                   elapsed_s=2.0, avg_heartrate=None, laps=[], structure={},
                   device_metrics={})


async def stale_file(h: Harness, owner: Owner, data: bytes, file_name: str,
                     new: NewActivity) -> uuid.UUID:
    """An activity with its original file, stored as engine 0 with wrong figures."""
    store, now = h.services.fitness.store, h.services.clock()
    ref = SourceRef("file", file_sha256=hashlib.sha256(data).hexdigest(), file_format="fit",
                    file_name=file_name)
    activity_id = await store.insert(owner, new, ref, metrics={}, streams=None,
                                     stream_channels="", samples=0, original=data, now=now)
    await store.rederived(owner.user_id, activity_id, version=0, now=now,
                          metrics=WRONG_METRICS)
    return activity_id


def figures(a: StoredActivity) -> dict[str, Any]:
    """Every figure the import computes (the name and ids aside)."""
    out = {f.name: getattr(a, f.name) for f in fields(NewActivity)
           if f.metadata.get("column", True) and f.name != "name"}
    out.update(metrics=a.metrics, stream_channels=a.stream_channels)
    return out


async def test_rederive_brings_old_activities_to_the_current_engine(
        harness_factory: Any) -> None:
    async with harness_factory(worker="off") as h:
        fitness, store = h.services.fitness, h.services.fitness.store
        anna, ben, cleo = [await person(h, f"{n}@example.com") for n in ("anna", "ben", "cleo")]
        swim = (DATA / SWIM).read_bytes()
        # The oracle: the same file imported fresh today by Ben.
        fresh = (await fitness.import_file(ben, swim, "swim.fit"))[0].activity
        assert fresh is not None and fresh.engine_version == ENGINE_VERSION
        parsed = parse_activity(swim, "swim.fit")
        old = wrong(summary_of(parsed), "Pool with Dana")
        swim_id = await stale_file(h, anna, swim, "swim.fit", old)
        cleo_id = await stale_file(h, cleo, swim, "swim.fit", old)
        # A provider's activity (no file): its streams are kept, its metrics are ours.
        ride = parse_activity((DATA / RIDE).read_bytes(), "ride.fit")
        ride_new = replace(summary_of(ride), name="Lunch ride")
        blob = ride.streams.to_bytes()
        channels = ",".join(k for k in ride.streams.keys if ride.streams.has(k))
        provider_ref = SourceRef("provider", provider="strava", provider_activity_id="77",
                                 channels=len(channels.split(",")))
        ride_id = await store.insert(anna, ride_new, provider_ref, metrics=WRONG_METRICS,
                                     streams=blob, stream_channels=channels,
                                     samples=len(ride.streams), original=None,
                                     now=h.services.clock())
        await store.rederived(anna.user_id, ride_id, version=0, now=h.services.clock())
        # A file that no longer parses (an importer that now refuses it).
        broken = b"\x0e\x10" + os.urandom(200)
        broken_id = await stale_file(h, anna, broken, "broken.fit", old)
        before = {i: await fitness.get(anna, i) for i in (swim_id, ride_id, broken_id)}

        report = await fitness.rederive(anna)
        assert (report.reparsed, report.recomputed, report.failed) == (1, 1, 1)

        swim_after = await fitness.get(anna, swim_id)
        assert figures(swim_after) == figures(fresh)
        assert swim_after.laps and swim_after.structure.get("swim")  # not empty
        assert (await fitness.streams(anna, swim_id, max_points=None)).to_bytes() == \
            (await fitness.streams(ben, fresh.id, max_points=None)).to_bytes()
        assert swim_after.id == swim_id and swim_after.name == "Pool with Dana"
        assert swim_after.sources == before[swim_id].sources
        assert swim_after.engine_version == ENGINE_VERSION and swim_after.rederive_error is None

        ride_after = await fitness.get(anna, ride_id)
        # As the stored streams give them (the stored form is rounded per channel).
        expected = compute(StreamSet.from_bytes(blob), ride_new, SettingsHistory([])).metrics
        assert ride_after.metrics == expected and ride_after.metrics["tss"] != 999.0
        assert figures(ride_after) | {"metrics": None} == \
            figures(before[ride_id]) | {"metrics": None}  # the provider's figures stay
        assert ride_after.sources == before[ride_id].sources
        assert ride_after.engine_version == ENGINE_VERSION

        broken_after = await fitness.get(anna, broken_id)
        assert figures(broken_after) == figures(before[broken_id])  # kept as it was
        assert broken_after.engine_version == ENGINE_VERSION  # not retried at each start
        assert broken_after.rederive_error and broken_after.rederive_error.startswith(
            ("corrupt", "unsupported_format", "truncated", "empty"))

        # Cleo's activity was not Anna's run's business.
        cleo_row = await fitness.get(cleo, cleo_id)
        assert cleo_row.engine_version == 0 and cleo_row.metrics == WRONG_METRICS

        # A second run finds nothing; the stamp is the progress.
        stamped = (await fitness.get(anna, swim_id)).updated_at
        assert (await fitness.rederive(anna)).total == 0
        assert (await fitness.get(anna, swim_id)).updated_at == stamped

        # Everyone's: Cleo's now, and nothing else.
        assert (await fitness.rederive_all()).total == 1
        assert figures(await fitness.get(cleo, cleo_id)) == figures(fresh)
        assert await store.stale_owners(ENGINE_VERSION) == []


async def test_a_run_cut_short_resumes_where_it_stopped(harness_factory: Any) -> None:
    """Bounded: ``limit`` re-derives that many; the next run does the rest."""
    async with harness_factory(worker="off") as h:
        fitness = h.services.fitness
        anna = await person(h, "anna@example.com")
        ids = []
        for name in ("fit/garmin-fenix-5-bike.fit", "fit/garmin-fenix-5-walk.fit",
                     "fit/2015-10-13-08-43-15.fit"):
            data = (DATA / name).read_bytes()
            ids.append(await stale_file(h, anna, data, Path(name).name,
                                        wrong(summary_of(parse_activity(data, name)), "x")))
        assert (await fitness.rederive(anna, limit=2)).total == 2
        stamps = [(await fitness.get(anna, i)).engine_version for i in ids]
        assert sorted(stamps, key=lambda v: v or 0) == [0, ENGINE_VERSION, ENGINE_VERSION]
        assert (await fitness.rederive(anna)).total == 1
        assert [(await fitness.get(anna, i)).engine_version for i in ids] == [ENGINE_VERSION] * 3


async def test_the_background_job_rederives_stale_activities(harness_factory: Any) -> None:
    """What the service queues at start: the job re-derives, batch by batch."""
    async with harness_factory() as h:
        fitness = h.services.fitness
        anna = await person(h, "anna@example.com")
        data = (DATA / SWIM).read_bytes()
        swim_id = await stale_file(h, anna, data, "swim.fit",
                                   wrong(summary_of(parse_activity(data, "s.fit")), "x"))
        assert h.services.jobs is not None
        await h.services.jobs.enqueue_rederive()

        async def stamped() -> bool:
            return (await fitness.get(anna, swim_id)).engine_version == ENGINE_VERSION

        await async_wait_for(stamped, 30, "the background re-derivation")
        assert (await fitness.get(anna, swim_id)).laps


def test_cli_db_rederive_counts_and_keeps_to_the_email(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pacekeeper db rederive [--email]`: in the foreground, with a count; --email
    leaves the others' activities alone; a second run does nothing."""
    from pacekeeper.cli import _settings, cli
    from pacekeeper.services import build_services
    from tests.pacekeeper.test_cli import MASTER

    for key, value in {"PACEKEEPER_DATA_DIR": str(tmp_path),
                       "SERVICE_MASTER_ENCRYPTION_KEY": MASTER,
                       "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
                       "PACEKEEPER_ARGON2_MEMORY_KIB": "1024",
                       "PACEKEEPER_ARGON2_TIME_COST": "1"}.items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    assert runner.invoke(cli, ["db", "upgrade"]).exit_code == 0
    ride = DATA / RIDE
    for email in ("anna@example.com", "ben@example.com"):
        assert runner.invoke(cli, ["user", "create", "--email", email,
                                   "--password", "pw-123456789"]).exit_code == 0
        assert runner.invoke(cli, ["import", "--email", email, str(ride)]).exit_code == 0

    async def make_stale() -> None:  # as if both were imported by engine 0
        services = await build_services(_settings())
        try:
            for email in ("anna@example.com", "ben@example.com"):
                user = await services.users.get_by_email(email)
                assert user is not None
                page = await services.fitness.store.activity_ids_since(user.id, None)
                for activity_id in page:
                    await services.fitness.store.rederived(
                        user.id, activity_id, version=0, now=datetime.now(UTC))
        finally:
            await services.close()

    asyncio.run(make_stale())
    first = runner.invoke(cli, ["db", "rederive", "--email", "Anna@Example.com"])
    assert first.exit_code == 0, first.output
    assert "re-derived 1 activities: 1 files parsed again" in first.output
    again = runner.invoke(cli, ["db", "rederive", "--email", "anna@example.com"])
    assert "re-derived 0 activities" in again.output
    rest = runner.invoke(cli, ["db", "rederive"])
    assert "re-derived 1 activities" in rest.output  # Ben's, untouched until now
    nobody = runner.invoke(cli, ["db", "rederive", "--email", "nobody@example.com"])
    assert nobody.exit_code == 2 and "no such user" in nobody.output
