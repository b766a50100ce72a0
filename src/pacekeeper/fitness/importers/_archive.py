"""Bounded gzip and zip unwrapping.

Nothing is ever decompressed in one call: output is produced in chunks of at most
``_CHUNK`` bytes and the caller's ``max_bytes`` is checked after every chunk, so a
gzip or zip bomb stops with ``too_large`` once its output passes the limit, holding at
most ``max_bytes + _CHUNK`` bytes.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Final

from ._errors import ImportRejected

_CHUNK: Final = 1 << 20  # 1 MiB of output per step
# Where an XML document's root element must show (``_detect``): a member whose first
# window is nothing but white space is no activity file of any kind, so it is refused
# before the rest is inflated (49 MB of spaces cost 0.25 s of CPU each). NUL is not
# counted here: a bomb of zeros is still refused as too large, as it always was.
PROLOG_WINDOW: Final = 64 * 1024
WHITE_SPACE: Final = b" \t\r\n"
GZIP_MAGIC: Final = b"\x1f\x8b"
ZIP_MAGICS: Final = (b"PK\x03\x04", b"PK\x05\x06")
ACTIVITY_SUFFIXES: Final = (".fit", ".gpx", ".tcx")


def _too_large(max_bytes: int, what: str) -> ImportRejected:
    return ImportRejected("too_large", f"{what} is larger than the limit of {max_bytes} bytes")


def _refuse_blank_head(out: bytearray) -> None:
    if len(out) >= PROLOG_WINDOW and not out[:PROLOG_WINDOW].strip(WHITE_SPACE):
        raise ImportRejected("corrupt", f"the file starts with {PROLOG_WINDOW // 1024} KiB "
                             "of white space; no activity file does")


def gunzip(data: bytes, max_bytes: int) -> bytes:
    """The content of a gzip stream (every concatenated member), at most ``max_bytes``."""
    out = bytearray()
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = data
    try:
        while True:
            chunk = inflater.decompress(pending, _CHUNK)
            out += chunk
            if len(out) > max_bytes:
                raise _too_large(max_bytes, "the decompressed file")
            _refuse_blank_head(out)
            pending = inflater.unconsumed_tail
            if inflater.eof:
                rest = inflater.unused_data
                if rest[:2] == GZIP_MAGIC:  # another gzip member follows (as `cat a.gz b.gz`)
                    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    pending = rest
                    continue
                break  # trailing bytes after the last member are ignored, as gzip(1) does
            if not pending and not chunk:
                raise ImportRejected("truncated", "the gzip file ends before its compressed data")
    except zlib.error:
        raise ImportRejected("corrupt", "the gzip data is damaged and cannot be inflated") from None
    return bytes(out)


def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGICS


def activity_kind(name: str) -> str | None:
    """``.fit``/``.gpx``/``.tcx`` (optionally ``.gz``) for an activity file name, else None."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    for suffix in ACTIVITY_SUFFIXES:
        if lower.endswith(suffix):
            return suffix
    return None


def _skipped(name: str) -> bool:
    base = posixpath.basename(name)
    return not base or base.startswith(".") or name.startswith("__MACOSX/")


def open_zip(data: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, EOFError, ValueError, OSError):
        raise ImportRejected("corrupt", "the zip archive is damaged and cannot be read") from None


def activity_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The activity files of an archive: those under ``activities/`` when the archive
    has that folder (a Strava bulk export), else every .fit/.gpx/.tcx[.gz] file."""
    infos = [i for i in archive.infolist() if not i.is_dir() and not _skipped(i.filename)]
    candidates = [i for i in infos if activity_kind(i.filename) is not None]
    in_folder = [i for i in candidates if i.filename.lower().startswith("activities/")]
    return in_folder or candidates


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, max_bytes: int) -> bytes:
    """A member's bytes, streamed in chunks and stopped past ``max_bytes``."""
    out = bytearray()
    try:
        with archive.open(info) as stream:
            for chunk in _chunks(stream):
                out += chunk
                if len(out) > max_bytes:
                    raise _too_large(max_bytes, "the archive member")
                _refuse_blank_head(out)
    except ImportRejected:
        raise
    except NotImplementedError:
        raise ImportRejected(
            "unsupported_format", "the archive member uses an unsupported compression method"
        ) from None
    except RuntimeError:  # encrypted member
        raise ImportRejected("unsupported_format", "the archive member is encrypted") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        raise ImportRejected("corrupt", "the archive member is damaged") from None
    return bytes(out)


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    while chunk := stream.read(_CHUNK):
        yield chunk
