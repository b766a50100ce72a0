"""Issue 27, "Proof": every figure the service shows on a corpus of real activity files
we did not write (tests/data/NOTICE), against an independent value (the device's own
session and lap messages read with Garmin's FIT SDK, TCX lap totals, gpxpy).

Tolerances from the issue: device totals within 0.5 %, figures derived from samples
within 1 % (never tighter than the device's own resolution: 1 s, 1 bpm, 1 W, 1 m, 1 kcal).
Each disagreement beyond them is listed in ``corpus_table.EXCEPTIONS`` with its reason;
a new one fails here, and so does a listed one that has gone away. The same rows make
the table in docs/import.md (``python -m tests.pacekeeper.fitness.corpus_table``).
"""

from __future__ import annotations

from collections import Counter

import pytest

from pacekeeper.fitness.importers import ImportRejected, ParsedActivity

from ._activity_files import DATA, parsed
from .corpus_table import CORPUS, EXCEPTIONS, Entry, failures, rows, stale

pytestmark = pytest.mark.slow  # about a minute: ~60 files, each decoded twice


def test_the_corpus_is_as_wide_as_the_issue_asks() -> None:
    """At least 40 real files, 10 device makers and 8 sports, each file present."""
    assert len(CORPUS) >= 40
    assert len({e.maker for e in CORPUS}) >= 10
    kinds = Counter(e.sport.split(" (")[0] for e in CORPUS)
    assert len(kinds) >= 8, kinds
    for entry in CORPUS:
        assert (DATA / entry.path).is_file(), entry.path
    assert len({e.path for e in CORPUS}) == len(CORPUS)


def test_every_exception_names_a_corpus_file() -> None:
    paths = {e.path for e in CORPUS}
    assert {path for path, _, _ in EXCEPTIONS} <= paths


@pytest.mark.parametrize("entry", CORPUS, ids=lambda e: e.path)
def test_every_figure_shown_agrees_with_the_independent_value(entry: Entry) -> None:
    result = parsed(entry.path)
    if entry.expect != "ok":
        assert isinstance(result, ImportRejected), result
        assert result.reason == entry.expect
        return
    assert isinstance(result, ParsedActivity), result
    assert rows(entry.path) or entry.path.endswith(".gpx"), "no independent value to compare"
    assert failures(entry) == []
    assert stale(entry) == [], "listed exceptions that now agree: remove them"
