"""Owner: whose data a call is about, the one identity every layer passes down (HTTP
handlers and MCP tools build it from the caller; services and stores filter by it).

A leaf module (standard library only) so that naming a person's data needs no feature
package: connections, jobs, the account service and the tools all take an `Owner`
without importing fitness.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Owner:
    """Whose data: every store call names the user (and the tenant, for new rows).

    ``withheld``: the providers whose data known only from them this reader may not see
    (an assistant, under those providers' terms: ``providers.Policies``); the stores'
    reads leave it out. Empty for the person themselves (the web, their HTTP API)."""

    user_id: uuid.UUID
    tenant_id: uuid.UUID
    withheld: frozenset[str] = frozenset()


__all__ = ["Owner"]
