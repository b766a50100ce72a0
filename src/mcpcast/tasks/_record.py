"""One task (the tasks extension, ``io.modelcontextprotocol/tasks``): its state and wire shapes.

A ``TaskRecord`` is plain data, so a store may keep it anywhere; what only the running
process has (the tool's coroutine, its pending questions) lives in the protocol engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TaskSupport = Literal["forbidden", "optional", "required"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


@dataclass(slots=True)
class TaskRecord:
    """A task as stored. ``owner`` is the creator's identity key: nobody else may see it.

    It is kept for ``ttl_ms`` after its last change (so never less than ``ttl_ms`` after
    its creation, as the extension requires), and while it runs.
    """

    task_id: str
    owner: str
    created_at: float
    ttl_ms: int
    poll_interval_ms: int
    status: TaskStatus = "working"
    updated_at: float = 0.0
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The scopes the creating tool declares: every tasks/* call on it needs them too.
    scopes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.updated_at:
            self.updated_at = self.created_at

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def expires_at(self) -> float:
        return self.updated_at + self.ttl_ms / 1000

    def expired(self, now: float | None = None) -> bool:
        return self.terminal and (time.time() if now is None else now) > self.expires_at

    def touch(self, status: TaskStatus | None = None) -> None:
        if status is not None:
            self.status = status
        self.updated_at = max(time.time(), self.updated_at)

    def handle(self) -> dict[str, Any]:
        """The ``Task`` fields: what a ``CreateTaskResult`` carries (never a result)."""
        body: dict[str, Any] = {
            "taskId": self.task_id, "status": self.status,
            "createdAt": _iso(self.created_at), "lastUpdatedAt": _iso(self.updated_at),
            "ttlMs": self.ttl_ms, "pollIntervalMs": self.poll_interval_ms,
        }
        if self.status_message is not None:
            body["statusMessage"] = self.status_message
        return body

    def detailed(self) -> dict[str, Any]:
        """The ``DetailedTask`` of ``tasks/get``: the handle plus what the status implies
        (the tool's result once completed, the error once failed, the open questions while
        it waits for input)."""
        body = self.handle()
        if self.status == "completed" and self.result is not None:
            body["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            body["error"] = self.error
        elif self.status == "input_required":
            body["inputRequests"] = dict(self.input_requests)
        return body
