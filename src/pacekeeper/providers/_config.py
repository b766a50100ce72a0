"""Client settings of one provider (PROV-7) and where its endpoints live.

``<PROVIDER>_CLIENT_ID``, ``_CLIENT_SECRET`` and ``_REDIRECT_URI`` come from the
environment. Endpoint URLs default to the real provider; ``PACEKEEPER_PROVIDER_BASE_URL``
(or :meth:`ProviderSettings.for_sandbox`) points all of them at the sandbox instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from ._errors import ProviderConfigError

ENV_SANDBOX_BASE = "PACEKEEPER_PROVIDER_BASE_URL"
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True, slots=True)
class Endpoints:
    authorize: str
    exchange: str  # the OAuth 2.0 token endpoint
    api: str
    revoke: str | None = None
    # OAuth 1.0a (Garmin legacy) only: request-token, user-authorization, access-token URLs
    oauth1_request: str | None = None
    oauth1_authorize: str | None = None
    oauth1_access: str | None = None


DEFAULT_ENDPOINTS: dict[str, Endpoints] = {
    "strava": Endpoints(
        authorize="https://www.strava.com/oauth/authorize",
        exchange="https://www.strava.com/oauth/token",
        revoke="https://www.strava.com/oauth/deauthorize",
        api="https://www.strava.com/api/v3",
    ),
    "fitbit": Endpoints(
        authorize="https://www.fitbit.com/oauth2/authorize",
        exchange="https://api.fitbit.com/oauth2/token",
        revoke="https://api.fitbit.com/oauth2/revoke",
        api="https://api.fitbit.com",
    ),
    "garmin": Endpoints(
        authorize="https://connect.garmin.com/oauth2Confirm",
        exchange="https://diauth.garmin.com/di-oauth2-service/oauth/token",
        api="https://apis.garmin.com",
        oauth1_request="https://connectapi.garmin.com/oauth-service/oauth/request_token",
        oauth1_authorize="https://connect.garmin.com/oauthConfirm",
        oauth1_access="https://connectapi.garmin.com/oauth-service/oauth/access_token",
    ),
}


def sandbox_endpoints(provider: str, base_url: str) -> Endpoints:
    """The same paths the sandbox serves under ``<base>/<provider>``."""
    root = f"{base_url.rstrip('/')}/{provider}"
    if provider == "strava":
        return Endpoints(
            authorize=f"{root}/oauth/authorize",
            exchange=f"{root}/oauth/token",
            revoke=f"{root}/oauth/deauthorize",
            api=f"{root}/api/v3",
        )
    if provider == "fitbit":
        return Endpoints(
            authorize=f"{root}/oauth2/authorize",
            exchange=f"{root}/oauth2/token",
            revoke=f"{root}/oauth2/revoke",
            api=root,
        )
    if provider == "garmin":
        return Endpoints(
            authorize=f"{root}/oauth2Confirm",
            exchange=f"{root}/di-oauth2-service/oauth/token",
            api=root,
            oauth1_request=f"{root}/oauth-service/oauth/request_token",
            oauth1_authorize=f"{root}/oauthConfirm",
            oauth1_access=f"{root}/oauth-service/oauth/access_token",
        )
    raise ProviderConfigError(provider, "unknown provider")


def check_redirect_uri(provider: str, uri: str) -> None:
    """PROV-7: https everywhere, plain http only for localhost and 127.0.0.1."""
    parts = urlsplit(uri)
    if parts.fragment or not parts.hostname:
        raise ProviderConfigError(provider, "redirect URI must be absolute, without fragment")
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and parts.hostname in _LOCAL_HOSTS:
        return
    raise ProviderConfigError(
        provider, "redirect URI must be https (http only for localhost or 127.0.0.1)"
    )


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    provider: str
    client_id: str
    client_secret: str = field(repr=False)
    redirect_uri: str
    endpoints: Endpoints
    scopes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.client_id or not self.client_secret:
            raise ProviderConfigError(self.provider, "client id and secret are required")
        check_redirect_uri(self.provider, self.redirect_uri)

    @classmethod
    def from_env(cls, provider: str, environ: Mapping[str, str]) -> ProviderSettings:
        prefix = provider.upper()
        missing = [
            f"{prefix}_{n}"
            for n in ("CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI")
            if not environ.get(f"{prefix}_{n}")
        ]
        if missing:
            raise ProviderConfigError(provider, f"missing settings: {', '.join(missing)}")
        base = environ.get(ENV_SANDBOX_BASE)
        if provider not in DEFAULT_ENDPOINTS:
            raise ProviderConfigError(provider, "unknown provider")
        endpoints = sandbox_endpoints(provider, base) if base else DEFAULT_ENDPOINTS[provider]
        return cls(
            provider=provider,
            client_id=environ[f"{prefix}_CLIENT_ID"],
            client_secret=environ[f"{prefix}_CLIENT_SECRET"],
            redirect_uri=environ[f"{prefix}_REDIRECT_URI"],
            endpoints=endpoints,
        )

    @classmethod
    def for_sandbox(
        cls,
        provider: str,
        base_url: str,
        *,
        client_id: str = "sandbox-client",
        client_secret: str = "sandbox-secret",  # noqa: S107 - the sandbox's public test secret
        redirect_uri: str = "http://127.0.0.1:8000/api/oauth/callback/{provider}",
    ) -> ProviderSettings:
        return cls(
            provider=provider,
            client_id=client_id,
            client_secret=client_secret,
            redirect_uri=redirect_uri.format(provider=provider),
            endpoints=sandbox_endpoints(provider, base_url),
        )

    def with_scopes(self, *scopes: str) -> ProviderSettings:
        return replace(self, scopes=scopes)
