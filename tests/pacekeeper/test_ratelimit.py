"""The in-memory token bucket (SMCP-4 headers, 429 inputs)."""

from __future__ import annotations

from pacekeeper.ratelimit import MemoryRateLimiter, RateDecision


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_bucket_allows_capacity_then_refuses_then_refills() -> None:
    clock = Clock()
    limiter = MemoryRateLimiter(clock)
    decisions = [await limiter.hit("t1", 60) for _ in range(61)]
    assert all(d.allowed for d in decisions[:60])
    assert decisions[59].remaining == 0
    last = decisions[60]
    assert not last.allowed
    assert last.retry_after == 1
    assert last.reset_at == 1_800_000_000 + 60
    clock.now += 1.0  # one token per second at 60/min
    assert (await limiter.hit("t1", 60)).allowed
    assert not (await limiter.hit("t1", 60)).allowed


async def test_keys_are_independent_and_limits_change() -> None:
    limiter = MemoryRateLimiter(Clock())
    for _ in range(3):
        await limiter.hit("a", 3)
    assert not (await limiter.hit("a", 3)).allowed
    assert (await limiter.hit("b", 3)).allowed
    raised = await limiter.hit("a", 600)
    assert raised.limit == 600


def test_headers() -> None:
    ok = RateDecision(True, 10, 9, 1_800_000_006, 0)
    assert ok.headers() == {
        "X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "9",
        "X-RateLimit-Reset": "1800000006",
    }
    refused = RateDecision(False, 10, 0, 1_800_000_060, 6)
    assert refused.headers()["Retry-After"] == "6"


def test_raw_headers_are_the_same_headers_as_asgi_sends_them() -> None:
    """SMCP-4: /mcp sends these; they must say what headers() says, name for name."""
    for decision in (RateDecision(True, 10, 9, 1_800_000_006, 0),
                     RateDecision(False, 10, 0, 1_800_000_060, 6)):
        expected = [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]
        assert decision.raw_headers() == expected
