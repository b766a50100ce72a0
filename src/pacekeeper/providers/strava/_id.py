"""This provider's id: its registry key, path segment and stored name."""

from typing import Final

ID: Final = "strava"
