"""What a byte string is: FIT, GPX, TCX, gzip or zip, judged from its content.

- FIT: a 12- or 14-byte header whose bytes 8..11 are ``.FIT``.
- gzip: the magic ``1f 8b``; zip: ``PK\\x03\\x04`` (or the empty-archive ``PK\\x05\\x06``).
- XML: the name of the root element, found by skipping a byte-order mark, white
  space, the XML declaration, comments and processing instructions: ``gpx`` or
  ``TrainingCenterDatabase`` (any namespace prefix). A document type declaration
  (``<!DOCTYPE``) in the prolog is refused right here, before any XML parser sees the
  document: GPX and TCX are defined by XML schemas and never carry a DTD, and a DTD
  is how entity-expansion (billion laughs) and external-entity (XXE) attacks arrive.

The file name is only a hint: it makes the message clearer when the content does not
match what the name claims ("named .fit but not a FIT file" is ``corrupt``; content
of no known kind and no telling name is ``unsupported_format``).
"""

from __future__ import annotations

import codecs
from typing import Final, Literal

from ._archive import GZIP_MAGIC, PROLOG_WINDOW, activity_kind, is_zip
from ._errors import ImportRejected

Kind = Literal["fit", "gpx", "tcx", "gzip", "zip"]

_PROLOG_WINDOW: Final = PROLOG_WINDOW
_ROOTS: Final[dict[str, Kind]] = {"gpx": "gpx", "TrainingCenterDatabase": "tcx"}


def is_fit_header(data: bytes) -> bool:
    return len(data) >= 12 and data[0] in (12, 14) and data[8:12] == b".FIT"


def sniff(data: bytes, filename: str | None = None) -> Kind:
    """The kind of ``data``, or ``ImportRejected`` saying why it has none."""
    if not data.strip(b" \t\r\n\x00"):
        raise ImportRejected("empty", "the file is empty")
    if is_fit_header(data):
        return "fit"
    if data[:2] == GZIP_MAGIC:
        return "gzip"
    if is_zip(data):
        return "zip"
    root = xml_root(data)
    if root is not None:
        kind = _ROOTS.get(root)
        if kind is not None:
            return kind
        raise ImportRejected(
            "unsupported_format",
            "the file is an XML document but neither GPX nor TCX",
        )
    hint = activity_kind(filename or "")
    if hint == ".fit":
        if len(data) < 12:
            raise ImportRejected("truncated", "the file ends inside the FIT header")
        raise ImportRejected("corrupt", "the file is named .fit but has no valid FIT header")
    if hint is not None:
        raise ImportRejected("corrupt", f"the file is named {hint} but is not an XML document")
    raise ImportRejected(
        "unsupported_format", "the file is not a FIT, GPX or TCX activity (nor gzip or zip)"
    )


def _prolog_text(data: bytes) -> str:
    head = data[:_PROLOG_WINDOW]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return head.decode("utf-16", errors="replace")
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8) :]
    return head.decode("utf-8", errors="replace")


def xml_root(data: bytes) -> str | None:
    """The local name of the root element when ``data`` starts like an XML document."""
    text = _prolog_text(data)
    i = 0
    n = len(text)
    while True:
        while i < n and text[i] in " \t\r\n\ufeff":
            i += 1
        if i >= n or text[i] != "<":
            return None
        if text.startswith("<?", i):
            end = text.find("?>", i + 2)
            if end < 0:
                return None
            i = end + 2
        elif text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            if end < 0:
                return None
            i = end + 3
        elif text.startswith("<!", i):
            if text[i + 2 : i + 9].upper() == "DOCTYPE":
                raise ImportRejected(
                    "corrupt",
                    "the XML document declares a DOCTYPE; GPX and TCX files never do, "
                    "and entity declarations are not expanded",
                )
            return None
        else:
            j = i + 1
            while j < n and text[j] not in " \t\r\n/>":
                j += 1
            name = text[i + 1 : j]
            return name.rpartition(":")[2] or None
