"""The analysis service split by purpose (issue 29 item 2): one home per method, no part
over 600 lines, and the facade answering every part's questions."""

from __future__ import annotations

import inspect
from pathlib import Path

from pacekeeper.fitness import analysis
from pacekeeper.fitness.analysis import PARTS, AnalysisBase, AnalysisService


def _own(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) or isinstance(
        v, staticmethod)}


def test_no_two_parts_define_a_method_of_one_name() -> None:
    """Parts are joined by inheritance: a name defined twice would shadow the other part's
    method silently (issue 29: the tool mixins had that flaw)."""
    seen: dict[str, str] = {n: "AnalysisBase" for n in _own(AnalysisBase)}
    for part in PARTS:
        for name in _own(part) - {"__init__"}:
            assert name not in seen, f"{part.__name__}.{name} shadows {seen[name]}.{name}"
            seen[name] = part.__name__


def test_the_facade_has_every_parts_methods() -> None:
    for part in PARTS:
        assert issubclass(AnalysisService, part), part
        for name in _own(part):
            assert getattr(AnalysisService, name) is getattr(part, name), name


def test_no_analysis_module_over_600_lines() -> None:
    folder = Path(analysis.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert len(sizes) >= 9, sizes
    assert max(sizes.values()) <= 600, sizes
