"""Fitbit: the Web API over OAuth 2.0 + PKCE (``client``), its shapes (``_map``), its
emulation in the sandbox (``sandbox``) and its ``SPEC`` (``spec``)."""

from .client import FitbitClient

__all__ = ["FitbitClient"]
