"""Skeletons of strings per Unicode TS #39 ("confusable detection"), for emails.

Two strings that look alike (Cyrillic U+0430 and Latin `a`, dotless U+0131 and `i`, `l` and
`1`) have the same skeleton. The data are Unicode's confusables, as shipped by the
`confusable-homoglyphs` package (its `confusables.json`: each character with the
characters it can be mistaken for). Those pairs are joined into classes, and every
character maps to one member of its class: a lower-case ASCII letter if the class has
one, else an ASCII character, else the smallest code point, so ASCII addresses keep
ASCII skeletons. Multi-character prototypes (`m` ~ `rn`) are not applied: only
one-for-one look-alikes are, which is where Unicode spoofing of an address lives.

skeleton(s) = NFD(map(NFD(s))), as TS #39 section 4 defines it, on the already
normalised (NFKC, lower-case) address.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources


def _rank(char: str) -> tuple[int, int]:
    if "a" <= char <= "z":
        return (0, ord(char))
    if ord(char) < 128:
        return (1, ord(char))
    return (2, ord(char))


@cache
def _prototypes() -> dict[str, str]:
    text = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(
        encoding="utf-8")
    data: dict[str, list[dict[str, str]]] = json.loads(text)
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        root = char
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(char, char) != root:  # path compression
            parent[char], char = root, parent[char]
        return root

    for char, homoglyphs in data.items():
        if len(char) != 1:
            continue
        for entry in homoglyphs:
            other = entry["c"]
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    # The better-ranked root wins, so each class ends at its prototype.
                    if _rank(a) <= _rank(b):
                        parent[b] = a
                    else:
                        parent[a] = b
    table = {char: find(char) for char in list(parent)}
    return {char: proto for char, proto in table.items() if proto != char}


def skeleton(text: str) -> str:
    protos = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(protos.get(c, c) for c in decomposed))


__all__ = ["skeleton"]
