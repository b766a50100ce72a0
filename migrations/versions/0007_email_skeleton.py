"""Email skeletons (TS #39): a look-alike twin of an existing address is refused.

Revision ID: 0007_email_skeleton
Revises: 0006_fitness
Create Date: 2026-11-24

Existing rows get the skeleton of their stored email; when an older row already has
that skeleton (twins registered before this migration), the later row keeps NULL (the
unique index allows many NULLs) and both accounts go on working.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from pacekeeper.confusables import skeleton

revision = "0007_email_skeleton"
down_revision = "0006_fitness"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("email_skeleton", sa.String(1280), nullable=True))
    users = sa.table("users", sa.column("id", sa.Uuid()), sa.column("email", sa.String()),
                     sa.column("created_at", sa.DateTime(timezone=True)),
                     sa.column("email_skeleton", sa.String()))
    bind = op.get_bind()
    seen: set[str] = set()
    rows = bind.execute(sa.select(users.c.id, users.c.email)
                        .order_by(users.c.created_at, users.c.id)).all()
    for user_id, email in rows:
        value = skeleton(email)
        if value in seen:
            continue
        seen.add(value)
        bind.execute(users.update().where(users.c.id == user_id).values(email_skeleton=value))
    op.create_index("ix_users_email_skeleton", "users", ["email_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_users_email_skeleton", "users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("email_skeleton")
