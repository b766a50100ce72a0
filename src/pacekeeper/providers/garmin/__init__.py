"""Garmin: the Health API over OAuth 1.0a or 2.0 + PKCE (``client``), its shapes
(``_map``), its push and ping notifications (``webhook``), its emulation in the sandbox
(``sandbox``) and its ``SPEC`` (``spec``)."""

from .client import GarminClient

__all__ = ["GarminClient"]
