"""No module over 600 lines (issue 29, "Done when"): a file past it holds more than one
concern; split it by purpose, as fitness/analysis/ and mcpcast's _schema_tidy were."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
LIMIT = 600


def test_no_module_over_600_lines() -> None:
    sizes = {str(path.relative_to(SRC)): len(path.read_text().splitlines())
             for path in SRC.rglob("*.py")}
    assert len(sizes) > 300, "the source tree was not found"
    assert {name: n for name, n in sizes.items() if n > LIMIT} == {}
