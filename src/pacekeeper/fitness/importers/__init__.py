"""Activity files in: FIT, GPX and TCX (optionally gzip-compressed), and Strava bulk
export archives. See docs/import.md for the formats, the limits, the summary methods
and what is rejected and why.

``parse_activity`` returns a ``ParsedActivity`` or raises ``ImportRejected``; no other
exception escapes (a decoder's own exception becomes ``ImportRejected("corrupt")``).
"""

from __future__ import annotations

import hashlib
import logging
import time
import zipfile
from collections.abc import Iterator
from typing import Final

from ._archive import (
    activity_members,
    gunzip,
    is_zip,
    open_zip,
    read_member,
)
from ._assemble import Decoded, assemble
from ._detect import sniff
from ._errors import REASONS, ImportRejected, Reason
from ._types import ArchiveMember, Format, ParsedActivity, ParsedLap

DEFAULT_MAX_BYTES: Final = 50 * 1024 * 1024
DEFAULT_MAX_ARCHIVE_TOTAL: Final = 4 * 1024 * 1024 * 1024
# Activity files per archive. A Strava bulk export holds one file per activity: 20,000
# is 27 years of two a day. The time budget (``max_seconds``) bounds the work; this
# bounds what listing a hostile archive costs before any member is read.
DEFAULT_MAX_MEMBERS: Final = 20_000
# Seconds of 1 Hz samples all members of one archive may hold together (about 13,900
# hours of recording). A sparse file is tiny but becomes a grid of up to 7 days: without
# this, a few KB of zipped two-point GPX files cost minutes of CPU (adversarial pass).
DEFAULT_MAX_ARCHIVE_SECONDS: Final = 50_000_000

_log = logging.getLogger(__name__)


def _too_large(max_bytes: int) -> ImportRejected:
    return ImportRejected("too_large", f"the file is larger than the limit of {max_bytes} bytes")


def _decode(kind: Format, data: bytes) -> Decoded:
    if kind == "fit":
        from . import _fit

        return _fit.decode(data)
    if kind == "gpx":
        from . import _gpx

        return _gpx.decode(data)
    from . import _tcx

    return _tcx.decode(data)


def _parse_unwrapped(data: bytes, filename: str | None, max_bytes: int) -> ParsedActivity:
    kind = sniff(data, filename)
    if kind == "gzip":
        data = gunzip(data, max_bytes)
        inner = filename[:-3] if filename and filename.lower().endswith(".gz") else None
        kind = sniff(data, inner)
        if kind in ("gzip", "zip"):
            raise ImportRejected("unsupported_format", "a compressed file inside a gzip file")
    elif kind == "zip":
        archive = open_zip(data)
        members = activity_members(archive)
        if len(members) != 1:
            raise ImportRejected(
                "unsupported_format",
                f"the zip archive holds {len(members)} activity files; "
                "import it as an archive (bulk export)",
            )
        return _parse_member(
            read_member(archive, members[0], max_bytes), members[0].filename, max_bytes
        )
    assert kind in ("fit", "gpx", "tcx")
    decoded = _decode(kind, data)
    return assemble(decoded, hashlib.sha256(data).hexdigest())


def _parse_member(data: bytes, name: str, max_bytes: int) -> ParsedActivity:
    kind = sniff(data, name)
    if kind == "zip":
        raise ImportRejected("unsupported_format", "a zip archive inside a zip archive")
    return _parse_unwrapped(data, name, max_bytes)


def parse_activity(
    data: bytes, filename: str | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> ParsedActivity:
    """Parse one activity file: FIT, GPX or TCX, as is or gzip-compressed (or a zip
    that holds exactly one of them, as Garmin Connect's "export original" does).

    The format comes from the content; ``filename`` is only a hint for messages.
    ``max_bytes`` bounds the input and any decompressed output.
    """
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    try:
        return _parse_unwrapped(bytes(data), filename, max_bytes)
    except ImportRejected:
        raise
    except MemoryError:
        raise ImportRejected("too_large", "the file needs more memory than is available") from None
    except Exception:  # a decoder's bug or an input it did not foresee
        _log.info("activity import failed in a decoder", exc_info=True)
        raise ImportRejected("corrupt", "the file cannot be read as an activity") from None


def is_archive(data: bytes) -> bool:
    """True for a zip archive (a bulk export); gzip is a single compressed file."""
    return is_zip(data)


def parse_archive(
    data: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_total_bytes: int = DEFAULT_MAX_ARCHIVE_TOTAL,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_seconds: int = DEFAULT_MAX_ARCHIVE_SECONDS,
) -> list[ArchiveMember]:
    """Every activity file of a zip archive, each parsed or rejected on its own (all
    held at once: callers that store members should use ``iter_archive``)."""
    return list(iter_archive(data, max_bytes=max_bytes, max_total_bytes=max_total_bytes,
                             max_members=max_members, max_total_seconds=max_total_seconds))


def iter_archive(
    data: bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_total_bytes: int = DEFAULT_MAX_ARCHIVE_TOTAL,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_seconds: int = DEFAULT_MAX_ARCHIVE_SECONDS,
    max_seconds: float | None = None,
) -> Iterator[ArchiveMember]:
    """Every activity file of a zip archive, each parsed or rejected on its own, one
    at a time, in this process (``ArchiveReader`` has the rules and the bounds; the
    service parses each member in its process pool instead)."""
    reader = ArchiveReader(data, max_bytes=max_bytes, max_total_bytes=max_total_bytes,
                           max_members=max_members, max_total_seconds=max_total_seconds,
                           max_seconds=max_seconds)
    for name, raw in reader:
        result = raw if isinstance(raw, ImportRejected) else parse_member(raw, name, max_bytes)
        del raw  # freed before the caller stores this member and asks for the next
        if not isinstance(result, ImportRejected):
            reader.took(result)
        yield ArchiveMember(name=name, result=result)


def parse_member(raw: bytes, name: str, max_bytes: int) -> ParsedActivity | ImportRejected:
    """One archive member's bytes parsed, or why not (never raises: a pure function that
    runs in an import worker process, and its verdict crosses back detached)."""
    try:
        return _parse_member(raw, name, max_bytes)
    except ImportRejected as rejected:
        return rejected.detached()  # the raised one's frames hold the member's bytes
    except MemoryError:
        return ImportRejected("too_large", "the file needs more memory than is available")
    except Exception:
        _log.info("archive member import failed in a decoder", exc_info=True)
        return ImportRejected("corrupt", "the file cannot be read as an activity")


class ArchiveReader:
    """The activity files of a zip archive, read one at a time: iterating gives each
    member's name and its (decompressed) bytes, or why it is not read. Parsing is the
    caller's (``parse_member``: in this process, or in a worker process); the caller
    reports each parsed member with ``took`` so the samples budget counts it. A member
    is read only when the previous one was taken, so memory holds one member, not the
    archive.

    A Strava bulk export keeps its activities under ``activities/`` as ``.fit``,
    ``.gpx`` or ``.tcx``, each possibly ``.gz``; when the archive has that folder only
    its members are read, otherwise every activity file in it. Other members
    (``activities.csv``, media, profile) are ignored. ``max_bytes`` bounds each member
    (decompressed, gzip included); ``max_total_bytes`` bounds all members together
    (the members past it are rejected ``too_large``); an archive with more than
    ``max_members`` activity files is rejected as a whole (``ImportRejected`` from the
    constructor); ``max_total_seconds`` bounds the 1 Hz samples of all members together
    (the members past it are rejected ``too_large``); ``max_seconds`` bounds the
    wall-clock time from the first member on, the caller's work between members
    included (the members past it are rejected ``too_large`` without being read).
    """

    def __init__(self, data: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_total_bytes: int = DEFAULT_MAX_ARCHIVE_TOTAL,
                 max_members: int = DEFAULT_MAX_MEMBERS,
                 max_total_seconds: int = DEFAULT_MAX_ARCHIVE_SECONDS,
                 max_seconds: float | None = None) -> None:
        if not is_zip(data):
            raise ImportRejected("unsupported_format", "the file is not a zip archive")
        self._archive = open_zip(data)
        self._members = activity_members(self._archive)
        if len(self._members) > max_members:
            raise ImportRejected(
                "too_large", f"the archive holds more than {max_members} activity files"
            )
        self.max_bytes, self.max_total_bytes = max_bytes, max_total_bytes
        self.max_total_seconds, self.max_seconds = max_total_seconds, max_seconds
        self.deadline: float | None = None
        self._total = self._seconds = 0

    def took(self, parsed: ParsedActivity) -> None:
        self._seconds += len(parsed.streams)

    def past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def late(self) -> ImportRejected:
        return ImportRejected("too_large", "not imported: this import reached its time "
                              f"limit of {self.max_seconds:g} s; import the archive again "
                              "to add the rest (files already imported are recognised)")

    def __iter__(self) -> Iterator[tuple[str, bytes | ImportRejected]]:
        if self.max_seconds is not None:
            self.deadline = time.monotonic() + self.max_seconds
        for info in self._members:
            yield info.filename, self._read(info)

    def _read(self, info: zipfile.ZipInfo) -> bytes | ImportRejected:
        try:
            if self.past_deadline():
                raise self.late()
            remaining = self.max_total_bytes - self._total
            if remaining <= 0:
                raise ImportRejected("too_large", "the archive's total size passes the limit")
            if self._seconds >= self.max_total_seconds:
                raise ImportRejected("too_large", "the archive's activities together pass "
                                     f"the limit of {self.max_total_seconds} seconds of samples")
            raw = read_member(self._archive, info, min(self.max_bytes, remaining))
        except ImportRejected as rejected:
            return rejected.detached()
        except MemoryError:
            return ImportRejected("too_large", "the file needs more memory than is available")
        self._total += len(raw)
        return raw


__all__ = [
    "DEFAULT_MAX_BYTES",
    "REASONS",
    "ArchiveMember",
    "ArchiveReader",
    "ImportRejected",
    "ParsedActivity",
    "ParsedLap",
    "Reason",
    "is_archive",
    "iter_archive",
    "parse_activity",
    "parse_archive",
    "parse_member",
]
