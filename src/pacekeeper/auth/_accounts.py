"""Accounts: registration, password login, disabling, the first admin (ACC-1..9)."""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import unicodedata
import uuid
from collections.abc import Callable
from datetime import datetime

import email_validator as _email_validator
from email_validator import EmailNotValidError

from pacekeeper.auth._passwords import PasswordHasher
from pacekeeper.db import DuplicateEmailError, Role, Tenant, User, UserRepository, UserStatus
from pacekeeper.errors import Conflict, ValidationFailed

log = logging.getLogger("pacekeeper.accounts")

MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
MAX_EMAIL_CHARS = 254
MAX_DISPLAY_NAME_CHARS = 200
# Pragmatic address check: one @, no spaces or control characters, a dot in the domain.
EMAIL_PATTERN = r"^[^@\s\x00-\x1f\x7f]+@[^@\s\x00-\x1f\x7f]+\.[^@\s\x00-\x1f\x7f]+$"
_EMAIL = re.compile(EMAIL_PATTERN)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _checked(email: str) -> str:
    """NFKC (fullwidth and other compatibility forms fold to their plain letters), then
    `email-validator` (syntax, IDNA domain, and refusal of invisible and other unsafe
    characters), then lower case: emails are compared case-insensitively."""
    text = unicodedata.normalize("NFKC", email.strip())
    if len(text) > MAX_EMAIL_CHARS or not _EMAIL.match(text):
        raise EmailNotValidError("not an address")
    found = _email_validator.validate_email(
        text, check_deliverability=False, globally_deliverable=False
    )
    return str(found.normalized).lower()


def normalize_email(email: str) -> str:
    """The form an email is stored and looked up in (login matches this form); an
    invalid address keeps a plain folded form, which matches no stored account."""
    try:
        return _checked(email)
    except EmailNotValidError:
        return unicodedata.normalize("NFKC", email.strip()).lower()


def validate_email(email: str) -> str:
    """The normalised email, or 400 (zero-width and other invisible characters too)."""
    try:
        normalized = _checked(email)
    except EmailNotValidError:
        raise ValidationFailed(
            "email must be a valid address of at most 254 characters"
        ) from None
    if len(normalized) > MAX_EMAIL_CHARS:
        raise ValidationFailed("email must be a valid address of at most 254 characters")
    return normalized


def validate_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_CHARS:
        raise ValidationFailed(f"password must be at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise ValidationFailed(f"password must be at most {MAX_PASSWORD_CHARS} characters")
    if len(set(password)) < 3:
        raise ValidationFailed("password is too weak: use more different characters")


def validate_display_name(name: str | None) -> str | None:
    if name is None:
        return None
    cleaned = name.strip()
    if len(cleaned) > MAX_DISPLAY_NAME_CHARS or _CONTROL.search(cleaned):
        raise ValidationFailed(
            f"display_name must be at most {MAX_DISPLAY_NAME_CHARS} printable characters"
        )
    return cleaned or None


def _name_digest(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode(errors="replace")).hexdigest()[:12]


class Accounts:
    def __init__(
        self,
        users: UserRepository,
        hasher: PasswordHasher,
        clock: Callable[[], datetime],
        default_plan: str = "free",
    ) -> None:
        self._users = users
        self._hasher = hasher
        self._clock = clock
        self._plan = default_plan

    async def register(
        self,
        email: str,
        password: str,
        display_name: str | None = None,
        role: Role = Role.USER,
        tenant_id: uuid.UUID | None = None,
    ) -> User:
        """Create a user in `tenant_id`, or in a new personal tenant. 409 on a taken email."""
        normalized = validate_email(email)
        validate_password(password)
        name = validate_display_name(display_name)
        now = self._clock()
        tenant: Tenant | None = None
        if tenant_id is None:
            tenant = Tenant(
                id=uuid.uuid4(),
                name=name or normalized,
                slug="t-" + secrets.token_hex(8),
                plan=self._plan,
                rate_limit_per_minute=None,
                created_at=now,
            )
            tenant_id = tenant.id
        elif await self._users.get_tenant(tenant_id) is None:
            raise ValidationFailed("tenant_id names no tenant")
        user = User(
            id=uuid.uuid4(),
            email=normalized,
            password_hash=await self._hasher.hash(password),
            display_name=name,
            role=role,
            status=UserStatus.ACTIVE,
            tenant_id=tenant_id,
            created_at=now,
            last_login_at=None,
            token_version=0,
        )
        try:
            await self._users.create_with_tenant(user, tenant)
        except DuplicateEmailError:
            raise Conflict("a user with this email already exists") from None
        log.info("registered user %s (role %s)", user.id, role.value)
        return user

    async def authenticate(self, email: str, password: str) -> User | None:
        """The active user for these credentials, else None: same work either way (ACC-6)."""
        user = None
        if len(password) <= MAX_PASSWORD_CHARS and len(email) <= MAX_EMAIL_CHARS:
            user = await self._users.get_by_email(normalize_email(email))
        if user is None:
            await self._hasher.burn(password[:MAX_PASSWORD_CHARS])
            # Never the typed name itself (a password typed into the wrong field would
            # land in the log): a digest that still groups one name's attempts.
            log.info("sign-in refused: no such account (name %s)", _name_digest(email))
            return None
        if not await self._hasher.verify(user.password_hash, password):
            log.info("sign-in refused: wrong password for user %s", user.id)
            return None
        if user.status is not UserStatus.ACTIVE:
            log.info("sign-in refused: user %s is %s", user.id, user.status.value)
            return None
        log.info("sign-in of user %s", user.id)
        new_hash = None
        if self._hasher.needs_rehash(user.password_hash):
            new_hash = await self._hasher.hash(password)
            log.info("rehashed the password of user %s with current parameters", user.id)
        await self._users.record_login(user.id, self._clock(), new_hash)
        return user

    async def verify_password(self, user: User, password: str) -> bool:
        """Whether `password` is this user's (for confirming a sensitive change)."""
        if len(password) > MAX_PASSWORD_CHARS:
            return False
        return await self._hasher.verify(user.password_hash, password)

    async def hash_password(self, password: str) -> str:
        """The stored form of a new password, after the same rules as registration."""
        validate_password(password)
        return await self._hasher.hash(password)

    def close(self) -> None:
        self._hasher.close()

    async def disable(self, email: str) -> bool:
        user = await self._users.get_by_email(normalize_email(email))
        if user is None:
            return False
        return await self._users.disable(user.id)

    async def ensure_first_admin(self, email: str, password: str) -> User | None:
        """Create the admin from the environment once, only on an empty database (ACC-9)."""
        if not email or not password or await self._users.count() > 0:
            return None
        try:
            return await self.register(email, password, role=Role.ADMIN)
        except Conflict:  # another process won the race
            return None


__all__ = [
    "EMAIL_PATTERN",
    "MAX_PASSWORD_CHARS",
    "MIN_PASSWORD_CHARS",
    "Accounts",
    "normalize_email",
    "validate_email",
    "validate_password",
]
