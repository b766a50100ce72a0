"""Transports: each moves bytes to and from the sans-IO protocol core."""
