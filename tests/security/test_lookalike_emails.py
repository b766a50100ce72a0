"""Finding 12: look-alike emails cannot become separate accounts (ACC-3, ACC-4).

Before: fullwidth `ａ`, dotless `ı`, Cyrillic `а` and a zero-width space each made a new
account next to `alice@example.com`.
"""

from __future__ import annotations

from pathlib import Path

from tests.security._live_auth import PASSWORD, live

DUPLICATE = {"error": "conflict", "message": "a user with this email already exists"}


def test_confusable_twins_are_refused_like_duplicates(tmp_path: Path) -> None:
    """ACC-3 (finding 12): NFKC folds fullwidth letters to the same address; a TS #39
    skeleton match (dotless i, Cyrillic a, digit one for l, in the domain too) is a 409
    with the duplicate's own message; nothing is stored."""
    with live(tmp_path) as svc:
        assert svc.register("alice@example.com").status_code == 201
        twins = [
            "\uff41lice@example.com",  # fullwidth a
            "al\u0131ce@example.com",  # dotless i
            "\u0430lice@example.com",  # Cyrillic a
            "a1ice@example.com",  # digit one
            "alice@ex\u0430mple.com",  # Cyrillic a in the domain
            "ALICE@EXAMPLE.COM",
        ]
        for twin in twins:
            answer = svc.register(twin)
            assert answer.status_code == 409, (twin, answer.text)
            assert answer.json() == DUPLICATE
        assert svc.register("bob@example.com").status_code == 201


def test_invisible_characters_are_bad_input(tmp_path: Path) -> None:
    """ACC-4 (finding 12): zero-width and other invisible characters are 400."""
    with live(tmp_path) as svc:
        for email in ("al\u200bice@example.com", "alice\u200d@example.com",
                      "al\u00adice@example.com", "alice@exam\u200bple.com", "\u2060a@b.co"):
            answer = svc.register(email)
            assert answer.status_code == 400, (email, answer.text)
            assert answer.json()["error"] == "validation_error"


def test_login_matches_the_normalised_form(tmp_path: Path) -> None:
    """ACC-5 (finding 12): signing in with the fullwidth or upper-case spelling reaches
    the one account; a confusable twin does not."""
    with live(tmp_path) as svc:
        assert svc.register("alice@example.com").status_code == 201
        assert svc.login("\uff41lice@example.com").status_code == 200
        assert svc.login(" Alice@Example.COM").status_code == 200
        assert svc.login("\u0430lice@example.com", PASSWORD).status_code == 401
