"""One exception root: every exception class pacekeeper defines derives from
``PacekeeperError``, and the tree in ``pacekeeper.errors``' docstring names each one."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pacekeeper
from pacekeeper import errors
from pacekeeper.errors import PacekeeperError

_SKIP = ("pacekeeper.providers.sandbox.__main__",)


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(pacekeeper.__path__, "pacekeeper."):
        if info.name in _SKIP:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__.startswith("pacekeeper")):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_exception_derives_from_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) > 40  # the walk did find them
    strays = sorted(name for name, cls in classes.items() if not issubclass(cls, PacekeeperError))
    assert strays == []


def test_the_docstring_tree_names_every_exception() -> None:
    doc = errors.__doc__ or ""
    drawn = set(re.findall(r"\b([A-Z_][A-Za-z0-9_]*)\b", doc))
    missing = sorted(
        name for name, cls in _exception_classes().items() if cls.__name__ not in drawn
    )
    assert missing == []
