"""Storage: SQLAlchemy 2 async models, repositories behind Protocols, migrations."""

from pacekeeper.db._engine import AsyncSession, create_engine, session_factory, upsert_insert
from pacekeeper.db._functions import epoch_seconds
from pacekeeper.db._migrate import alembic_config, upgrade
from pacekeeper.db._models import (
    Base,
    CsrfTokenRow,
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

__all__ = [
    "AsyncSession",
    "AuthState",
    "Base",
    "CsrfRecord",
    "CsrfTokenRepository",
    "CsrfTokenRow",
    "DuplicateEmailError",
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
    "create_engine",
    "epoch_seconds",
    "session_factory",
    "upgrade",
    "upsert_insert",
]
