"""Client ID Metadata Documents (MCP 2025-11-25 / 2026-07-28 client registration).

A `client_id` that is an https URL with a path names a JSON document the client hosts.
The server fetches it with SSRF precautions: https only (http on loopback only in
development), every resolved address must be public (no loopback, private, link-local,
multicast or reserved ranges; loopback allowed in development), and so must every IPv4
address an IPv6 address embeds (mapped, compatible, NAT64 64:ff9b::/96 and
64:ff9b:1::/48, 6to4, Teredo), and the connection goes to the checked address (no DNS
rebinding between check and use), no redirects, ONE 5 s deadline for the whole fetch
(connect, headers and body: a server trickling bytes cannot hold us) and a 64 KiB
cap. The document's `client_id` must equal the URL exactly, and
it must carry `client_name` and valid `redirect_uris`. Documents are cached per the
response's `Cache-Control: max-age` (default 5 minutes, at most a day); failures are
cached for a minute so a bad URL cannot make us fetch in a loop.
Such clients are public (`token_endpoint_auth_method: none`): PKCE binds their codes.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from pacekeeper.errors import PacekeeperError
from pacekeeper.oauth2._clients import Client, redirect_uri_problem

MAX_BYTES = 64 * 1024
TIMEOUT_SECONDS = 5.0
DEFAULT_TTL = 300
MAX_TTL = 86_400
FAILURE_TTL = 60
_MAX_AGE = re.compile(r"max-age=(\d+)")


_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215 local-use prefix
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible (RFC 4291)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address that `ip` carries and that a translator or tunnel could reach."""
    found: list[ipaddress.IPv4Address] = []
    value = int(ip)
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip in _NAT64 or (ip in _COMPATIBLE and value > 1):
        found.append(ipaddress.IPv4Address(value & 0xFFFFFFFF))
    if ip in _NAT64_LOCAL:
        # RFC 6052 2.2, /48 prefix: 16 bits, the reserved u octet, then 16 bits.
        found.append(ipaddress.IPv4Address(((value >> 64) & 0xFFFF) << 16
                                           | (value >> 40) & 0xFFFF))  # fmt: skip
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)  # (server, client)
    return found


def _not_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_unspecified
            or ip.is_multicast or ip.is_reserved or not ip.is_global)  # fmt: skip


def address_refused(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address, *, allow_loopback: bool
) -> bool:
    """True unless `ip` and every IPv4 address it embeds are public. Development may
    reach plain loopback (127/8, ::1), never an embedded one."""
    if ip.is_loopback and allow_loopback:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip in _NAT64:
        # The well-known NAT64 prefix sits in ::/8 ("reserved"): a DNS64 answer for a
        # public IPv4 host is fine, so only the address it translates to is judged.
        return any(_not_public(inner) for inner in embedded_ipv4(ip))
    if _not_public(ip):
        return True
    if isinstance(ip, ipaddress.IPv6Address):
        return any(_not_public(inner) for inner in embedded_ipv4(ip))
    return False


class MetadataDocumentError(PacekeeperError):
    """The document could not be used; the message is safe to show on the error page."""


def is_metadata_url(client_id: str) -> bool:
    parts = urlsplit(client_id)
    return parts.scheme in ("https", "http") and bool(parts.netloc) and parts.path not in ("", "/")


@dataclass(slots=True)
class _Entry:
    client: Client | None
    error: str
    expires: float


class MetadataDocuments:
    def __init__(self, *, allow_loopback: bool, client: httpx.AsyncClient | None = None) -> None:
        self._allow_loopback = allow_loopback
        self._http = client
        self._cache: dict[str, _Entry] = {}

    async def resolve(self, url: str) -> Client:
        entry = self._cache.get(url)
        if entry is None or entry.expires <= time.monotonic():
            entry = await self._load(url)
            if len(self._cache) > 1000:
                self._cache.clear()
            self._cache[url] = entry
        if entry.client is None:
            raise MetadataDocumentError(entry.error)
        return entry.client

    async def _load(self, url: str) -> _Entry:
        try:
            # One deadline for the whole fetch: resolving, connecting, headers and body
            # (httpx's timeout is per read: a server sending a byte every few seconds
            # would otherwise hold the fetch, and a connection, for minutes).
            async with asyncio.timeout(TIMEOUT_SECONDS):
                client, ttl = await self._fetch(url)
        except TimeoutError:
            error = MetadataDocumentError("client metadata took too long to fetch")
            return _Entry(None, str(error), time.monotonic() + FAILURE_TTL)
        except MetadataDocumentError as exc:
            return _Entry(None, str(exc), time.monotonic() + FAILURE_TTL)
        return _Entry(client, "", time.monotonic() + ttl)

    async def _checked_address(self, host: str, port: int) -> str:
        """The address to connect to, once every address of the name passed the checks."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise MetadataDocumentError("client metadata host does not resolve") from None
        addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
        for ip in addresses:
            if address_refused(ip, allow_loopback=self._allow_loopback):
                raise MetadataDocumentError("client metadata host is not a public address")
        if not addresses:
            raise MetadataDocumentError("client metadata host does not resolve")
        first = addresses[0]
        return f"[{first}]" if first.version == 6 else str(first)

    async def _fetch(self, url: str) -> tuple[Client, int]:
        parts = urlsplit(url)
        host = parts.hostname or ""
        loopback_dev = self._allow_loopback and host in ("localhost", "127.0.0.1", "::1")
        if parts.scheme != "https" and not (parts.scheme == "http" and loopback_dev):
            raise MetadataDocumentError("client_id URLs must use https")
        if parts.fragment or parts.username or parts.password:
            raise MetadataDocumentError("client_id URL must not carry credentials or fragment")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        # Connect to the address just checked (no second DNS answer can point us at an
        # internal host); Host and TLS SNI/verification still use the name.
        address = await self._checked_address(host, port)
        pinned = parts._replace(netloc=f"{address}:{port}").geturl()
        headers = {"Accept": "application/json", "Host": parts.netloc}
        extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
        http = self._http or httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False)
        try:
            body, cache_control = await self._download(http, pinned, headers, extensions)
        except httpx.HTTPError:
            raise MetadataDocumentError("client metadata could not be fetched") from None
        finally:
            if self._http is None:
                await http.aclose()
        return _client(url, body), _ttl(cache_control)

    @staticmethod
    async def _download(
        http: httpx.AsyncClient, url: str, headers: dict[str, str], extensions: dict[str, Any]
    ) -> tuple[bytes, str]:
        async with http.stream("GET", url, headers=headers, extensions=extensions) as resp:
            if resp.status_code != 200:
                raise MetadataDocumentError(f"client metadata answered {resp.status_code}")
            body = bytearray()
            async for chunk in resp.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise MetadataDocumentError("client metadata document is too large")
            return bytes(body), resp.headers.get("cache-control", "")


def _ttl(cache_control: str) -> int:
    if "no-store" in cache_control or "no-cache" in cache_control:
        return 0
    found = _MAX_AGE.search(cache_control)
    return min(int(found.group(1)), MAX_TTL) if found else DEFAULT_TTL


def _client(url: str, body: bytes) -> Client:
    try:
        data: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise MetadataDocumentError("client metadata is not JSON") from None
    if not isinstance(data, dict):
        raise MetadataDocumentError("client metadata must be a JSON object")
    if data.get("client_id") != url:
        raise MetadataDocumentError("client metadata client_id does not match its URL")
    name, uris = data.get("client_name"), data.get("redirect_uris")
    if not isinstance(name, str) or not name.strip():
        raise MetadataDocumentError("client metadata needs client_name")
    if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
        raise MetadataDocumentError("client metadata needs redirect_uris")
    for uri in uris:
        if redirect_uri_problem(uri) is not None:
            raise MetadataDocumentError("client metadata has an unacceptable redirect URI")
    method = data.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise MetadataDocumentError("only public metadata-document clients are supported")
    grants = data.get("grant_types", ["authorization_code"])
    if not isinstance(grants, list):
        raise MetadataDocumentError("grant_types must be an array")
    return Client(
        client_id=url,
        client_name=name.strip()[:200],
        redirect_uris=tuple(uris),
        grant_types=tuple(str(g) for g in grants),
        auth_method="none",
        metadata=data,
        from_metadata_document=True,
    )


__all__ = [
    "MetadataDocumentError",
    "MetadataDocuments",
    "address_refused",
    "embedded_ipv4",
    "is_metadata_url",
]
