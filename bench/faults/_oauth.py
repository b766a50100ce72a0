"""The OAuth part of the faults workload: each round a person consents (the authorize
form with their session cookie), exchanges the code, and redeems the refresh token twice
at once (nginx sends the two to different processes). Exactly one redemption may win;
the loser's reuse revokes the family, as RFC 9700 asks, so every round starts afresh.
The database check afterwards ("refresh tokens redeemed twice", "authorization codes
redeemed twice", tests/_consistency.py) then reads a table this workload filled."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
import threading
from urllib.parse import parse_qs, urlsplit

import httpx

REDIRECT = "http://127.0.0.1:5999/callback"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def register_client(client: httpx.Client, name: str = "bench-faults",
                    headers: dict[str, str] | None = None) -> tuple[str, str]:
    made = client.post("/oauth2/register", headers=headers, json={
        "redirect_uris": [REDIRECT], "client_name": name,
        "grant_types": ["authorization_code", "refresh_token"]}).raise_for_status()
    return made.json()["client_id"], made.json()["client_secret"]


def _outcome(response: httpx.Response) -> str:
    return "ok" if 200 <= response.status_code < 300 else f"HTTP {response.status_code}"


def forwarded_for() -> dict[str, str]:
    """A client address of its own (nginx appends it to X-Forwarded-For, the service
    believes nginx): the per-address limits of the OAuth endpoints (authorize 60, token
    30, register 10 a minute) would otherwise make a bench a test of those limits."""
    return {"x-forwarded-for": ".".join(str(secrets.randbelow(250) + 1) for _ in range(4))}


def consent(client: httpx.Client, session: str, client_id: str, secret: str,
            fwd: dict[str, str]) -> dict[str, str] | str:
    """The person (their session JWT as the cookie) consents in the authorize form and
    the client exchanges the code (PKCE): the token response, else what went wrong."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(
        hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    cookie = {"cookie": f"auth_token={session}", **fwd}
    page = client.get("/oauth2/authorize", headers=cookie, params={
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
        "code_challenge": challenge, "code_challenge_method": "S256", "state": "s"})
    if page.status_code != 200:
        return f"authorize: {_outcome(page)}"
    fields = [(html.unescape(k), html.unescape(v)) for k, v in _HIDDEN.findall(page.text)]
    csrf = dict(fields).get("csrf_token", "")
    done = client.post("/oauth2/authorize", data=dict([*fields, ("decision", "allow")]),
                       headers={"cookie": f"auth_token={session}; csrf_token={csrf}", **fwd})
    if done.status_code != 303:
        return f"consent: {_outcome(done)}"
    code = parse_qs(urlsplit(done.headers["location"]).query)["code"][0]
    tokens = client.post("/oauth2/token", auth=httpx.BasicAuth(client_id, secret),
                         headers=fwd, data={
                             "grant_type": "authorization_code", "code": code,
                             "code_verifier": verifier, "redirect_uri": REDIRECT})
    if tokens.status_code != 200:
        return f"exchange: {_outcome(tokens)}"
    body: dict[str, str] = tokens.json()
    return body


def round_trip(client: httpx.Client, session: str, client_id: str, secret: str) -> str:
    """One round; "ok" when consent, exchange and the race went as they must, else the
    first thing the caller saw go wrong ("redeemed twice" when both redemptions won)."""
    fwd = forwarded_for()
    tokens = consent(client, session, client_id, secret, fwd)
    if isinstance(tokens, str):
        return tokens
    auth = httpx.BasicAuth(client_id, secret)
    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    answers: list[httpx.Response | Exception] = []

    def redeem() -> None:
        try:
            answers.append(client.post("/oauth2/token", auth=auth, headers=fwd, data=form))
        except httpx.HTTPError as error:
            answers.append(error)

    racers = [threading.Thread(target=redeem) for _ in range(2)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    statuses = sorted(a.status_code if isinstance(a, httpx.Response) else 0 for a in answers)
    if statuses == [200, 200]:
        return "redeemed twice"
    for answer in answers:
        if isinstance(answer, Exception):
            return f"refresh: {type(answer).__name__}"
        if answer.status_code == 400 and answer.json().get("error") != "invalid_grant":
            return f"refresh: HTTP 400 {answer.json().get('error')}"
        if answer.status_code not in (200, 400):
            return f"refresh: {_outcome(answer)}"
    return "ok" if statuses == [200, 400] else f"refresh: {statuses}"


__all__ = ["REDIRECT", "consent", "forwarded_for", "register_client", "round_trip"]
