"""``subscriptions/listen`` subscribers (2026-07-28): who wants which change notifications."""

from __future__ import annotations

from typing import Any

from .._jsonrpc import RequestId, dumps, notification
from .session import StreamLog

SUBSCRIPTION_META = "io.modelcontextprotocol/subscriptionId"


class Listener:
    """One open listen stream: its honoured filter and its bounded event log."""

    __slots__ = ("filter", "log", "subscription_id")

    def __init__(self, subscription_id: RequestId, honoured: dict[str, Any], limit: int) -> None:
        self.subscription_id = subscription_id
        self.filter = honoured
        self.log = StreamLog("l", limit)

    def tag(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return {**(params or {}), "_meta": {SUBSCRIPTION_META: self.subscription_id}}

    def list_changed(self, kind: str) -> None:
        if self.filter.get(f"{kind}ListChanged"):
            self.log.append(dumps(notification(f"notifications/{kind}/list_changed", self.tag())))

    def task_status(self, task_id: str, task: dict[str, Any]) -> None:
        """A task's new state (``notifications/tasks``: what tasks/get would answer)."""
        if task_id in self.filter.get("taskIds", ()):
            self.log.append(dumps(notification("notifications/tasks", self.tag(task))))

    def resource_updated(self, uri: str) -> None:
        if uri in self.filter.get("resourceSubscriptions", ()):
            self.log.append(dumps(notification("notifications/resources/updated",
                                               self.tag({"uri": uri}))))
