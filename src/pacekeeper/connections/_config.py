"""Which provider settings the service runs with (PROV-7).

A provider with any of ``<PROVIDER>_CLIENT_ID``, ``_CLIENT_SECRET``, ``_REDIRECT_URI``
set must have all three, and a redirect URI that is https (http only for localhost or
127.0.0.1): anything else raises ``ProviderConfigError`` and the service refuses to
start. In development a provider with none of them talks to the built-in sandbox,
mounted at ``/sandbox``, so a newcomer can connect all three without credentials.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from pacekeeper.config import Settings
from pacekeeper.providers import (
    ENV_SANDBOX_BASE,
    PROVIDER_IDS,
    ProviderConfigError,
    ProviderSettings,
)
from pacekeeper.providers import PROVIDERS as SPECS

PROVIDERS = PROVIDER_IDS  # a live view of the registry's ids, in its order
SANDBOX_PATH = "/sandbox"


@dataclass(frozen=True, slots=True)
class ProviderSetup:
    settings: dict[str, ProviderSettings] = field(default_factory=dict)
    # True when at least one provider points at the built-in sandbox (mount it).
    sandbox: bool = False
    # The providers any sandbox serves (this one, or one at PACEKEEPER_PROVIDER_BASE_URL):
    # their athletes are synthetic, no provider's terms apply to their data.
    sandboxed: frozenset[str] = frozenset()


def callback_url(settings: Settings, provider: str) -> str:
    return f"{settings.public_base_url}/api/oauth/callback/{provider}"


def legacy_providers(settings: Settings) -> frozenset[str]:
    """PACEKEEPER_PROVIDER_LEGACY_APIS: providers whose retired API is still spoken."""
    named = {p.strip() for p in settings.provider_legacy_apis.split(",") if p.strip()}
    for provider in named:
        spec = SPECS.get(provider)
        if spec is None or spec.legacy is None:
            raise ProviderConfigError(provider, "PACEKEEPER_PROVIDER_LEGACY_APIS names a "
                                      "provider without a retired API")
    return frozenset(named)


def provider_setup(settings: Settings, environ: Mapping[str, str]) -> ProviderSetup:
    found: dict[str, ProviderSettings] = {}
    sandboxed: set[str] = set()  # the built-in sandbox's (mounted here)
    emulated: set[str] = set()  # a sandbox's served from elsewhere
    legacy = legacy_providers(settings)
    for spec in SPECS.values():
        provider = spec.id
        names = [f"{provider.upper()}_{n}" for n in ("CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI")]
        if any(environ.get(name) for name in names):
            found[provider] = ProviderSettings.from_env(provider, environ,
                                                        legacy=provider in legacy)
            if environ.get(ENV_SANDBOX_BASE):  # a sandbox elsewhere (its own process)
                emulated.add(provider)
        elif settings.provider_sandbox and not settings.is_production:
            try:
                found[provider] = ProviderSettings.for_sandbox(
                    provider,
                    settings.public_base_url + SANDBOX_PATH,
                    redirect_uri=callback_url(settings, provider),
                    legacy=provider in legacy,
                )
            except ProviderConfigError:
                raise ProviderConfigError(
                    provider,
                    "the sandbox callback must be https or on localhost/127.0.0.1: "
                    "set PACEKEEPER_BASE_URL (e.g. http://127.0.0.1:8080)",
                ) from None
            sandboxed.add(provider)
        if provider in found and spec.auth == "oauth1+oauth2":
            # PACEKEEPER_GARMIN_OAUTH_VERSION: the one switch between the two flavours.
            version: Literal[1, 2] = 1 if settings.garmin_oauth_version == 1 else 2
            found[provider] = replace(found[provider], oauth_version=version)
    for provider in found:
        webhook = SPECS[provider].webhook
        if webhook is not None:
            webhook.check(settings)  # what production needs of it (Garmin: a secret)
    return ProviderSetup(found, bool(sandboxed), frozenset(sandboxed | emulated))


__all__ = ["PROVIDERS", "SANDBOX_PATH", "ProviderSetup", "callback_url", "legacy_providers",
           "provider_setup"]
