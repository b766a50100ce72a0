"""Client latency over HTTP with the two servers interleaved request by request.

Wall-clock rounds of a few seconds per side could not resolve a few per cent on this VM:
its slow phases last seconds, so one side of a round could fall in one and the other not
(an A/A run, both sides bare, read -8 % and +9 %). Here a client holds one keep-alive
connection to each server and sends the same request to both, one after the other, in
a random order per pair: the two requests of a pair are some 200 us apart, so whatever
the machine is doing, both see it. Each request's latency is what a client sees: from
the first byte sent to the last byte of the response read.

What is left is each server process's own luck (its memory layout, its hash seed):
every round starts both servers anew (`fresh_servers`), and the 95 % interval comes
from resampling blocks of consecutive pairs, so both the slow phases and the
differences between rounds widen it. `--aa` serves `bare` on both sides: its interval
should hold 0, and its width is the method's noise floor.
"""

from __future__ import annotations

import gc
import random
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._measure import (
    MODES,
    REQUESTS,
    ROOT,
    Figures,
    fresh_servers,
    make_key_over_http,
    server_ports,
)


class Connection:
    """One keep-alive HTTP/1.1 connection that sends prepared bytes and times the answer."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def exchange(self, request: bytes) -> tuple[int, float]:
        """(status, microseconds from the first byte sent to the last byte read)."""
        sock = self.sock
        start = time.perf_counter_ns()
        sock.sendall(request)
        data = sock.recv(65536)
        while b"\r\n\r\n" not in data:
            data += _more(sock)
        head, _, body = data.partition(b"\r\n\r\n")
        length = _content_length(head)
        while len(body) < length:
            body += _more(sock)
        elapsed = (time.perf_counter_ns() - start) / 1000
        return int(head[9:12]), elapsed

    def close(self) -> None:
        self.sock.close()


def _more(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    if not chunk:
        raise ConnectionError("the server closed the connection mid-response")
    return chunk


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    raise ValueError("a response without Content-Length (this client reads no chunks)")


def request_bytes(method: str, path: str, body: bytes, key: str, port: int) -> bytes:
    """The request as it goes on the wire, the same for both sides but the port."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"X-API-Key: {key}",
             "Content-Type: application/json"]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def measure_pairs(ports: dict[str, int], key: str, pairs: int, warmup: int,
                  rng: random.Random, into: Figures) -> None:
    """Append `pairs` latencies per side and request to ``into``; every answer must be 200."""
    for label, (method, path, body) in REQUESTS.items():
        wire = {side: request_bytes(method, path, body, key, port)
                for side, port in ports.items()}
        conns = {side: Connection(port) for side, port in ports.items()}
        try:
            for _ in range(warmup):
                for side in MODES:
                    conns[side].exchange(wire[side])
            out = into[label]
            gc.disable()  # a collection inside one request of a pair is the client's noise
            try:
                for _ in range(pairs):
                    first = rng.random() < 0.5
                    for side in (MODES if first else MODES[::-1]):
                        status, us = conns[side].exchange(wire[side])
                        if status != 200:
                            raise AssertionError(f"{label} on {side} answered {status}")
                        out[side].append(us)
            finally:
                gc.enable()
        finally:
            for conn in conns.values():
                conn.close()


@dataclass(frozen=True)
class Added:
    """What the full side adds to the median latency, with a 95 % interval."""

    bare_us: float
    full_us: float
    added_us: float
    added_pct: float
    low_pct: float
    high_pct: float
    samples: int


def estimate_added(bare: list[float], full: list[float], block: int = 500,
                   resamples: int = 400, seed: int = 7) -> Added:
    """Median full minus median bare, and a block bootstrap of its 95 % interval: blocks of
    `block` consecutive pairs are drawn with replacement, so that slow phases and the
    per-round server differences, which last many pairs, count as noise."""
    b, f = np.asarray(bare), np.asarray(full)
    mb, mf = float(np.median(b)), float(np.median(f))
    blocks = max(1, len(b) // block)
    size = len(b) // blocks
    bb, fb = b[: blocks * size].reshape(blocks, size), f[: blocks * size].reshape(blocks, size)
    draws = np.random.default_rng(seed).integers(0, blocks, size=(resamples, blocks))
    pct = (np.median(fb[draws].reshape(resamples, -1), axis=1)
           / np.median(bb[draws].reshape(resamples, -1), axis=1) - 1) * 100
    low, high = np.percentile(pct, [2.5, 97.5])
    return Added(mb, mf, mf - mb, (mf / mb - 1) * 100, float(low), float(high), len(b))


def interleaved(env: dict[str, str], rounds: int, pairs: int, warmup: int = 300,
                aa: bool = False, cpu: str | None = None, log_dir: Path | None = None,
                seed: int = 2026) -> Figures:
    """Per request and side, every measured latency in microseconds, the servers on
    ``cpu`` (the caller pins itself elsewhere: unpinned, the scheduler's placement of
    each server beside or away from the client moved one side by 40 % in an A/A run)."""
    logs = log_dir or ROOT / "bench" / "results" / "logs"
    ports = server_ports()
    key = make_key_over_http(env, ports["full"], cpu, logs)
    figures: Figures = {label: {m: [] for m in MODES} for label in REQUESTS}
    rng = random.Random(seed)
    modes = {"bare": "bare", "full": "bare"} if aa else None
    for _ in range(rounds):
        with fresh_servers(env, ports, cpu, logs, modes):
            measure_pairs(ports, key, pairs, warmup, rng, figures)
    return figures
