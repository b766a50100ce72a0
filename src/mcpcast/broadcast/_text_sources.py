"""Local, deterministic text sources for tests and demos (no model downloads).

Anything with ``stream(prompt) -> AsyncIterator[str]`` can feed a ``StreamingSession``;
a real model client plugs in the same way.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import AsyncIterator
from typing import Protocol

__all__ = ["DeterministicTextSource", "EchoTextSource", "TextSource"]

_WORDS = (
    "pace", "tempo", "stride", "cadence", "recovery", "interval", "threshold", "aerobic",
    "easy", "long", "steady", "hill", "track", "split", "heart", "rate", "zone", "effort",
    "rest", "week", "plan", "goal", "race", "fuel", "sleep",
)  # fmt: skip


class TextSource(Protocol):
    """Produces text chunks for a prompt."""

    def stream(self, prompt: str) -> AsyncIterator[str]: ...


class EchoTextSource:
    """Echoes the prompt back word by word (whitespace kept with the word)."""

    def __init__(self, *, delay: float = 0.0) -> None:
        self.delay = delay

    async def stream(self, prompt: str) -> AsyncIterator[str]:
        for chunk in re.findall(r"\s*\S+", prompt):
            if self.delay:
                await asyncio.sleep(self.delay)
            yield chunk


class DeterministicTextSource:
    """Pseudo-random words from a small vocabulary, seeded by ``seed`` and the prompt:
    the same prompt always gives the same text."""

    def __init__(self, *, words: int = 40, seed: int = 0, delay: float = 0.0) -> None:
        if words < 0:
            raise ValueError("words must be >= 0")
        self.words = words
        self.seed = seed
        self.delay = delay

    async def stream(self, prompt: str) -> AsyncIterator[str]:
        rng = random.Random(f"{self.seed}:{prompt}")  # noqa: S311 - demo text, not security
        for i in range(self.words):
            if self.delay:
                await asyncio.sleep(self.delay)
            word = rng.choice(_WORDS)
            yield word.capitalize() if i == 0 else " " + word
        if self.words:
            yield "."
