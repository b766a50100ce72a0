"""The tool groups are joined into one server class by inheritance (mcp/_tools.py): a
method name defined by two groups would shadow the other's silently, and one of the two
tools would be gone from tools/list without a word (issue 29, "Also")."""

from __future__ import annotations

import inspect

from pacekeeper.mcp._tools import PacekeeperTools


def _own(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items()
            if inspect.isfunction(value) or isinstance(value, staticmethod | classmethod)
            or callable(getattr(value, "__func__", None))}


def test_no_two_tool_groups_define_a_method_of_one_name() -> None:
    groups = [base for base in PacekeeperTools.__mro__[1:] if base is not object]
    assert len(groups) >= 12, groups
    seen: dict[str, str] = {name: "PacekeeperTools" for name in _own(PacekeeperTools)}
    for group in groups:
        for name in _own(group) - {"__init__", "__init_subclass__"}:
            assert name not in seen, f"{group.__name__}.{name} shadows {seen[name]}.{name}"
            seen[name] = group.__name__
