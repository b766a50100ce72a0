"""A Strava "Download your data" archive's ``activities.csv``: what the person wrote
about each activity (name, description, gear, commute), keyed by the activity file it
names (``activities/123.fit.gz``). Columns are found by their header, the first of a
repeated name (the file repeats "Elapsed Time" and "Distance" in other units)."""

from __future__ import annotations

import csv
import io
from typing import IO, Any, Final

CSV_NAME: Final = "activities.csv"
_COLUMNS: Final = {"name": "Activity Name", "description": "Activity Description",
                   "gear": "Activity Gear", "commute": "Commute", "file": "Filename"}


def _flag(text: str) -> bool | None:
    lower = text.strip().lower()
    return True if lower in ("true", "1", "yes") else False if lower in ("false", "0", "no") \
        else None


def read_listing(stream: IO[bytes]) -> dict[str, dict[str, Any]]:
    """Per activity file named in the listing, the values to apply to its activity
    (only those the listing gives: an empty cell changes nothing)."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    rows = csv.reader(text)
    header = next(rows, None)
    if header is None:
        return {}
    where = {key: header.index(col) for key, col in _COLUMNS.items() if col in header}
    if "file" not in where:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        def cell(key: str, row: list[str] = row) -> str:
            i = where.get(key)
            return row[i].strip() if i is not None and i < len(row) else ""
        if not (file := cell("file")):
            continue  # a manual entry: no file, nothing to import it from
        values: dict[str, Any] = {}
        if name := cell("name"):
            values["name"] = name[:300]
        if description := cell("description"):
            values["description"] = description[:10_000]
        if gear := cell("gear"):
            values["gear"] = gear[:200]
        if (commute := _flag(cell("commute"))) is not None:
            values["commute"] = commute
        out[file.lower()] = values
    return out


__all__ = ["CSV_NAME", "read_listing"]
