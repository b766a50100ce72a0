"""Protocol revisions mcpcast speaks, and the facts that differ between them."""

from __future__ import annotations

LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_LEGACY = "2025-11-25"
CURRENT_VERSIONS: tuple[str, ...] = ("2026-07-28",)
# The transport rules say a request without the version header is 2025-03-26.
DEFAULT_HEADERLESS_VERSION = "2025-03-26"
# JSON-RPC batches: 2025-03-26 required receiving them, 2025-06-18 removed them.
BATCH_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})

LOG_LEVELS: dict[str, int] = {
    "debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6,
    "emergency": 7,
}


def negotiate(requested: str) -> str:
    """The version to answer ``initialize`` with: the client's when supported, else ours."""
    return requested if requested in LEGACY_VERSIONS else LATEST_LEGACY
