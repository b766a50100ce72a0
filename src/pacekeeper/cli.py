"""`pacekeeper` command line: serve, import, import-export, admin create, user
create|disable, keys rotate, db upgrade."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from pydantic import ValidationError

from pacekeeper.config import Settings
from pacekeeper.db import Role, create_engine, upgrade
from pacekeeper.errors import ApiError
from pacekeeper.masterkey import MasterKeyError, resolve_master_key
from pacekeeper.services import Services, build_services

T = TypeVar("T")

cli = typer.Typer(help="Pacekeeper: multi-tenant fitness-data service.", no_args_is_help=True)
admin_cli = typer.Typer(help="Administrators.", no_args_is_help=True)
user_cli = typer.Typer(help="Users.", no_args_is_help=True)
keys_cli = typer.Typer(help="JWT signing keys.", no_args_is_help=True)
db_cli = typer.Typer(help="Database schema.", no_args_is_help=True)
cli.add_typer(admin_cli, name="admin")
cli.add_typer(user_cli, name="user")
cli.add_typer(keys_cli, name="keys")
cli.add_typer(db_cli, name="db")

Email = Annotated[str, typer.Option("--email", help="The account's email.")]
Password = Annotated[
    str,
    typer.Option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
                  help="Prompted for when omitted (keeps it out of the shell history)."),
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _settings() -> Settings:
    try:
        settings = Settings()
        resolve_master_key(
            settings.master_encryption_key.get_secret_value(),
            production=settings.is_production,
            data_dir=settings.data_dir,
        )
    except ValidationError as exc:
        # Name the setting and the rule, never the value (it may be a secret).
        problems = "; ".join(
            f"{err['loc'][0]}: {err['msg']}" if err["loc"] else str(err["msg"])
            for err in exc.errors(include_input=False)
        )
        raise _fail(f"invalid configuration: {problems}") from None
    except MasterKeyError as exc:
        raise _fail(str(exc)) from None
    return settings


def _with_services(action: Callable[[Services], Awaitable[T]]) -> T:
    async def run() -> T:
        services = await build_services(_settings())
        try:
            return await action(services)
        finally:
            await services.close()

    try:
        return asyncio.run(run())
    except ApiError as exc:
        raise _fail(exc.message) from None


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Default PACEKEEPER_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default PACEKEEPER_PORT.")] = None,
    workers: Annotated[int, typer.Option(
        min=1, max=64, help="Processes sharing the port (uvicorn's supervisor). More than "
                            "one needs PostgreSQL; metrics are summed over all of them.")] = 1,
) -> None:
    """Run the HTTP service (uvicorn with uvloop and httptools), shutting down gracefully
    on SIGTERM or SIGINT (docs/deploy.md)."""
    from pacekeeper import logredact
    from pacekeeper.ops import serve as run

    logredact.install()  # before uvicorn logs anything (create_app installs it too)
    settings = _settings()
    if workers > 1 and not settings.effective_database_url.startswith("postgresql"):
        raise _fail("several workers need a shared database: set PACEKEEPER_DATABASE_URL "
                    "to PostgreSQL (SQLite's in-process job queue and limits are per process)")
    run(settings, host=host or settings.host, port=port or settings.port, workers=workers)


@cli.command()
def worker() -> None:
    """Run a background worker (provider syncs, recomputations, the sync schedule) on
    the shared PostgreSQL queue, until SIGINT or SIGTERM. `pacekeeper serve` runs one
    itself unless PACEKEEPER_WORKER=off."""
    import signal

    from pacekeeper import logredact, memory
    from pacekeeper.jobs import stop_worker
    from pacekeeper.ops import configure_logging

    logredact.install()
    memory.fix_mmap_threshold()
    settings = _settings()
    configure_logging(settings.log_format)
    if not settings.effective_database_url.startswith("postgresql"):
        raise _fail("a separate worker needs the shared queue: set PACEKEEPER_DATABASE_URL "
                    "to PostgreSQL (with SQLite, `pacekeeper serve` runs the jobs itself)")

    async def action(services: Services) -> None:
        assert services.jobs is not None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        task = asyncio.create_task(services.jobs.work(services, name="worker"))
        waiter = asyncio.create_task(stop.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        await stop_worker(task)

    _with_services(action)


def _create(email: str, password: str, role: Role) -> None:
    async def action(services: Services) -> None:
        user = await services.accounts.register(email, password, role=role)
        typer.echo(f"created {role.value} {user.email} ({user.id})")

    _with_services(action)


@admin_cli.command("create")
def admin_create(email: Email, password: Password) -> None:
    """Create an administrator."""
    _create(email, password, Role.ADMIN)


@user_cli.command("create")
def user_create(email: Email, password: Password) -> None:
    """Create a user in a new personal tenant."""
    _create(email, password, Role.USER)


@cli.command("import")
def import_files(
    files: Annotated[list[Path], typer.Argument(help="FIT, GPX or TCX files (or .gz), or a "
                                                "Strava bulk-export zip.", exists=True,
                                                dir_okay=False, readable=True)],
    email: Annotated[str, typer.Option("--email", help="Whose activities they are.")],
) -> None:
    """Import activity files for a user, with a progress bar and one line per file."""
    from rich.progress import Progress

    from pacekeeper.fitness.importers import ImportRejected
    from pacekeeper.owner import Owner

    async def action(services: Services) -> dict[str, int]:
        user = await services.users.get_by_email(email.strip().lower())
        if user is None:
            raise ApiError("no such user")
        owner = Owner(user.id, user.tenant_id)
        counts = {"imported": 0, "merged": 0, "duplicate": 0, "rejected": 0}
        with Progress(transient=False) as progress:
            task = progress.add_task("importing", total=len(files))
            for path in files:
                try:
                    outcomes = await services.fitness.import_file(
                        owner, path.read_bytes(), path.name, bounded=False)
                except ImportRejected as exc:
                    progress.console.print(f"{path.name}: rejected: {exc.message}")
                    counts["rejected"] += 1
                else:
                    for o in outcomes:
                        if o.rejected is not None:
                            progress.console.print(f"{o.name}: rejected: {o.rejected.message}")
                            counts["rejected"] += 1
                            continue
                        state = ("duplicate" if o.duplicate else
                                 "merged" if o.merged else "imported")
                        assert o.activity is not None
                        progress.console.print(f"{o.name}: {state} ({o.activity.id})")
                        for warning in o.warnings:  # read in part (FIG-11)
                            progress.console.print(f"{o.name}: warning: {warning}")
                        counts[state] += 1
                progress.advance(task)
        return counts

    counts = _with_services(action)
    typer.echo(", ".join(f"{n} {state}" for state, n in counts.items()))
    if counts["rejected"] and counts["rejected"] == sum(counts.values()):
        raise typer.Exit(code=1)


@cli.command("import-export")
def import_export(
    file: Annotated[Path, typer.Argument(help="A whole-account export: Strava, Garmin "
                                         "Connect, Google Takeout (Fitbit) or Apple Health.",
                                         exists=True, dir_okay=False, readable=True)],
    email: Annotated[str, typer.Option("--email", help="Whose history it is.")],
) -> None:
    """Import a whole-account export for a user, as POST /api/imports does, here and
    now, with a progress bar; the same report at the end (docs/import.md)."""
    from rich.progress import Progress

    from pacekeeper.fitness.exports import status_json
    from pacekeeper.owner import Owner

    async def action(services: Services) -> dict[str, object]:
        exports = services.exports
        assert exports is not None
        user = await services.users.get_by_email(email.strip().lower())
        if user is None:
            raise ApiError("no such user")
        owner = Owner(user.id, user.tenant_id)
        exports.enqueue = None  # run here, not in a worker
        job = await exports.from_path(owner, file)
        with Progress(transient=False) as progress:
            bar = progress.add_task(f"importing {file.name}", total=None)
            running = asyncio.create_task(exports.run(owner, job.id))
            while not running.done():
                await asyncio.wait({running}, timeout=0.5)
                now = await exports.get(owner, job.id)
                progress.update(bar, completed=now.done, total=now.total or None)
            await running
        return status_json(await exports.get(owner, job.id), "")

    body = _with_services(action)
    report = body["report"]
    assert isinstance(report, dict)
    for item in report["rejected"]:
        typer.echo(f"{item['name']}: rejected: {item['error']}")
    typer.echo(f"{body['kind']}: {body['status']}; {report['imported']} imported, "
               f"{report['merged']} merged, {report['duplicates']} duplicates, "
               f"{report['days']} days, {report['rejected_total']} rejected")
    if body["status"] != "done":
        typer.echo(f"error: {body.get('error')}", err=True)
        raise typer.Exit(code=1)


@user_cli.command("recompute")
def user_recompute(email: Annotated[str, typer.Argument(help="The user's email.")]) -> None:
    """Recompute the stored metrics of every activity of a user from its streams: after
    an upgrade that changes a formula (TSS over the whole power series, best efforts
    measured from the first sample), what was stored before is computed again."""
    from pacekeeper.owner import Owner

    async def action(services: Services) -> int:
        user = await services.users.get_by_email(email.strip().lower())
        if user is None:
            raise ApiError("no such user")
        return await services.fitness.recompute(Owner(user.id, user.tenant_id))

    typer.echo(f"recomputed {_with_services(action)} activities")


@user_cli.command("disable")
def user_disable(email: Annotated[str, typer.Argument(help="The user's email.")]) -> None:
    """Disable a user: every token of theirs fails at once."""

    async def action(services: Services) -> bool:
        return await services.accounts.disable(email)

    if not _with_services(action):
        raise _fail("no such user")
    typer.echo(f"disabled {email}")


@keys_cli.command("rotate")
def keys_rotate() -> None:
    """New signing key now; the old one stays valid for the grace period."""

    async def action(services: Services) -> str:
        return await services.keys.rotate()

    try:
        kid = _with_services(action)
    except RuntimeError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"new signing key {kid}")


@keys_cli.command("rotate-master")
def keys_rotate_master() -> None:
    """Re-encrypt every provider token and signing key under the current master key.

    First make the new key current (SERVICE_MASTER_ENCRYPTION_KEY with a higher
    PACEKEEPER_MASTER_KEY_VERSION) and list the old one in PACEKEEPER_RETIRED_MASTER_KEYS.
    """
    import os

    from pacekeeper.connections import rotate_provider_tokens
    from pacekeeper.crypto import CryptoError

    settings = _settings()
    master_key = resolve_master_key(
        settings.master_encryption_key.get_secret_value(),
        production=settings.is_production,
        data_dir=settings.data_dir,
    )
    try:
        report = asyncio.run(rotate_provider_tokens(settings, master_key, os.environ))
    except CryptoError as exc:  # e.g. a malformed retired-key list; never the key itself
        raise _fail(str(exc)) from None
    typer.echo(
        f"rotated {report.rotated}, already current {report.already_current}, "
        f"changed concurrently {report.changed_concurrently}, failed {len(report.failed)}"
    )
    if report.failed:
        raise _fail("unreadable records: " + ", ".join(report.failed))

    async def signing_keys(services: Services) -> int:
        return services.keys.resealed  # opening the key store re-sealed what needed it

    typer.echo(f"signing keys re-sealed {_with_services(signing_keys)}")


@db_cli.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations."""
    settings = _settings()

    async def run() -> None:
        engine = create_engine(settings.effective_database_url)
        try:
            await upgrade(engine)
        finally:
            await engine.dispose()

    asyncio.run(run())
    typer.echo("database is up to date")


@db_cli.command("rederive")
def db_rederive(
    email: Annotated[str | None, typer.Option(
        "--email", help="Only this user's activities (default: everyone's).")] = None,
) -> None:
    """Re-derive, now, every activity an older engine computed (fitness/_engine.py):
    its kept file parsed again, or its metrics recomputed from its streams. What the
    service otherwise does in the background after an upgrade; a second run finds
    nothing to do."""
    from pacekeeper.owner import Owner

    async def action(services: Services) -> str:
        if email is None:
            report = await services.fitness.rederive_all()
        else:
            user = await services.users.get_by_email(email.strip().lower())
            if user is None:
                raise ApiError("no such user")
            report = await services.fitness.rederive(Owner(user.id, user.tenant_id))
        return (f"re-derived {report.total} activities: {report.reparsed} files parsed "
                f"again, {report.recomputed} recomputed from streams, {report.failed} "
                f"files unreadable (kept as they were)")

    typer.echo(_with_services(action))


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    cli()


__all__ = ["cli", "main"]
