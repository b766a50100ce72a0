"""Service settings: one pydantic-settings model, read from the environment.

The spec's own variable names (`SERVICE_MASTER_ENCRYPTION_KEY`, `JWT_EXPIRY_HOURS`) are
kept exactly; everything else is `PACEKEEPER_*`. docs/service.md has the full table.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Environment(StrEnum):
    DEVELOPMENT = "development"
    PRODUCTION = "production"


class RegistrationMode(StrEnum):
    """Who may create accounts over HTTP: anyone (`open`), admins only (`admin`, invite
    only), or nobody (`closed`; `pacekeeper user create` still works). An admin can
    change it at run time (stored, pacekeeper.admin); this is the default until then."""

    OPEN = "open"
    ADMIN = "admin"
    CLOSED = "closed"


class PasswordScheme(StrEnum):
    ARGON2ID = "argon2id"
    BCRYPT = "bcrypt"


class JwtAlgorithm(StrEnum):
    RS256 = "RS256"
    HS256 = "HS256"


class Settings(BaseSettings):
    """Every knob of the service; field name `x` is read from `PACEKEEPER_X`."""

    model_config = SettingsConfigDict(
        env_prefix="PACEKEEPER_", populate_by_name=True, extra="ignore", frozen=True
    )

    env: Environment = Environment.DEVELOPMENT
    data_dir: Path = Path("./data")
    # Empty means SQLite at <data_dir>/pacekeeper.db.
    database_url: str = ""
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    # Public base URL (issuer, resource metadata); empty means http://host:port.
    base_url: str = ""
    registration: RegistrationMode = RegistrationMode.ADMIN
    admin_email: str = ""
    admin_password: SecretStr = SecretStr("")
    tenant_rate_limit_per_minute: int = Field(default=600, ge=1)
    # Live feeds (`/mcp/topics/user.<id>`) one person may hold open in one process
    # (issue 28: 400 were accepted); one a browser tab on the Connections page.
    live_feeds_per_user: int = Field(default=10, ge=1)
    # Password grant and login form (finding 1, docs/security.md): attempts per minute
    # from one address, and on one account from one address.
    login_limit_per_address: int = Field(default=30, ge=1)
    login_limit_per_account: int = Field(default=5, ge=1)
    # Registration: the same two buckets (admins registering users are not limited).
    register_limit_per_address: int = Field(default=10, ge=1)
    register_limit_per_account: int = Field(default=3, ge=1)
    max_body_bytes: int = Field(default=1_048_576, ge=1024)
    # Activity files (FIT/GPX/TCX, gzip, a bulk-export zip): larger ones are 413; also the
    # bound on what a compressed file may unpack to.
    max_import_bytes: int = Field(default=50 * 1024 * 1024, ge=1024)
    # What one person's imports may cost (HTTP and MCP; the CLI is not bounded): files
    # per minute, an archive counting as the whole minute's worth (429 past it), and the
    # wall-clock time one archive import may take before the rest is not imported.
    # A whole-account export (POST /api/imports; Strava, Garmin, Google, Apple): the
    # upload is streamed to disk under data_dir/imports, larger ones are 413.
    max_export_bytes: int = Field(default=8 * 1024**3, ge=1024)
    import_limit_per_minute: int = Field(default=30, ge=1)
    import_archive_seconds: float = Field(default=60.0, gt=0)
    # Processes that parse and analyse imported files, off the event loop (issue 30;
    # started on the first import). 0: on a thread of the serving process, which stalls
    # every other request while it decodes. Imports past workers + queue are refused
    # with 429 and Retry-After, never queued without bound.
    import_workers: int = Field(default=1, ge=0, le=64)
    import_queue: int = Field(default=4, ge=0, le=1000)
    # Athlete settings changes per minute per person (each may recompute every activity
    # from its day on; the recomputes are coalesced as well).
    settings_limit_per_minute: int = Field(default=20, ge=1)
    # How far back a provider's first sync reaches for activities.
    sync_history_days: int = Field(default=365, ge=1, le=3650)
    # Background syncs of every connected person: a sync is queued when the last one
    # finished longer ago than this (docs/fitness.md, "Background work").
    sync_interval_minutes: int = Field(default=360, ge=5)
    # A running sync's claim expires when not renewed for this long (a crashed process's
    # sync is taken over after it); a provider's 429 is waited out up to half of it.
    sync_lease_seconds: float = Field(default=120.0, ge=5)
    # The background worker: "embedded" runs it inside `pacekeeper serve`; "off" leaves
    # the queue to separate `pacekeeper worker` processes (PostgreSQL only).
    worker: Literal["embedded", "off"] = "embedded"
    # Jobs one worker runs at once (syncs wait on providers most of the time).
    worker_concurrency: int = Field(default=4, ge=1, le=64)
    # A queue worker silent this long (no heartbeat: killed, frozen, cut off) is taken for
    # dead and its running jobs go back to the queue; every worker beats and looks for
    # such jobs every third of it (PostgreSQL only).
    worker_stalled_seconds: float = Field(default=30.0, ge=3)
    # Strava's webhook subscription: the verify_token we registered it with (empty: the
    # subscription handshake is refused).
    strava_webhook_verify_token: SecretStr = SecretStr("")
    # Redis shared by all processes (rate limits, API key usage); empty: in memory.
    redis_url: str = ""
    # How often each process adds its API key usage counts to the database.
    apikey_usage_flush_seconds: float = Field(default=5.0, gt=0)
    # Per-tier burst overrides as JSON, e.g. {"trial": 120}; unnamed tiers keep defaults.
    apikey_burst_per_minute: dict[str, int] = Field(default_factory=dict)
    # Keys per person (quotas are per key, so keys must not multiply them): live keys of
    # any tier, and trial keys created in the last 30 days, deleted ones included.
    apikey_max_live_keys_per_user: int = Field(default=10, ge=1)
    apikey_max_trial_keys_per_user: int = Field(default=2, ge=0)

    # Operations (docs/deploy.md). Start-up waits this long for the database to accept
    # connections (bounded retry with backoff; 0: try once).
    database_wait_seconds: float = Field(default=30.0, ge=0)
    # Shutdown: how long in-flight requests and background jobs get to finish.
    shutdown_grace_seconds: float = Field(default=20.0, gt=0)
    # GET /metrics: empty means only direct loopback callers (no proxy in between); set,
    # any caller presenting `Authorization: Bearer <token>`.
    metrics_token: SecretStr = SecretStr("")
    # Log lines: "text" (one human line) or "json" (one object per line, with request ids).
    log_format: Literal["text", "json"] = "text"

    master_encryption_key: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices(
            "SERVICE_MASTER_ENCRYPTION_KEY", "master_encryption_key"
        ),
    )

    password_scheme: PasswordScheme = PasswordScheme.ARGON2ID
    # OWASP Password Storage Cheat Sheet minimum for Argon2id: m=19 MiB, t=2, p=1.
    argon2_time_cost: int = Field(default=2, ge=1)
    argon2_memory_kib: int = Field(default=19_456, ge=8)
    argon2_parallelism: int = Field(default=1, ge=1)
    bcrypt_rounds: int = Field(default=12, ge=4, le=31)

    jwt_algorithm: JwtAlgorithm = JwtAlgorithm.RS256
    jwt_expiry_hours: float = Field(
        default=24, gt=0, validation_alias=AliasChoices("JWT_EXPIRY_HOURS", "jwt_expiry_hours")
    )
    # 4096 in production; tests use 2048 (JWT-1).
    jwt_rsa_key_bits: int = Field(default=4096, ge=2048)
    # Legacy HS256 secret (64 bytes, base64 or hex). Empty: derived from the master key.
    jwt_hs256_secret: SecretStr = SecretStr("")
    # How long a retired signing key stays published and accepted.
    jwt_rotation_grace_hours: float = Field(default=25, gt=0)
    # Scheduled rotation: rotate when the current key is this old (0 disables).
    jwt_rotation_days: float = Field(default=30, ge=0)
    jwt_issuer: str = ""

    # OAuth 2.0 authorization server (docs/oauth.md).
    oauth_access_token_minutes: float = Field(default=60, gt=0)
    oauth_refresh_token_days: float = Field(default=30, gt=0)
    # Comma-separated IPs/CIDRs whose X-Forwarded-For is believed (per-IP limits).
    trusted_proxies: str = ""
    # Provider connections (docs/providers.md). In development, providers without
    # <PROVIDER>_CLIENT_ID/... talk to the sandbox mounted at /sandbox.
    provider_sandbox: bool = True
    # How many days of history the mounted sandbox serves per athlete.
    sandbox_history_days: int = Field(default=365, ge=1, le=3650)
    # The activity page's map: tiles from this server ({z}/{x}/{y}, optional {s}), with
    # its required attribution. Only this tile host is let into the page's img-src; where
    # the tiles cannot be reached the route is drawn on its own.
    map_tile_url: str = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    map_tile_attribution: str = "\u00a9 OpenStreetMap contributors"
    # Refresh provider tokens this long before they expire (PROV-6).
    provider_refresh_margin_seconds: float = Field(default=300, ge=0)
    # How long a provider authorization (the `state`) may take.
    provider_state_ttl_seconds: float = Field(default=600, gt=0)
    # Fair share of a provider's (application-wide) quota: a tenant may use at most this
    # fraction of what it can still reach in each window (1 = no per-tenant limit).
    provider_tenant_share: float = Field(default=0.5, gt=0, le=1)
    # Providers (comma-separated ids) whose retired API is still spoken instead of the
    # current one (docs/providers.md): empty, the default, means none.
    provider_legacy_apis: str = ""
    # Garmin: 2 = OAuth 2.0 + PKCE (current API), 1 = OAuth 1.0a (legacy Health API).
    garmin_oauth_version: int = Field(default=2, ge=1, le=2)
    # Shared secret expected as `?secret=` on the Garmin webhook URLs (empty: none).
    garmin_webhook_secret: SecretStr = SecretStr("")
    # Garmin webhook deliveries per minute from one client address (429 past it).
    garmin_webhook_limit_per_minute: int = Field(default=300, ge=1)
    # The operator's agreement with a provider that allows serving its data to
    # assistants (MCP, A2A), against its default terms (docs/providers.md): off, data
    # known only from it is shown to its owner but withheld from assistants.
    strava_ai_agreement: bool = False
    garmin_ai_agreement: bool = False

    @field_validator("base_url", "jwt_issuer")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("map_tile_url")
    @classmethod
    def _tile_template(cls, value: str) -> str:
        # Checked at start-up: the page's img-src is made from its scheme and host.
        if not value.startswith(("https://", "http://")) or any(
                part not in value for part in ("{z}", "{x}", "{y}")):
            raise ValueError("PACEKEEPER_MAP_TILE_URL must be an http(s) URL with {z}, {x}, {y}")
        return value

    @model_validator(mode="after")
    def _production_key_size(self) -> Settings:
        # The spec asks for 4096-bit RSA keys in production (2048 only in tests).
        if self.env is Environment.PRODUCTION and self.jwt_rsa_key_bits < 4096:
            raise ValueError("PACEKEEPER_JWT_RSA_KEY_BITS must be at least 4096 in production")
        return self

    @property
    def is_production(self) -> bool:
        return self.env is Environment.PRODUCTION

    @property
    def public_base_url(self) -> str:
        return self.base_url or f"http://{self.host}:{self.port}"

    @property
    def issuer(self) -> str:
        return self.jwt_issuer or self.public_base_url

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'pacekeeper.db').resolve()}"

    @property
    def jwt_lifetime_seconds(self) -> int:
        return int(self.jwt_expiry_hours * 3600)


__all__ = ["Environment", "JwtAlgorithm", "PasswordScheme", "RegistrationMode", "Settings"]
