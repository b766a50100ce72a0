"""The FIT record layer, below Garmin's SDK: what its decoder cannot take, made readable.

Two cases where the limit is the decoder's, not the file's (issue 27 item 9):

- ``readable_prefix``: a file cut short (an upload or a copy interrupted) holds complete
  messages before the cut. The SDK refuses the whole file; the complete messages are
  rewritten as a FIT file of their own (data size and CRCs recomputed) that it reads.
- ``expand_compressed_timestamps``: old devices (Forerunner 70, 110 era ANT+ watches)
  write records with a compressed-timestamp header (a 5-bit offset from the last full
  timestamp, FIT protocol 1.0, section 4.1.2), which ``garmin-fit-sdk`` refuses ("not
  currently supported"). Each such record is rewritten as a normal data message with
  its full timestamp (field 253) under an extended definition, so every value the
  device wrote reaches the SDK unchanged.

Only the record framing is read here (headers, definitions, sizes); every field value
is still decoded by the SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

from garmin_fit_sdk.crc_calculator import CrcCalculator

from pacekeeper.errors import PacekeeperError

_COMPRESSED: Final = 0x80
_DEFINITION: Final = 0x40
_DEVELOPER: Final = 0x20
_TIMESTAMP_FIELD: Final = 253
_UINT32: Final = 0x86


@dataclass(frozen=True, slots=True)
class _Definition:
    raw: bytes  # the definition message as written, header byte included
    big_endian: bool
    size: int  # bytes of a data message's payload
    fields_size: int  # of which the normal fields (developer fields follow)
    timestamp_at: int | None  # offset of field 253 in the payload


@dataclass(frozen=True, slots=True)
class _Record:
    at: int
    end: int
    local: int
    definition: _Definition | None  # set on a definition message
    compressed_offset: int | None  # set on a compressed-timestamp data message


class _Cut(PacekeeperError):
    """The records end inside a message (``overrun``) or reach a data message with no
    definition (the framing is lost: bytes went missing before this point)."""

    def __init__(self, at: int, *, overrun: bool) -> None:
        super().__init__(at)
        self.at = at
        self.overrun = overrun


def _records(data: bytes, start: int, end: int) -> Iterator[_Record]:
    defs: dict[int, _Definition] = {}
    pos = start
    while pos < end:
        header = data[pos]
        if header & _COMPRESSED:
            local = (header >> 5) & 0x03
            if local not in defs:
                raise _Cut(pos, overrun=False)
            stop = pos + 1 + defs[local].size
            record = _Record(pos, stop, local, None, header & 0x1F)
        elif header & _DEFINITION:
            local = header & 0x0F
            if pos + 6 > end:
                raise _Cut(pos, overrun=True)
            big = data[pos + 2] == 1
            count = data[pos + 5]
            p = pos + 6
            if p + 3 * count > end:
                raise _Cut(pos, overrun=True)
            fields_size = 0
            timestamp_at = None
            for i in range(count):
                number, size = data[p + 3 * i], data[p + 3 * i + 1]
                if number == _TIMESTAMP_FIELD and size == 4:
                    timestamp_at = fields_size
                fields_size += size
            p += 3 * count
            size_all = fields_size
            if header & _DEVELOPER:
                if p + 1 > end:
                    raise _Cut(pos, overrun=True)
                dev_count = data[p]
                p += 1
                if p + 3 * dev_count > end:
                    raise _Cut(pos, overrun=True)
                size_all += sum(data[p + 3 * i + 1] for i in range(dev_count))
                p += 3 * dev_count
            stop = p
            definition = _Definition(bytes(data[pos:stop]), big, size_all, fields_size,
                                     timestamp_at)
            record = _Record(pos, stop, local, definition, None)
            defs[local] = definition
        else:
            local = header & 0x0F
            if local not in defs:
                raise _Cut(pos, overrun=False)
            stop = pos + 1 + defs[local].size
            record = _Record(pos, stop, local, None, None)
        if stop > end:
            raise _Cut(pos, overrun=True)
        yield record
        pos = stop


def _file(header: bytes, body: bytes) -> bytes:
    """A FIT file: ``header`` (12 or 14 bytes) with its data size and CRCs rewritten."""
    out = bytearray(header)
    out[4:8] = len(body).to_bytes(4, "little")
    if len(out) >= 14:
        out[12:14] = CrcCalculator.calculate_crc(out, 0, 12).to_bytes(2, "little")
    out += body
    out += CrcCalculator.calculate_crc(out, 0, len(out)).to_bytes(2, "little")
    return bytes(out)


def readable_prefix(data: bytes) -> tuple[bytes, int, int] | None:
    """The complete messages before a cut, as a FIT file; how many data messages, and
    the byte where reading stopped. None when not one data message is complete.

    Where the framing is lost before the end (a data message without a definition:
    bytes went missing earlier, as when a transfer in text mode drops each CR before an
    LF), the message before that point is itself suspect (it read the missing bytes from
    the next one) and is dropped too."""
    header_size = data[0]
    declared = header_size + int.from_bytes(data[4:8], "little")
    end = min(declared, len(data))
    ends = [header_size]
    kinds: list[bool] = []  # True for a data message
    stopped = end
    try:
        for record in _records(data, header_size, end):
            ends.append(record.end)
            kinds.append(record.definition is None)
    except _Cut as cut:
        stopped = cut.at
        if not cut.overrun:
            while kinds and not kinds[-1]:
                kinds.pop()
                ends.pop()
            if kinds:
                kinds.pop()
                ends.pop()
    messages = sum(kinds)
    if messages == 0:
        return None
    return _file(data[:header_size], data[header_size:ends[-1]]), messages, stopped


def has_compressed_timestamps(data: bytes) -> bool:
    header_size = data[0]
    end = min(header_size + int.from_bytes(data[4:8], "little"), len(data))
    try:
        return any(r.compressed_offset is not None for r in _records(data, header_size, end))
    except _Cut:
        return False


def expand_compressed_timestamps(data: bytes) -> bytes:
    """The same FIT file (its first, or only, part) with every compressed-timestamp
    record written as a normal data message carrying its full timestamp. The timestamp
    is the last full one with its low five bits replaced by the offset, plus 32 when the
    offset is below them (the counter rolled over): FIT protocol, section 4.1.2."""
    header_size = data[0]
    end = min(header_size + int.from_bytes(data[4:8], "little"), len(data))
    body = bytearray()
    defs: dict[int, _Definition] = {}
    extended: set[int] = set()  # local types whose current definition has field 253 added
    last_timestamp = 0
    try:
        records = list(_records(data, header_size, end))
    except _Cut:
        records = []
    for record in records:
        raw = data[record.at:record.end]
        if record.definition is not None:
            defs[record.local] = record.definition
            extended.discard(record.local)
            body += raw
            continue
        definition = defs[record.local]
        order: Literal["big", "little"] = "big" if definition.big_endian else "little"
        payload = raw[1:]
        if record.compressed_offset is None:
            if record.local in extended:  # back to the definition the file wrote
                body += definition.raw
                extended.discard(record.local)
            if definition.timestamp_at is not None:
                at = definition.timestamp_at
                last_timestamp = int.from_bytes(payload[at:at + 4], order)
            body += raw
            continue
        offset = record.compressed_offset
        timestamp = (last_timestamp & ~0x1F) + offset
        if offset < (last_timestamp & 0x1F):
            timestamp += 0x20
        last_timestamp = timestamp
        if record.local not in extended:
            body += _with_timestamp(definition)
            extended.add(record.local)
        body.append(record.local)
        body += payload[:definition.fields_size]
        body += timestamp.to_bytes(4, order)
        body += payload[definition.fields_size:]
    return _file(data[:header_size], bytes(body))


def _with_timestamp(definition: _Definition) -> bytes:
    """``definition`` with field 253 (timestamp, uint32) after its normal fields."""
    raw = bytearray(definition.raw)
    count = raw[5]
    cut = 6 + 3 * count
    raw[5] = count + 1
    return bytes(raw[:cut]) + bytes((_TIMESTAMP_FIELD, 4, _UINT32)) + bytes(raw[cut:])
