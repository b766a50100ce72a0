"""DNS-rebinding protection: the one Host and Origin check, asked by the entry point for
every request and upgrade (MCP, browser topics), before anything else."""

from __future__ import annotations

from collections.abc import Iterable

from .transports._http import host_name, origin_base


class OriginCheck:
    """A browser page on another origin must not reach the server, nor a request that
    names another host; ``*`` in either list turns that half off."""

    __slots__ = ("_hosts", "_origins", "_verdicts")

    def __init__(self, hosts: Iterable[str], origins: Iterable[str]) -> None:
        self._hosts = {h.lower() for h in hosts}
        self._origins = {o.lower().rstrip("/") for o in origins}
        self._verdicts: dict[tuple[bytes | None, bytes | None], tuple[int, str] | None] = {}

    def refusal(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        """``(status, message)`` refusing the request, or None; clients send the same few
        Host/Origin pairs, so verdicts are remembered."""
        key = (headers.get(b"host"), headers.get(b"origin"))
        try:
            return self._verdicts[key]
        except KeyError:
            pass
        verdict = self._judge(*key)
        if len(self._verdicts) >= 1024:  # bounded: hostile clients can vary the headers
            self._verdicts.clear()
        self._verdicts[key] = verdict
        return verdict

    def _judge(self, host: bytes | None, origin: bytes | None) -> tuple[int, str] | None:
        if "*" not in self._hosts and (
                host is None or host_name(host.decode("latin-1")) not in self._hosts):
            return 421, "Invalid Host header"
        if origin is not None and "*" not in self._origins:
            base = origin_base(origin.decode("latin-1"))
            if base is None or base not in self._origins:
                return 403, "Invalid Origin header"
        return None
