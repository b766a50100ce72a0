"""Every setting the service reads is in docs/service.md's tables (the README points there)."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices

from pacekeeper.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"


def _names(field: str) -> set[str]:
    """The environment names a field is read from: its alias, else PACEKEEPER_<FIELD>."""
    alias = Settings.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        return {str(choice).upper() for choice in alias.choices}
    if isinstance(alias, str):
        return {alias.upper()}
    return {f"PACEKEEPER_{field.upper()}"}


def test_every_setting_is_documented() -> None:
    text = DOC.read_text()
    missing = [field for field in Settings.model_fields
               if not any(f"`{name}`" in text for name in _names(field))]
    assert missing == [], f"settings missing from docs/service.md: {missing}"
