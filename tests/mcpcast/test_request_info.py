"""``RequestInfo``: what an authentication hook sees; headers decoded only when read."""

from __future__ import annotations

from collections.abc import Iterator

from mcpcast._auth import request_info


class CountingHeaders:
    """A scope's header list that counts how often it is read."""

    def __init__(self, pairs: list[tuple[bytes, bytes]]) -> None:
        self.pairs = pairs
        self.reads = 0

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        self.reads += 1
        return iter(self.pairs)


def test_headers_are_lower_case_strings_decoded_once_on_first_use() -> None:
    raw = CountingHeaders([(b"Authorization", b"Bearer t"), (b"x-caf\xe9", b"\xe9t\xe9")])
    info = request_info({"type": "http", "method": "POST", "path": "/mcp", "headers": raw,
                         "client": ("127.0.0.1", 5), "query_string": b"a=1"}, calls=2)
    assert (info.method, info.path, info.client, info.query_string, info.calls) == (
        "POST", "/mcp", ("127.0.0.1", 5), "a=1", 2)
    assert raw.reads == 0  # a hook that never reads them costs no decoding
    assert info.headers == {"authorization": "Bearer t", "x-caf\xe9": "\xe9t\xe9"}
    assert info.headers is info.headers
    assert raw.reads == 1
