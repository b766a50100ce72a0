"""pacekeeper."""
