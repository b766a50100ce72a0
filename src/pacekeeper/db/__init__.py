"""Storage: SQLAlchemy 2 async models, repositories behind Protocols, migrations."""

from pacekeeper.db._engine import (
    AsyncSession,
    create_engine,
    reading,
    reading_sessions,
    session_factory,
    upsert_insert,
)
from pacekeeper.db._functions import epoch_seconds
from pacekeeper.db._migrate import alembic_config, applied_revisions, head_revisions, upgrade
from pacekeeper.db._models import (
    Base,
    CsrfTokenRow,
    QueuedJobRow,
    RevokedTokenRow,
    SigningKeyRow,
    TenantRow,
    UserRow,
)
from pacekeeper.db._protocols import CsrfTokenRepository, SigningKeyRepository, UserRepository
from pacekeeper.db._records import (
    AuthState,
    CsrfRecord,
    DuplicateEmailError,
    Role,
    SigningKey,
    Tenant,
    User,
    UserStatus,
)
from pacekeeper.db._revoked import SqlRevokedTokens
from pacekeeper.db._sql import SqlCsrfTokenRepository, SqlSigningKeyRepository, SqlUserRepository
from pacekeeper.db._tracing import trace_statements
from pacekeeper.db._wait import DatabaseUnavailable, wait_for_database

__all__ = [
    "AsyncSession",
    "AuthState",
    "Base",
    "CsrfRecord",
    "CsrfTokenRepository",
    "CsrfTokenRow",
    "DatabaseUnavailable",
    "DuplicateEmailError",
    "QueuedJobRow",
    "RevokedTokenRow",
    "Role",
    "SigningKey",
    "SigningKeyRepository",
    "SigningKeyRow",
    "SqlCsrfTokenRepository",
    "SqlRevokedTokens",
    "SqlSigningKeyRepository",
    "SqlUserRepository",
    "Tenant",
    "TenantRow",
    "User",
    "UserRepository",
    "UserRow",
    "UserStatus",
    "alembic_config",
    "applied_revisions",
    "create_engine",
    "epoch_seconds",
    "head_revisions",
    "reading",
    "reading_sessions",
    "session_factory",
    "trace_statements",
    "upgrade",
    "upsert_insert",
    "wait_for_database",
]
