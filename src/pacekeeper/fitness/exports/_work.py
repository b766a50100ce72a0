"""The CPU work of an export, as pure functions the import pool runs (issue 30): the
Apple ``export.xml`` scan and a health file's days. Each opens the archive itself from
its path, so nothing large crosses the process boundary."""

from __future__ import annotations

import zipfile
from typing import IO, Any

from pacekeeper.fitness._records import DailyHealth
from pacekeeper.fitness.exports._apple import AppleScan, UnsafeXml, scan_export_xml
from pacekeeper.fitness.exports._health import daily_from
from pacekeeper.fitness.importers import ImportRejected


class Bounded:
    """A member's stream that refuses to inflate past ``limit`` bytes (the bomb rule for
    the one member read as a stream, not held: Apple's export.xml)."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.stream, self.limit, self.seen = stream, limit, 0

    def read(self, n: int = -1) -> bytes:
        chunk = self.stream.read(n)
        self.seen += len(chunk)
        if self.seen > self.limit:
            raise ImportRejected("too_large", "export.xml inflates past the limit of "
                                 f"{self.limit} bytes")
        return chunk


def scan_apple(path: str, member: str, limit: int) -> AppleScan | tuple[str, str]:
    """The workouts and days of an Apple export, or why not (reason, message)."""
    try:
        with zipfile.ZipFile(path) as archive, archive.open(member) as stream:
            reader: Any = Bounded(stream, limit)
            return scan_export_xml(reader)
    except ImportRejected as exc:
        return exc.reason, exc.message
    except UnsafeXml as exc:
        return "corrupt", str(exc)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError):
        return "corrupt", "export.xml cannot be read from the archive"


def health_days(kind: str, name: str, data: bytes) -> list[DailyHealth] | tuple[str, str]:
    try:
        return daily_from(kind, name, data)
    except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
        return "corrupt", "the file is not the JSON (or CSV) this export's layout has"


__all__ = ["Bounded", "health_days", "scan_apple"]
