"""Garmin: OAuth 1.0a signing against published examples, webhooks, pulls, backfill."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import UTC, datetime, timedelta

import authlib.oauth1.rfc5849.client_auth as authlib_client  # type: ignore[import-untyped]
import httpx
import pytest
from authlib.oauth1.rfc5849.signature import (  # type: ignore[import-untyped]
    construct_base_string,
    hmac_sha1_signature,
)

from pacekeeper.fitness import Sport
from pacekeeper.providers import (
    GarminClient,
    GarminWebhook,
    MemoryIdempotencyStore,
    OAuth1Auth,
    ProviderRequestError,
    WebhookRejected,
)
from pacekeeper.providers.sandbox import SandboxState

from ._helpers import FakeClock, connect


def test_oauth1_signature_matches_twitter_published_example(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PROV-9: our httpx signer reproduces the signature of Twitter's documented example
    ("Creating a signature"), body parameters and query included."""
    monkeypatch.setattr(
        authlib_client, "generate_nonce", lambda: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
    )
    monkeypatch.setattr(authlib_client, "generate_timestamp", lambda: "1318622958")
    auth = OAuth1Auth(
        "xvz1evFS4wEEPTGEFPHBog",
        "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
        token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        token_secret="LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
    )
    request = httpx.Request(
        "POST",
        "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
        data={"status": "Hello Ladies + Gentlemen, a signed OAuth request!"},
    )
    signed = next(auth.auth_flow(request))
    header = signed.headers["Authorization"]
    assert header.startswith("OAuth ")
    assert 'oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"' in header
    assert 'oauth_signature_method="HMAC-SHA1"' in header


def test_rfc5849_section_1_2_example_signature() -> None:
    """PROV-9: the signing library reproduces RFC 5849 section 1.2's example signature."""
    params = [
        ("file", "vacation.jpg"),
        ("size", "original"),
        ("oauth_consumer_key", "dpf43f3p2l4k3l03"),
        ("oauth_token", "nnch734d00sl2jdk"),
        ("oauth_signature_method", "HMAC-SHA1"),
        ("oauth_timestamp", "137131202"),
        ("oauth_nonce", "chapoH"),
    ]
    base = construct_base_string("GET", "http://photos.example.net/photos", params)
    signature = hmac_sha1_signature(base, "kd94hf93k423kf44", "pfkkdhi9sl3r4s00")
    assert signature == "MdpQcU8iPSUjWoN/UDMsK2sui9I="


def _push(token: str, summary_id: str = "s1", steps: int = 1000) -> bytes:
    return json.dumps(
        {
            "dailies": [
                {
                    "userId": "g-user",
                    "userAccessToken": token,
                    "summaryId": summary_id,
                    "calendarDate": "2026-05-01",
                    "steps": steps,
                }
            ]
        }
    ).encode()


class _Tokens:
    async def users_for_tokens(self, user_access_tokens: Collection[str]
                                      ) -> dict[str, str]:
        known = {"tok-a": "user-a"}
        return {t: known[t] for t in user_access_tokens if t in known}


async def test_webhook_replay_is_ignored() -> None:
    """Garmin re-delivers: the same push twice is processed once (idempotency store)."""
    hook = GarminWebhook("https://apis.garmin.com", MemoryIdempotencyStore(), _Tokens())
    first = await hook.accept(_push("tok-a"))
    assert [n.user_id for n in first.fresh] == ["user-a"]
    assert first.fresh[0].summary is not None
    assert first.fresh[0].summary["steps"] == 1000
    replay = await hook.accept(_push("tok-a"))
    assert replay.fresh == []
    assert replay.replays == 1
    # An updated daily under the same summaryId is new content, not a replay.
    update = await hook.accept(_push("tok-a", steps=2500))
    assert len(update.fresh) == 1


async def test_webhook_unknown_user_and_bad_bodies() -> None:
    hook = GarminWebhook("https://apis.garmin.com", MemoryIdempotencyStore(), _Tokens())
    assert (await hook.accept(_push("tok-unknown"))).unknown_users == 1
    for body in (b"not json", b"[]", b"{}", b'{"dailies": [{"userId": "u"}]}', b'{"x": []}'):
        with pytest.raises(WebhookRejected):
            await hook.accept(body)


async def test_webhook_ping_callback_confined_to_garmin_api() -> None:
    """A ping's callbackURL must point at the configured Garmin API (no SSRF, no leak)."""
    hook = GarminWebhook("https://apis.garmin.com/wellness-api", MemoryIdempotencyStore())

    def ping(url: str) -> bytes:
        entry = {"userId": "u", "userAccessToken": "t", "callbackURL": url}
        return json.dumps({"activities": [entry]}).encode()

    good = "https://apis.garmin.com/wellness-api/rest/activities?uploadStartTimeInSeconds=1"
    result = await hook.accept(ping(good))
    assert result.fresh[0].callback_url == good
    assert result.fresh[0].summary is None
    for bad in (
        "https://evil.example/wellness-api/rest/activities",
        "http://apis.garmin.com/wellness-api/rest/activities",
        "https://apis.garmin.com.evil.example/wellness-api/rest",
        "https://apis.garmin.com/other/path",
    ):
        with pytest.raises(WebhookRejected):
            await hook.accept(ping(bad))


async def test_webhook_shared_secret_checked() -> None:
    hook = GarminWebhook(
        "https://apis.garmin.com", MemoryIdempotencyStore(), shared_secret="s3cret"
    )
    with pytest.raises(WebhookRejected):
        await hook.accept(_push("t"), presented_secret="wrong")
    with pytest.raises(WebhookRejected):
        await hook.accept(_push("t"))
    assert len((await hook.accept(_push("t"), presented_secret="s3cret")).fresh) == 1


async def test_memory_idempotency_store_expires_keys() -> None:
    now = [0.0]
    store = MemoryIdempotencyStore(clock=lambda: now[0])
    assert await store.claim("k", 10)
    assert not await store.claim("k", 10)
    now[0] = 11
    assert await store.claim("k", 10)


async def test_sandbox_push_sample_is_accepted(http: httpx.AsyncClient) -> None:
    r = await http.get(
        "/admin/garmin/push",
        params={"athlete_id": 1, "date": "2026-05-04", "user_access_token": "tok-a"},
    )
    hook = GarminWebhook("https://apis.garmin.com", MemoryIdempotencyStore(), _Tokens())
    result = await hook.accept(r.content)
    assert {n.kind for n in result.fresh} >= {"dailies"}


async def test_pull_activities_details_dailies_sleeps(
    garmin: GarminClient, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    tokens = await connect(garmin, http, athlete_id=6)
    now = datetime.fromtimestamp(clock.now, UTC)
    after = now - timedelta(days=10)
    activities = await garmin.fetch_activities(tokens, after=after, before=now)
    assert activities
    assert all(a.sport in (Sport.RIDE, Sport.RUN) for a in activities)
    assert all(a.avg_heartrate for a in activities)
    details = await garmin.fetch_activity_details(tokens, after=after, before=now)
    assert [a.provider_id for a, _ in details] == [a.provider_id for a in activities]
    activity, streams = details[0]
    assert len(streams.time) == activity.elapsed_s
    assert streams.has("heartrate") and streams.has("altitude")
    dailies = await garmin.fetch_dailies(tokens, after=after, before=now)
    assert 8 <= len(dailies) <= 10
    assert all(d.steps and d.resting_heartrate for d in dailies)
    sleeps = await garmin.fetch_sleeps(tokens, after=after, before=now)
    assert sleeps
    stages = sleeps[0].stages
    assert stages is not None
    total = sum(
        x or 0 for x in (stages.deep_min, stages.light_min, stages.rem_min, stages.awake_min)
    )
    assert total == pytest.approx(sleeps[0].duration_s / 60)
    with pytest.raises(ProviderRequestError):
        await garmin.fetch_streams(tokens, activity.provider_id)


async def test_backfill_accepted_then_duplicate(
    garmin: GarminClient, http: httpx.AsyncClient
) -> None:
    tokens = await connect(garmin, http)
    end = datetime(2026, 5, 1, tzinfo=UTC)
    assert await garmin.request_backfill(tokens, "activities", end - timedelta(days=30), end)
    assert not await garmin.request_backfill(tokens, "activities", end - timedelta(days=30), end)
    with pytest.raises(ProviderRequestError):
        await garmin.request_backfill(tokens, "dailies", end - timedelta(days=91), end)


async def test_sandbox_rejects_unsigned_and_replayed_oauth1(
    http: httpx.AsyncClient, state: SandboxState
) -> None:
    """The emulator enforces signatures, so the client tests above prove real signing."""
    r = await http.post(
        "/garmin/oauth-service/oauth/request_token",
        headers={"Authorization": 'OAuth oauth_consumer_key="sandbox-client"'},
    )
    assert r.status_code == 401
    auth = OAuth1Auth("sandbox-client", "sandbox-secret", callback="http://127.0.0.1:9/cb")
    request = http.build_request("POST", "/garmin/oauth-service/oauth/request_token")
    signed = next(auth.auth_flow(request))
    assert (await http.send(signed)).status_code == 200
    assert (await http.send(signed)).status_code == 401  # same nonce: replay refused
