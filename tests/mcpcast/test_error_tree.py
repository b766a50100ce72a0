"""One exception root: every exception class mcpcast defines derives from ``McpcastError``
(two documented exceptions aside), and the tree in ``mcpcast._errors``' docstring names
each one."""

from __future__ import annotations

import importlib
import pkgutil
import re

import mcpcast
from mcpcast import McpcastError, _errors

_SKIP = ("mcpcast.__main__", "mcpcast.bridge.__main__")
# Outside the root on purpose, as the docstring says: a control-flow signal that
# ``except Exception`` must not catch, and the standalone bridge's own error.
_OUTSIDE = {"mcpcast.protocol.roundtrip.InputRequired", "mcpcast.bridge._http.HttpError"}


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(mcpcast.__path__, "mcpcast."):
        if info.name in _SKIP:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__.startswith("mcpcast")):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_exception_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) > 20  # the walk did find them
    strays = sorted(name for name, cls in classes.items()
                    if not issubclass(cls, McpcastError) and name not in _OUTSIDE)
    assert strays == []
    assert set(classes) >= _OUTSIDE  # the exceptions still exist (else drop them here)


def test_the_docstring_tree_names_every_exception() -> None:
    drawn = set(re.findall(r"\b([A-Z_][A-Za-z0-9_]*)\b", _errors.__doc__ or ""))
    missing = sorted(name for name, cls in _exception_classes().items()
                     if cls.__name__ not in drawn)
    assert missing == []


def test_one_auth_required() -> None:
    """One ``AuthRequired`` class, used by every transport."""
    named = [name for name in _exception_classes() if name.endswith(".AuthRequired")]
    assert named == ["mcpcast._errors.AuthRequired"]
