"""Where an athlete setting's value came from (issue 27 item 10).

A value a provider's athlete API gave (Strava's FTP and weight), imported on sync, names
that provider in ``source``; a value the person set has none. A person's own value always
wins: a sync imports a provider's only for a setting the person has never set.

Revision ID: 0018_setting_source
Revises: 0017_queued_jobs
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_setting_source"
down_revision = "0017_queued_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("athlete_settings") as batch:
        batch.add_column(sa.Column("source", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("athlete_settings") as batch:
        batch.drop_column("source")
