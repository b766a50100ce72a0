"""Broadcast benchmark: idle subscriber memory and 1,000-way fan-out latency (DECL-6).

``python -m bench.broadcast`` (``--quick`` for a small run). See __main__.py.
"""
