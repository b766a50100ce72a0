"""``Param``: naming and describing an argument with ``typing.Annotated``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Param:
    """Metadata for one argument: ``Annotated[int, Param(description="...")]``.

    ``name`` renames the argument on the wire (the Python parameter keeps its own name);
    ``required`` overrides what the signature says: ``required=False`` on a parameter
    without a default makes it optional with the value ``None`` when absent, and
    ``required=True`` on one with a default makes clients send it.
    """

    name: str | None = None
    description: str | None = None
    required: bool | None = None
    header: str | None = None
