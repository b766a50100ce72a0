"""RFC 6570 URI templates, the subset resource templates need: ``{var}`` and ``{+var}``.

``{var}`` (level 1, simple expansion) matches one non-empty path segment: no ``/``, and
no ``?`` or ``#`` since those would start the query or fragment of the URI. ``{+var}``
(level 2, reserved expansion) matches any non-empty text, ``/`` included. Matched values
are percent-decoded. Other operators (``{#x}``, ``{?x}``, ``{x,y}``, ``{x*}``...) are
refused with ``UriTemplateError`` so a declaration never silently means something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from ._errors import McpcastError

# RFC 6570 varname: ALPHA / DIGIT / "_" / pct-encoded, dot-separated.
_VARNAME = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*"
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARIABLE = re.compile(rf"(\+?)({_VARNAME})")
_RESERVED_SAFE = ":/?#[]@!$&'()*+,;="
_PCT_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}")


class UriTemplateError(McpcastError, ValueError):
    """The template uses syntax this implementation does not support, or is malformed."""


def is_template(text: str) -> bool:
    """True when ``text`` is meant as a template: it has a brace, which a URI never has.

    Malformed ones (``x://{}``, ``x://{a``) count too, so that ``UriTemplate`` refuses
    them rather than their being served as fixed URIs.
    """
    return "{" in text or "}" in text


@dataclass(frozen=True)
class _Part:
    name: str
    reserved: bool


@dataclass(frozen=True)
class UriTemplate:
    template: str
    variables: tuple[str, ...] = field(init=False)
    _parts: tuple[str | _Part, ...] = field(init=False, repr=False, compare=False)
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _groups: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts: list[str | _Part] = []
        pattern: list[str] = []
        groups: list[str] = []  # regex group index -> variable name
        position = 0
        for expression in _EXPRESSION.finditer(self.template):
            literal = self.template[position:expression.start()]
            _check_literal(self.template, literal)
            parts.append(literal)
            pattern.append(re.escape(literal))
            part = _parse_expression(self.template, expression.group(1))
            parts.append(part)
            if part.name in groups:
                # A repeated variable must match the same text again.
                pattern.append(f"(?P=g{groups.index(part.name)})")
            else:
                body = ".+" if part.reserved else "[^/?#]+"
                pattern.append(f"(?P<g{len(groups)}>{body})")
                groups.append(part.name)
            position = expression.end()
        literal = self.template[position:]
        _check_literal(self.template, literal)
        parts.append(literal)
        pattern.append(re.escape(literal))
        object.__setattr__(self, "variables", tuple(groups))
        object.__setattr__(self, "_parts", tuple(p for p in parts if p != ""))
        object.__setattr__(self, "_regex", re.compile("".join(pattern), re.DOTALL))
        object.__setattr__(self, "_groups", tuple(groups))

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of ``uri`` (percent-decoded), or ``None`` when it does not fit."""
        found = self._regex.fullmatch(uri)
        if found is None:
            return None
        values: dict[str, str] = {}
        for index, name in enumerate(self._groups):
            try:
                values[name] = unquote(found.group(f"g{index}"), errors="strict")
            except UnicodeDecodeError:
                return None  # not valid UTF-8 once decoded: no resource can have that name
        return values

    def expand(self, **values: Any) -> str:
        """Fill in every variable (``str()`` of each value, percent-encoded as RFC 6570 says).

        A variable without a value raises ``KeyError``: a half-filled URI is never useful.
        """
        out: list[str] = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
                continue
            if part.name not in values:
                raise KeyError(f"no value for URI template variable {part.name!r}")
            text = str(values[part.name])
            out.append(_encode_reserved(text) if part.reserved else quote(text, safe=""))
        return "".join(out)


def _parse_expression(template: str, body: str) -> _Part:
    found = _VARIABLE.fullmatch(body)
    if found is None:
        raise UriTemplateError(
            f"unsupported URI template expression {{{body}}} in {template!r}: "
            "only {name} and {+name} are supported")
    return _Part(name=found.group(2), reserved=found.group(1) == "+")


def _check_literal(template: str, literal: str) -> None:
    if "{" in literal or "}" in literal:
        raise UriTemplateError(f"unbalanced brace in URI template {template!r}")


def _encode_reserved(text: str) -> str:
    """Reserved expansion: reserved characters and existing %XX triplets pass through."""
    out: list[str] = []
    position = 0
    for triplet in _PCT_TRIPLET.finditer(text):
        out.append(quote(text[position:triplet.start()], safe=_RESERVED_SAFE))
        out.append(triplet.group(0))
        position = triplet.end()
    out.append(quote(text[position:], safe=_RESERVED_SAFE))
    return "".join(out)
