"""The background job queue's tables on PostgreSQL (procrastinate's schema).

On PostgreSQL every process shares one queue in the service's own database
(pacekeeper.jobs); SQLite uses procrastinate's in-memory queue and gets nothing here.
The schema is procrastinate's own `schema.sql` of the pinned version; a later
procrastinate release that changes it comes with a migration of ours applying its
migration files.

Revision ID: 0011_job_queue
Revises: 0010_goals
Create Date: 2026-11-25
"""

from __future__ import annotations

from alembic import op
from procrastinate.schema import SchemaManager
from sqlalchemy.util import await_only

revision = "0011_job_queue"
down_revision = "0010_goals"
branch_labels = None
depends_on = None

_DROP = """
DROP TABLE IF EXISTS procrastinate_events, procrastinate_periodic_defers,
    procrastinate_jobs, procrastinate_workers CASCADE;
DO $$ DECLARE f record; BEGIN
  FOR f IN SELECT p.oid::regprocedure AS sig FROM pg_proc p
           JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = current_schema() AND p.proname LIKE 'procrastinate\\_%' LOOP
    EXECUTE 'DROP FUNCTION ' || f.sig || ' CASCADE';
  END LOOP;
END $$;
DROP TYPE IF EXISTS procrastinate_job_to_defer_v1, procrastinate_job_event_type,
    procrastinate_job_status CASCADE;
"""


def _script(sql: str) -> None:
    # Several statements at once: asyncpg's simple-query path (no prepared statement).
    raw = op.get_bind().connection.driver_connection
    assert raw is not None
    await_only(raw.execute(sql))


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _script(SchemaManager.get_schema())


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _script(_DROP)
