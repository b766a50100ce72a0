"""tools/call ``whoami`` through the whole Pacekeeper service (JWT authentication, tenant
rate limit, SQLite) under uvicorn + uvloop + httptools, next to FastMCP and mcpcast serving
a trivial tool without authentication, plus login latency (Argon2id)."""

from ._requests import check_whoami, initialize_body, whoami_request
from ._service import pacekeeper_spec, service_env, stored_hash_parameters

__all__ = [
    "check_whoami",
    "initialize_body",
    "pacekeeper_spec",
    "service_env",
    "stored_hash_parameters",
    "whoami_request",
]
