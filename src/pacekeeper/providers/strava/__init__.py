"""Strava: API v3 over OAuth 2.0 (``client``), its shapes (``_map``), its emulation in
the sandbox (``sandbox``) and its ``SPEC`` (``spec``)."""

from .client import StravaClient

__all__ = ["StravaClient"]
