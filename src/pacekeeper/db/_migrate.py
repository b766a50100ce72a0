"""Run the Alembic migrations in migrations/ (at start-up and by `pacekeeper db upgrade`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine


def _script_location() -> Path:
    # A source checkout keeps migrations/ at the repository root; a wheel ships them
    # inside the package as pacekeeper/_migrations.
    package_dir = Path(__file__).resolve().parent.parent
    for candidate in (package_dir.parent.parent / "migrations", package_dir / "_migrations"):
        if (candidate / "env.py").exists():
            return candidate
    raise RuntimeError("Alembic migrations directory not found")


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(_script_location()))
    return config


def _upgrade(connection: Connection, config: Config) -> None:
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def head_revisions() -> frozenset[str]:
    """The newest revision(s) of migrations/ (what `upgrade` brings the schema to)."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory.from_config(alembic_config()).get_heads())


async def applied_revisions(engine: AsyncEngine) -> frozenset[str]:
    """The revision(s) the database says it is at (empty before the first migration)."""
    from sqlalchemy import text

    async with engine.connect() as connection:
        try:
            rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
        except Exception:  # no alembic_version table yet; the driver's error kind varies
            return frozenset()
        return frozenset(str(row[0]) for row in rows)


# Several processes starting at once (a cluster, `serve --workers N`) would each create
# the same tables: on PostgreSQL they take turns under this advisory lock, held until the
# migration's transaction ends (the later ones then find the schema at head).
_MIGRATION_LOCK = 0x70616365  # "pace"


async def upgrade(engine: AsyncEngine) -> None:
    """Bring the schema to the newest revision (idempotent, one process at a time)."""
    from sqlalchemy import text

    config = alembic_config()
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                     {"key": _MIGRATION_LOCK})
        await connection.run_sync(_upgrade, config)


__all__ = ["alembic_config", "applied_revisions", "head_revisions", "upgrade"]
