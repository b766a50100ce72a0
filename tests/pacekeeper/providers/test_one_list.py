"""Nothing outside a provider's folder (and the registry) names a provider (issue 29, #4).

A provider's id as a string literal elsewhere in src/ is a second list of providers, or a
``provider == "garmin"`` branch that belongs behind a hook of its spec (webhook, rate
limits, production checks). The scan reads every module's syntax tree, so prose (comments,
docstrings that mention Strava) does not count; a literal that *is* an id does.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pacekeeper.providers import PROVIDERS

SRC = Path(__file__).resolve().parents[3] / "src" / "pacekeeper"
PROVIDERS_DIR = SRC / "providers"
# Where an id may be written: each provider's own folder, and the registry's one line.
ALLOWED = {PROVIDERS_DIR / "registry.py"}
# Archive layouts, not providers: each service's own "download your data" export is a file
# format (as FIT or TCX), its kind named as the API answers it ("strava", "garmin",
# "google", "apple"); no list of connectable providers derives from them.
FORMAT_DIRS = {SRC / "fitness" / "exports"}
# Each entry says why it is not a second list of providers. Keep it short.
ALLOWLIST: set[tuple[str, str]] = {
    # A FIT file's field (Garmin the device maker, in its SDK's names), not the provider.
    ("pacekeeper/fitness/importers/_fit.py", "garmin_product"),
    # The sandbox's admin panel: a development-only action serving Garmin's emulated
    # push payload (imported from the garmin folder); a hook would be larger than it.
    ("pacekeeper/providers/sandbox/_admin.py", "garmin/push"),
}


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of docstring nodes: prose, where naming providers is fine."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _literals(path: Path, ids: set[str]) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            # Two ids or more as words in one string: a hand-written list of providers
            # (a tool description's "strava, fitbit or garmin").
            words = set(re.findall(r"[a-z0-9_]+", node.value))
            if id(node) not in prose and len(words & ids) >= 2:
                found.append((node.lineno, node.value))
                continue
            text = node.value.strip().lower()
            # The id itself, or the id as a prefix of a key or path ("garmin-webhook:",
            # "garmin/push"): both are the provider named by hand.
            for ident in ids:
                if text == ident or text.startswith((f"{ident}-", f"{ident}:", f"{ident}/",
                                                     f"{ident}_", f"/{ident}")):
                    found.append((node.lineno, node.value))
    return found


def _offenders(ids: set[str]) -> list[str]:
    own = {PROVIDERS_DIR / ident for ident in ids}
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if path in ALLOWED or any(folder in path.parents for folder in own | FORMAT_DIRS):
            continue
        rel = str(path.relative_to(SRC.parent))
        for line, value in _literals(path, ids):
            if (rel, value) not in ALLOWLIST:
                bad.append(f"{rel}:{line}: {value!r}")
    return bad


def test_no_provider_is_named_outside_its_folder_and_the_registry() -> None:
    offenders = _offenders(set(PROVIDERS))
    assert offenders == [], "move this behind the provider's spec:\n" + "\n".join(offenders)


def test_the_scan_finds_a_named_provider(tmp_path: Path) -> None:
    """The scan is not blind: a `== "garmin"` branch and a "garmin-webhook:" key count."""
    sample = tmp_path / "sample.py"
    sample.write_text('"""Garmin and strava, garmin in a docstring do not count."""\n'
                      'def f(p):\n    return p == "garmin" or f"{p}" == "garmin-webhook:x"\n'
                      'D = "Start connecting strava or garmin"\n')
    assert sorted(v for _, v in _literals(sample, {"garmin", "strava"})) == [
        "Start connecting strava or garmin", "garmin", "garmin-webhook:x"]
