"""The real activity files under tests/data/activities, parsed once per test session."""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

from pacekeeper.fitness.importers import ImportRejected, ParsedActivity, parse_activity

DATA = Path(__file__).resolve().parents[2] / "data" / "activities"


def all_files() -> list[str]:
    return sorted(str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file())


@cache
def raw(name: str) -> bytes:
    return (DATA / name).read_bytes()


@cache
def content(name: str) -> bytes:
    """The activity file's own bytes (the large XML files are stored gzip-compressed)."""
    data = raw(name)
    return gzip.decompress(data) if name.endswith(".gz") else data


@cache
def parsed(name: str) -> ParsedActivity | ImportRejected:
    try:
        return parse_activity(raw(name), Path(name).name)
    except ImportRejected as rejected:
        return rejected


def activity(name: str) -> ParsedActivity:
    result = parsed(name)
    assert isinstance(result, ParsedActivity), result
    return result
