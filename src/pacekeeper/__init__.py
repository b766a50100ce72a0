"""pacekeeper: a multi-tenant fitness-data service for AI assistants."""

__version__ = "0.1.0"

__all__ = ["__version__"]
