"""OAuth flows of all three providers against the in-process sandbox (PROV-4, PROV-9)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from pacekeeper.providers import (
    PROVIDERS,
    AccessTokenRejected,
    FitbitClient,
    GarminClient,
    ProviderClient,
    ProviderSettings,
    ReconnectRequired,
    StravaClient,
    code_challenge,
)
from pacekeeper.providers.sandbox import SandboxState

from ._helpers import BASE, FakeClock, connect, consent


def _client(provider: str, http: httpx.AsyncClient) -> ProviderClient:
    """The client the provider's spec builds (Fitbit's: the Google Health API's)."""
    return PROVIDERS[provider].client(ProviderSettings.for_sandbox(provider, BASE), http)


async def test_strava_consent_approve_exchanges_code(
    strava: StravaClient, http: httpx.AsyncClient
) -> None:
    """PROV-4, PROV-9: Strava OAuth 2.0: consent page, callback with state, code exchange."""
    start = await strava.start_authorization("user-7:abc")
    query = dict(parse_qsl(urlsplit(start.url).query))
    assert query["client_id"] == "sandbox-client"
    assert query["response_type"] == "code"
    assert query["state"] == "user-7:abc"
    assert "code_challenge" not in query  # Strava has no PKCE
    callback = await consent(http, start, "approve", athlete_id=7)
    assert callback["state"] == "user-7:abc"
    tokens = await strava.complete_authorization(start, callback)
    assert tokens.access_token
    assert tokens.refresh_token
    assert tokens.provider_user_id == "7"
    assert not tokens.expires_within(60)
    athlete = await strava.fetch_athlete(tokens)
    assert athlete.provider_id == "7"
    # Single use: the same code cannot be exchanged twice.
    with pytest.raises(ReconnectRequired):
        await strava.complete_authorization(start, callback)


async def test_deny_yields_no_tokens(
    strava: StravaClient, http: httpx.AsyncClient, state: SandboxState
) -> None:
    """PROV-4: a denied consent brings an error to the callback and issues nothing."""
    start = await strava.start_authorization("user-1:n")
    callback = await consent(http, start, "deny")
    assert callback == {"error": "access_denied", "state": "user-1:n"}
    with pytest.raises(ReconnectRequired):
        await strava.complete_authorization(start, callback)
    assert state.grants == {}


async def test_fitbit_uses_pkce_s256(fitbit: FitbitClient, http: httpx.AsyncClient) -> None:
    """PROV-9: Fitbit is OAuth 2.0 with PKCE; a wrong verifier fails the exchange."""
    start = await fitbit.start_authorization("user-2:n")
    query = dict(parse_qsl(urlsplit(start.url).query))
    assert start.code_verifier is not None
    assert 43 <= len(start.code_verifier) <= 128
    assert query["code_challenge_method"] == "S256"
    assert query["code_challenge"] == code_challenge(start.code_verifier)
    callback = await consent(http, start, "approve", athlete_id=2)
    with pytest.raises(ReconnectRequired):
        await fitbit.oauth.exchange_code(callback["code"], code_verifier="x" * 64)
    # The failed attempt consumed the code (single use), so start again.
    start = await fitbit.start_authorization("user-2:n2")
    tokens = await fitbit.complete_authorization(start, await consent(http, start, "approve", 2))
    assert tokens.provider_user_id == "SB00002"
    assert (await fitbit.fetch_athlete(tokens)).provider_id == "SB00002"


async def test_sandbox_rejects_plain_pkce(http: httpx.AsyncClient) -> None:
    """The emulated Fitbit refuses an authorization request without S256."""
    r = await http.get(
        "/fitbit/oauth2/authorize",
        params={
            "client_id": "sandbox-client",
            "redirect_uri": "http://127.0.0.1:9/cb",
            "response_type": "code",
            "code_challenge": "abc",
            "code_challenge_method": "plain",
        },
    )
    assert r.status_code == 400
    assert "location" not in r.headers


async def test_garmin_oauth1_flow_signed_end_to_end(
    http: httpx.AsyncClient, state: SandboxState
) -> None:
    """PROV-9: Garmin OAuth 1.0a: request token, consent, access token, signed data calls.

    The sandbox verifies every HMAC-SHA1 signature, so a wrong secret is refused."""
    client = GarminClient(ProviderSettings.for_sandbox("garmin", BASE), http, oauth_version=1)
    start = await client.start_authorization("user-3:n")
    assert start.request_token
    assert start.request_token_secret
    page = await http.get(start.url)
    assert 'value="approve"' in page.text
    r = await http.post(
        "/garmin/oauthConfirm",
        data={"oauth_token": start.request_token, "decision": "approve", "athlete_id": "3"},
    )
    callback = dict(parse_qsl(urlsplit(r.headers["location"]).query))
    assert callback["state"] == "user-3:n"
    tokens = await client.complete_authorization(start, callback)
    assert tokens.token_secret
    assert tokens.expires_at is None
    athlete = await client.fetch_athlete(tokens)
    assert athlete.provider_id
    assert await client.refresh(tokens) is tokens  # OAuth 1.0a tokens do not expire
    forged = type(tokens)(access_token=tokens.access_token, token_secret="not-the-secret")
    with pytest.raises(AccessTokenRejected):
        await client.fetch_athlete(forged)


async def test_garmin_oauth1_callback_must_match_request_token(http: httpx.AsyncClient) -> None:
    client = GarminClient(ProviderSettings.for_sandbox("garmin", BASE), http, oauth_version=1)
    start = await client.start_authorization("user-3:n")
    with pytest.raises(ReconnectRequired):
        await client.complete_authorization(start, {"oauth_token": "other", "oauth_verifier": "v"})


async def test_garmin_oauth2_pkce_flow(garmin: GarminClient, http: httpx.AsyncClient) -> None:
    """PROV-9: Garmin's newer API uses OAuth 2.0 with PKCE."""
    start = await garmin.start_authorization("user-4:n")
    assert start.code_verifier is not None
    tokens = await garmin.complete_authorization(start, await consent(http, start, "approve", 4))
    assert tokens.refresh_token
    assert (await garmin.fetch_athlete(tokens)).provider_id


# Google's refresh tokens do not rotate (test_google_health.py).
@pytest.mark.parametrize("provider", ["strava", "garmin"])
async def test_refresh_rotates_and_old_refresh_token_dies(
    provider: str, http: httpx.AsyncClient
) -> None:
    """PROV-6 (client side): a refresh yields new tokens; the old refresh token is spent."""
    client = _client(provider, http)
    tokens = await connect(client, http)
    fresh = await client.refresh(tokens)
    assert fresh.access_token != tokens.access_token
    assert fresh.refresh_token != tokens.refresh_token
    await client.fetch_athlete(fresh)
    with pytest.raises(AccessTokenRejected):
        await client.fetch_athlete(tokens)
    with pytest.raises(ReconnectRequired):
        await client.refresh(tokens)


async def test_expired_access_token_is_rejected_until_refreshed(
    strava: StravaClient, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    """PROV-6: an expired token is refused; expires_within says a refresh is due."""
    tokens = await connect(strava, http)
    clock.advance(6 * 3600 + 1)
    assert tokens.expires_within(300, now=clock.now)
    with pytest.raises(AccessTokenRejected):
        await strava.fetch_athlete(tokens)
    fresh = await strava.refresh(tokens)
    assert (await strava.fetch_athlete(fresh)).provider_id == "1"


@pytest.mark.parametrize("provider", ["strava", "fitbit", "garmin"])
async def test_revoked_at_provider_needs_reconnection(
    provider: str, http: httpx.AsyncClient
) -> None:
    """The user revoked access at the provider: data calls fail, refresh says reconnect."""
    client = _client(provider, http)
    tokens = await connect(client, http, athlete_id=5)
    r = await http.post("/admin/revoke", json={"provider": provider, "athlete_id": 5})
    assert r.json() == {"revoked": 1}
    with pytest.raises(AccessTokenRejected):
        await client.fetch_athlete(tokens)
    with pytest.raises(ReconnectRequired):
        await client.refresh(tokens)


@pytest.mark.parametrize("provider", ["strava", "fitbit", "garmin"])
async def test_deauthorize_revokes_the_grant(provider: str, http: httpx.AsyncClient) -> None:
    """PROV-10 (provider side): removing a connection tells the provider to deauthorize."""
    client = _client(provider, http)
    tokens = await connect(client, http)
    await client.deauthorize(tokens)
    with pytest.raises(AccessTokenRejected):
        await client.fetch_athlete(tokens)


async def test_wrong_client_secret_is_a_config_error(http: httpx.AsyncClient) -> None:
    from pacekeeper.providers import ProviderConfigError

    settings = ProviderSettings.for_sandbox("strava", BASE, client_secret="wrong")
    client = StravaClient(settings, http)
    start = await client.start_authorization("u:n")
    with pytest.raises(ProviderConfigError):
        await client.complete_authorization(start, await consent(http, start, "approve"))


async def test_standalone_sandbox_redirects_only_to_loopback(http: httpx.AsyncClient) -> None:
    """Issue 28: with no redirect URI registered, the consent page answers (deny or
    approve) only to loopback URIs; anything else is an error page, no Location."""
    base = {"client_id": "sandbox-client", "response_type": "code", "state": "s"}
    for decision in ("deny", "approve"):
        for uri in ("https://evil.example/phish", "http://evil.example/cb",
                    "http://127.0.0.1.evil.example/cb"):
            refused = await http.get("/strava/oauth/authorize", params={
                **base, "redirect_uri": uri, "decision": decision})
            assert refused.status_code == 400, (uri, refused.headers)
            assert "location" not in refused.headers
        ok = await http.get("/strava/oauth/authorize", params={
            **base, "redirect_uri": "http://127.0.0.1:9/cb", "decision": decision})
        assert ok.status_code == 302
        assert ok.headers["location"].startswith("http://127.0.0.1:9/cb?")


async def test_registered_sandbox_redirect_uris_match_exactly(clock: FakeClock) -> None:
    """A registered list replaces the loopback rule: exact matches only."""
    from pacekeeper.providers.sandbox import create_sandbox_app

    own = "https://dev.example/api/oauth/callback/strava"
    app = create_sandbox_app(SandboxState(clock=clock, redirect_uris=(own,)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http:
        for uri, status in ((own, 302), (own + "/", 400), ("http://127.0.0.1:9/cb", 400)):
            answer = await http.get("/strava/oauth/authorize", params={
                "client_id": "sandbox-client", "response_type": "code", "redirect_uri": uri,
                "decision": "deny"})
            assert answer.status_code == status, uri


async def test_garmin_oauth1_callback_must_be_registered(http: httpx.AsyncClient) -> None:
    """The OAuth 1.0a confirm page redirects to the callback given with the request
    token (deny too), so an unregistered callback gets no request token."""
    evil = ProviderSettings.for_sandbox("garmin", BASE, redirect_uri="https://evil.example/cb")
    client = GarminClient(evil, http, oauth_version=1)
    with pytest.raises(ReconnectRequired):
        await client.start_authorization("user-3:n")
