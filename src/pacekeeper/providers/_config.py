"""Client settings of one provider (PROV-7) and where its endpoints live.

``<PROVIDER>_CLIENT_ID``, ``_CLIENT_SECRET`` and ``_REDIRECT_URI`` come from the
environment. Endpoint URLs default to the real provider; ``PACEKEEPER_PROVIDER_BASE_URL``
(or :meth:`ProviderSettings.for_sandbox`) points all of them at the sandbox instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from ._errors import ProviderConfigError

if TYPE_CHECKING:
    from ._spec import ProviderSpec

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

    def under(self, root: str) -> Endpoints:
        """Every URL prefixed with ``root`` (a spec's sandbox paths are relative)."""
        urls = {k: v for k, v in asdict(self).items() if v is not None}
        return Endpoints(**{k: f"{root}{v}" for k, v in urls.items()})


def _spec(provider: str) -> ProviderSpec:
    # Imported here: the registry imports every provider's client, which imports this.
    from .registry import PROVIDERS

    spec = PROVIDERS.get(provider)
    if spec is None:
        raise ProviderConfigError(provider, "unknown provider")
    return spec


def sandbox_endpoints(provider: str, base_url: str, *, legacy: bool = False) -> Endpoints:
    """The same paths the sandbox serves under ``<base>/<provider>``."""
    return _spec(provider).sandbox_endpoints(base_url, legacy=legacy)


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
    # For a provider that speaks both OAuth 1.0a and 2.0 (auth "oauth1+oauth2"): which.
    oauth_version: Literal[1, 2] = 2
    # Its retired API (``ProviderSpec.legacy``), where an operator still configures it.
    legacy: bool = False

    def __post_init__(self) -> None:
        if not self.client_id or not self.client_secret:
            raise ProviderConfigError(self.provider, "client id and secret are required")
        check_redirect_uri(self.provider, self.redirect_uri)

    @classmethod
    def from_env(cls, provider: str, environ: Mapping[str, str], *, legacy: bool = False
                 ) -> ProviderSettings:
        prefix = provider.upper()
        missing = [
            f"{prefix}_{n}"
            for n in ("CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI")
            if not environ.get(f"{prefix}_{n}")
        ]
        if missing:
            raise ProviderConfigError(provider, f"missing settings: {', '.join(missing)}")
        base = environ.get(ENV_SANDBOX_BASE)
        spec = _spec(provider)
        if base:
            endpoints = spec.sandbox_endpoints(base, legacy=legacy)
        else:
            endpoints = spec.endpoints_for(legacy=legacy)
        return cls(
            provider=provider,
            client_id=environ[f"{prefix}_CLIENT_ID"],
            client_secret=environ[f"{prefix}_CLIENT_SECRET"],
            redirect_uri=environ[f"{prefix}_REDIRECT_URI"],
            endpoints=endpoints,
            legacy=legacy and spec.legacy is not None,
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
        legacy: bool = False,
    ) -> ProviderSettings:
        return cls(
            provider=provider,
            client_id=client_id,
            client_secret=client_secret,
            redirect_uri=redirect_uri.format(provider=provider),
            endpoints=sandbox_endpoints(provider, base_url, legacy=legacy),
            legacy=legacy and _spec(provider).legacy is not None,
        )

    def with_scopes(self, *scopes: str) -> ProviderSettings:
        return replace(self, scopes=scopes)
