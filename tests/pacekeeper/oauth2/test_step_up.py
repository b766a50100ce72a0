"""Scope step-up at the authorization endpoint (issue 28; MCP "scope challenge handling").

A client registers with the starting scope the protected-resource metadata lists
(`fitness:read`), gets a 403 insufficient_scope naming `fitness:write`, and asks again
for both. The server lets it ask for any scope it supports, whatever the client
registered; the consent page marks what is new relative to the person's live grant to
that client; the tokens carry what the person allowed, and refreshing keeps it.
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from tests.pacekeeper.conftest import PASSWORD, Harness
from tests.pacekeeper.oauth2._flow import (
    DOC,
    DOC_URL,
    Registered,
    allowed_client,
    authorize_params,
    exchange,
    hidden_fields,
    login_and_consent,
    metadata_documents,
    pkce,
    post_form,
    redirect_query,
    refresh,
    register_client,
)

READ, WRITE = "fitness:read", "fitness:write"
_NEW = re.compile(r'<li class="new">.*?<strong>([^<]+)</strong>')
_ITEMS = re.compile(r"<li(?: class=\"new\")?>.*?<strong>([^<]+)</strong>")
# The titles the consent page gives each scope (oauth2/rfc6749/_pages.py).
READ_TITLE, WRITE_TITLE = "Read your fitness data", "Change your fitness data"


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    padded = payload + "=" * (-len(payload) % 4)
    decoded: dict[str, Any] = orjson.loads(base64.urlsafe_b64decode(padded))
    return decoded


async def test_step_up_beyond_the_registered_scope(harness: Harness) -> None:
    """A client registered with fitness:read asks for fitness:write: the consent page marks
    it new (read is already allowed), the tokens carry both, a refresh keeps both."""
    reg, first = await allowed_client(harness, "stepup@example.com")
    assert first["scope"] == READ
    verifier, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=f"{READ} {WRITE}")
    page = await harness.client.get("/oauth2/authorize", params=params)
    assert page.status_code == 200, page.text  # the session: straight to consent
    assert "invalid_scope" not in page.text
    assert _NEW.findall(page.text) == [WRITE_TITLE]
    assert _ITEMS.findall(page.text) == [READ_TITLE, WRITE_TITLE]
    assert "asks for more access than you allowed before" in page.text
    assert "(already allowed)" in page.text
    fields = hidden_fields(page.text)
    assert ("scope", f"{READ} {WRITE}") in fields
    query = redirect_query(await post_form(harness.client, fields + [("decision", "allow")]))
    assert query["state"] == params["state"]
    tokens = await exchange(harness, reg, query["code"], verifier)
    assert tokens.status_code == 200, tokens.text
    body = tokens.json()
    assert body["scope"] == f"{READ} {WRITE}"
    assert claims(body["access_token"])["scope"] == f"{READ} {WRITE}"
    again = await refresh(harness, reg, body["refresh_token"])
    assert again.status_code == 200, again.text
    assert again.json()["scope"] == f"{READ} {WRITE}"
    assert claims(again.json()["access_token"])["scope"] == f"{READ} {WRITE}"
    # Held fitness:write covers fitness:read (the hierarchy): asking for read is not new.
    _, challenge = pkce()
    read_only = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge, scope=READ))
    assert _ITEMS.findall(read_only.text) == [READ_TITLE]
    assert _NEW.findall(read_only.text) == []


async def test_write_only_request_marks_write_new_and_nothing_else(harness: Harness) -> None:
    """Asking for fitness:write alone (it includes read): one scope listed, marked new."""
    reg, _ = await allowed_client(harness, "writeonly@example.com")
    _, challenge = pkce()
    page = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge, scope=WRITE))
    assert page.status_code == 200, page.text
    assert _ITEMS.findall(page.text) == [WRITE_TITLE]
    assert _NEW.findall(page.text) == [WRITE_TITLE]


async def test_first_consent_and_same_scope_mark_nothing_new(harness: Harness) -> None:
    """No step-up: a first authorization lists scopes unmarked, and asking again for a
    scope the person already allowed marks nothing new either."""
    await harness.register("first@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness, scope=READ)
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=f"{READ} {WRITE}")
    login = await harness.client.get("/oauth2/authorize", params=params)
    page = await post_form(harness.client, hidden_fields(login.text) + [
        ("email", "first@example.com"), ("password", PASSWORD)])
    assert page.status_code == 200, page.text
    assert _ITEMS.findall(page.text) == [READ_TITLE, WRITE_TITLE]
    assert _NEW.findall(page.text) == []
    assert "asks for more access" not in page.text
    reg2, _ = await allowed_client(harness, "same@example.com")
    _, challenge = pkce()
    same = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg2.client_id, challenge, scope=READ))
    assert _ITEMS.findall(same.text) == [READ_TITLE] and _NEW.findall(same.text) == []


async def test_denied_step_up_keeps_the_earlier_grant(harness: Harness) -> None:
    """The person decides: a denied step-up sends access_denied, and the read grant the
    client already holds keeps working with its scope unchanged."""
    reg, first = await allowed_client(harness, "deny-stepup@example.com")
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=f"{READ} {WRITE}")
    page = await harness.client.get("/oauth2/authorize", params=params)
    query = redirect_query(
        await post_form(harness.client, hidden_fields(page.text) + [("decision", "deny")]))
    assert query["error"] == "access_denied" and "code" not in query
    kept = await refresh(harness, reg, first["refresh_token"])
    assert kept.status_code == 200, kept.text
    assert kept.json()["scope"] == READ


async def test_held_write_covers_read(harness: Harness) -> None:
    """The hierarchy: with fitness:write held, fitness:read is not new; offline_access is."""
    reg, _ = await allowed_client(harness, "held-write@example.com", scope=WRITE)
    _, challenge = pkce()
    page = await harness.client.get("/oauth2/authorize", params=authorize_params(
        reg.client_id, challenge, scope=f"{READ} offline_access"))
    assert page.status_code == 200, page.text
    assert _ITEMS.findall(page.text) == [READ_TITLE, "Stay connected"]
    assert _NEW.findall(page.text) == ["Stay connected"]


async def test_another_persons_grant_is_not_yours(harness: Harness) -> None:
    """Only the signed-in person's own grants count: another person's grant to the same
    client marks nothing as already allowed for them, and does not make the client's
    URI trusted for their errors."""
    reg, _ = await allowed_client(harness, "first-person@example.com")
    harness.client.cookies.clear()
    await harness.register("second-person@example.com")
    harness.client.cookies.clear()
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=f"{READ} {WRITE}")
    login = await harness.client.get("/oauth2/authorize", params=params)
    page = await post_form(harness.client, hidden_fields(login.text) + [
        ("email", "second-person@example.com"), ("password", PASSWORD)])
    assert page.status_code == 200, page.text
    assert "Signed in as <strong>second-person@example.com" in page.text
    assert _NEW.findall(page.text) == [] and "already allowed" not in page.text
    bad = await harness.client.get("/oauth2/authorize", params=authorize_params(
        reg.client_id, challenge, scope="fitness:admin"))
    assert bad.status_code == 400 and "location" not in bad.headers


async def test_a_revoked_grant_is_no_grant(harness: Harness) -> None:
    """What the person already granted is their live grants: once the client's grant is
    revoked (RFC 7009), nothing is marked as already allowed, and a request error no
    longer goes to the client (RFC 9700 4.11.2)."""
    reg, first = await allowed_client(harness, "revoked-stepup@example.com")
    revoked = await harness.client.post(
        "/oauth2/revoke", data={"token": first["refresh_token"], "client_id": reg.client_id})
    assert revoked.status_code == 200
    _, challenge = pkce()
    page = await harness.client.get("/oauth2/authorize", params=authorize_params(
        reg.client_id, challenge, scope=f"{READ} {WRITE}"))
    assert page.status_code == 200, page.text
    assert _ITEMS.findall(page.text) == [READ_TITLE, WRITE_TITLE]
    assert _NEW.findall(page.text) == [] and "already allowed" not in page.text
    bad = await harness.client.get("/oauth2/authorize", params=authorize_params(
        reg.client_id, challenge, scope="fitness:admin"))
    assert bad.status_code == 400 and "location" not in bad.headers
    assert "invalid_scope" in bad.text


async def test_unknown_scope_is_still_invalid_scope(harness: Harness) -> None:
    """Any supported scope may be asked for; an unknown one is invalid_scope (sent to the
    client here: the person is signed in and allowed it before)."""
    reg, _ = await allowed_client(harness, "unknown-scope@example.com")
    _, challenge = pkce()
    params = authorize_params(reg.client_id, challenge, scope=f"{READ} fitness:admin")
    query = redirect_query(await harness.client.get("/oauth2/authorize", params=params))
    assert query["error"] == "invalid_scope"
    assert query["error_description"] == "unknown scope: fitness:admin"
    assert query["state"] == params["state"]


async def test_registered_scope_is_the_default_not_a_ceiling(harness: Harness) -> None:
    """RFC 6749 3.3: a request naming no scope gets the client's registered scope."""
    await harness.register("default-scope@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness, scope=f"{WRITE} offline_access")
    verifier, challenge = pkce()
    query = redirect_query(await login_and_consent(
        harness.client, authorize_params(reg.client_id, challenge), "default-scope@example.com"))
    body = (await exchange(harness, reg, query["code"], verifier)).json()
    assert body["scope"] == f"{WRITE} offline_access"
    # And without a registered scope: fitness:read, the starting scope.
    plain = await register_client(harness)
    verifier, challenge = pkce()
    query = redirect_query(await login_and_consent(
        harness.client, authorize_params(plain.client_id, challenge), "default-scope@example.com"))
    assert (await exchange(harness, plain, query["code"], verifier)).json()["scope"] == READ


async def test_step_up_of_a_metadata_document_client(harness: Harness) -> None:
    """CIMD: a client whose document says `scope: fitness:read` steps up the same way."""
    redirect = "http://127.0.0.1:5555/cb"
    document = {**DOC, "scope": READ, "grant_types": ["authorization_code", "refresh_token"]}
    oauth = harness.services.oauth
    assert oauth is not None
    oauth.server.documents, _ = metadata_documents(200, document)
    harness.client.cookies.clear()
    await harness.register("cimd-stepup@example.com")
    harness.client.cookies.clear()
    reg = Registered(DOC_URL, None, document)
    tokens: list[dict[str, Any]] = []
    for scope in (READ, f"{READ} {WRITE}"):
        verifier, challenge = pkce()
        params = authorize_params(DOC_URL, challenge, scope=scope, redirect_uri=redirect)
        page = await harness.client.get("/oauth2/authorize", params=params)
        if scope != READ:  # signed in since the first round: straight to consent
            assert _NEW.findall(page.text) == [WRITE_TITLE], page.text
        answer = await login_and_consent(harness.client, params, "cimd-stepup@example.com")
        code = parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]
        body = (await exchange(harness, reg, code, verifier, redirect_uri=redirect)).json()
        tokens.append(body)
    assert [t["scope"] for t in tokens] == [READ, f"{READ} {WRITE}"]
    again = await refresh(harness, reg, tokens[1]["refresh_token"])
    assert again.json()["scope"] == f"{READ} {WRITE}"
