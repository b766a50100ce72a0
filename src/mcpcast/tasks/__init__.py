"""The tasks extension (``io.modelcontextprotocol/tasks``): long-running tool calls.

Declare a tool with ``@tool(task="optional")`` (or ``"required"``); a client that
negotiated the extension gets a task handle at once and polls ``tasks/get`` for the
outcome. Tasks are kept in a ``TaskStore`` (``MemoryTaskStore`` by default; pass another
as ``Server(..., task_store=...)``).
"""

from ._record import TERMINAL, TaskRecord, TaskStatus, TaskSupport
from ._store import MemoryTaskStore, TaskStore

__all__ = ["TERMINAL", "MemoryTaskStore", "TaskRecord", "TaskStatus", "TaskStore", "TaskSupport"]
