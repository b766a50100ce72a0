"""Issue 20, #6: client ID metadata document fetches cannot be held open or aimed inward.

Attack 1: a `client_id` URL whose server trickles one byte every few seconds. httpx's
timeout is per read, so each fetch (and its connection) lived for minutes; twenty such
authorization requests held twenty connections for seven minutes. Now one deadline
covers the whole fetch.
Attack 2: a name resolving to an IPv6 address that embeds a private IPv4 address
(NAT64, 6to4, Teredo, mapped, compatible) passed the "is it global?" filter even in
production mode, and a translator or tunnel would carry the request inward.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import orjson
import pytest

from pacekeeper.oauth2 import cimd
from pacekeeper.oauth2.cimd import MetadataDocumentError, MetadataDocuments


@contextmanager
def trickling_server(
    make_body: Callable[[str], bytes], gap_s: float
) -> Iterator[tuple[str, bytes, list[int]]]:
    """A real loopback HTTP server that sends its headers at once, then one body byte
    per `gap_s`; yields (document URL, body, [bytes of the body sent so far])."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/client.json"
    body = make_body(url)
    sent = [0]
    stop = threading.Event()

    def run() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                         b"content-length: %d\r\n\r\n" % len(body))  # fmt: skip
            for byte in body:
                if stop.wait(gap_s):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return  # the client hung up: what the deadline should cause
                sent[0] += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield url, body, sent
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def _document(url: str) -> bytes:
    return orjson.dumps({"client_id": url, "client_name": "Slow",
                         "redirect_uris": ["https://slow.example/cb"]})  # fmt: skip


async def test_trickling_metadata_server_is_cut_off_by_one_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """AS-2, MCP CIMD SSRF precautions: a server sending a valid document one byte every
    0.1 s (each read well inside any per-read timeout) is cut off by the one deadline
    (0.5 s here): the fetch fails as "took too long" with most of the body never sent."""
    monkeypatch.setattr(cimd, "TIMEOUT_SECONDS", 0.5)
    with trickling_server(_document, 0.1) as (url, body, sent):
        docs = MetadataDocuments(allow_loopback=True)
        with pytest.raises(MetadataDocumentError, match="took too long"):
            await docs.resolve(url)
        assert sent[0] < len(body) // 2


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "10.0.0.5", "169.254.169.254", "0.0.0.0", "224.0.0.1", "240.0.0.1",
        "::1", "::", "fe80::1", "fc00::1", "ff02::1",
        "64:ff9b::a9fe:a9fe",         # NAT64 of 169.254.169.254 (cloud metadata)
        "64:ff9b::7f00:1",            # NAT64 of 127.0.0.1
        "64:ff9b:1:a00:0:500::",      # local-use NAT64 (/48) of 10.0.0.5
        "2002:c0a8:101::1",           # 6to4 of 192.168.1.1
        "2002:7f00:1::1",             # 6to4 of 127.0.0.1
        "::10.0.0.5",                 # IPv4-compatible
        "::127.0.0.1",                # IPv4-compatible loopback
        "::ffff:10.0.0.5",            # IPv4-mapped
        "::ffff:169.254.169.254",     # IPv4-mapped link-local
        "2001:0:4136:e378:8000:63bf:f5ff:fffa",  # Teredo, client 10.0.0.5
    ],
)  # fmt: skip
@pytest.mark.parametrize("production", [True, False])
async def test_internal_addresses_are_refused(address: str, production: bool) -> None:
    """AS-2: the address (resolved from a literal here, no DNS) and every IPv4 address it
    embeds must be public, in production and, but for plain loopback, in development."""
    ip = ipaddress.ip_address(address)
    if not production and ip.is_loopback:
        return  # development may fetch from plain loopback, by design
    docs = MetadataDocuments(allow_loopback=not production)
    host = f"[{address}]" if ip.version == 6 else address
    started = time.monotonic()
    with pytest.raises(MetadataDocumentError, match="not a public address"):
        await asyncio.wait_for(docs.resolve(f"https://{host}/client.json"), 10)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::1111", "64:ff9b::5db8:d70e",
                                     "2002:5db8:d70e::1"])  # fmt: skip
def test_public_addresses_pass_the_filter(address: str) -> None:
    """The filter does not refuse public addresses, embedded or not."""
    assert not cimd.address_refused(ipaddress.ip_address(address), allow_loopback=False)
