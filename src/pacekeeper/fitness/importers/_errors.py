"""The one exception the importers raise: ``ImportRejected`` with a machine reason."""

from __future__ import annotations

from typing import Final, Literal

from pacekeeper.errors import PacekeeperError

Reason = Literal[
    "unsupported_format", "corrupt", "truncated", "empty", "not_an_activity", "too_large"
]

REASONS: Final[frozenset[str]] = frozenset(
    ("unsupported_format", "corrupt", "truncated", "empty", "not_an_activity", "too_large")
)


class ImportRejected(PacekeeperError):
    """A file that is not imported, and why.

    ``reason`` is one of ``REASONS`` (stable, for programs); ``message`` is a short
    human sentence that is safe to show to the user: it never holds a path, a stack
    or a decoder's internal text.
    """

    reason: Reason
    message: str

    def __init__(self, reason: Reason, message: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown rejection reason {reason!r}")
        super().__init__(message)
        self.reason = reason
        self.message = message

    def detached(self) -> ImportRejected:
        """The same verdict without the traceback or chained exception: their frames
        hold the input's bytes, so a kept rejection must be this copy (issue 28: 90
        kept rejections of 49 MB members held 4.4 GB until the answer was sent)."""
        return ImportRejected(self.reason, self.message)

    def __repr__(self) -> str:
        return f"ImportRejected({self.reason!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImportRejected):
            return NotImplemented
        return (self.reason, self.message) == (other.reason, other.message)

    def __hash__(self) -> int:
        return hash((self.reason, self.message))
