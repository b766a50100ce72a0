"""The OAuth 2.0 authorization-code flow shared by Strava, Fitbit and Garmin (PROV-9)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import httpx

from ._config import ProviderSettings
from ._errors import ProviderRequestError, ProviderResponseError, ReconnectRequired
from ._http import ProviderHTTP, expect_dict
from ._tokens import AuthorizationStart, TokenSet, code_challenge, new_code_verifier

UserIdOf = Callable[[dict[str, Any]], str | None]


class OAuth2Flow:
    def __init__(
        self,
        settings: ProviderSettings,
        http: ProviderHTTP,
        *,
        pkce: bool,
        basic_auth: bool,
        scope_separator: str,
        default_scopes: Sequence[str],
        extra_authorize_params: Mapping[str, str] | None = None,
        user_id_of: UserIdOf = lambda body: None,
    ) -> None:
        self.settings = settings
        self.http = http
        self.pkce = pkce
        self.basic_auth = basic_auth
        self.scope_separator = scope_separator
        self.default_scopes = tuple(default_scopes)
        self.extra = dict(extra_authorize_params or {})
        self.user_id_of = user_id_of

    def start(self, state: str, scopes: Sequence[str] | None = None) -> AuthorizationStart:
        chosen = tuple(scopes or self.settings.scopes or self.default_scopes)
        params = {
            "client_id": self.settings.client_id,
            "redirect_uri": self.settings.redirect_uri,
            "response_type": "code",
            "scope": self.scope_separator.join(chosen),
            "state": state,
            **self.extra,
        }
        verifier = None
        if self.pkce:
            verifier = new_code_verifier()
            params["code_challenge"] = code_challenge(verifier)
            params["code_challenge_method"] = "S256"
        url = f"{self.settings.endpoints.authorize}?{urlencode(params)}"
        return AuthorizationStart(url=url, state=state, code_verifier=verifier)

    async def complete(self, start: AuthorizationStart, callback: Mapping[str, str]) -> TokenSet:
        if callback.get("error"):
            # The user pressed "deny": nothing to exchange, and nothing is stored.
            raise ReconnectRequired(self.settings.provider, "authorization was denied")
        code = callback.get("code")
        if not code:
            raise ProviderRequestError(self.settings.provider, "callback carries no code")
        return await self.exchange_code(code, code_verifier=start.code_verifier)

    async def exchange_code(self, code: str, *, code_verifier: str | None = None) -> TokenSet:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.settings.redirect_uri,
        }
        if self.pkce:
            if not code_verifier:
                raise ProviderRequestError(self.settings.provider, "PKCE verifier missing")
            form["code_verifier"] = code_verifier
        return self._parse(await self._token_request(form), previous=None)

    async def refresh(self, token: TokenSet) -> TokenSet:
        if not token.refresh_token:
            raise ReconnectRequired(self.settings.provider, "no refresh token stored")
        form = {"grant_type": "refresh_token", "refresh_token": token.refresh_token}
        return self._parse(await self._token_request(form), previous=token)

    async def revoke(self, token: TokenSet, *, field: str = "token") -> None:
        url = self.settings.endpoints.revoke
        if url is None:
            return
        await self.http.request(
            "POST", url, data={field: token.access_token}, auth=self._auth(), token_endpoint=True
        )

    def _auth(self) -> httpx.Auth | None:
        if self.basic_auth:
            return httpx.BasicAuth(self.settings.client_id, self.settings.client_secret)
        return None

    async def _token_request(self, form: dict[str, str]) -> dict[str, Any]:
        if not self.basic_auth:
            form = {
                **form,
                "client_id": self.settings.client_id,
                "client_secret": self.settings.client_secret,
            }
        elif self.pkce:
            form = {**form, "client_id": self.settings.client_id}
        body = await self.http.json(
            "POST",
            self.settings.endpoints.exchange,
            data=form,
            auth=self._auth(),
            token_endpoint=True,
        )
        return expect_dict(self.settings.provider, body)

    def _parse(self, body: dict[str, Any], previous: TokenSet | None) -> TokenSet:
        access = body.get("access_token")
        if not isinstance(access, str) or not access:
            raise ProviderResponseError(self.settings.provider, "token response lacks access_token")
        if isinstance(body.get("expires_at"), int | float):
            expires_at: float | None = float(body["expires_at"])
        elif isinstance(body.get("expires_in"), int | float):
            expires_at = time.time() + float(body["expires_in"])
        else:
            expires_at = None
        refresh = body.get("refresh_token")
        user_id = self.user_id_of(body) or (previous.provider_user_id if previous else None)
        scope = body.get("scope")
        return TokenSet(
            access_token=access,
            # Some providers rotate refresh tokens, some do not: keep the old one then.
            refresh_token=refresh
            if isinstance(refresh, str)
            else (previous.refresh_token if previous else None),
            expires_at=expires_at,
            token_type=str(body.get("token_type") or "Bearer"),
            scope=scope if isinstance(scope, str) else None,
            provider_user_id=user_id,
        )
