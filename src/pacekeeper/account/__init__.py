"""The person's rights over their own account (data export, deletion, password,
authorised assistants): the service the account endpoints and the web pages call."""

from pacekeeper.account._service import AccountParts, AccountService, Assistant
from pacekeeper.account._store import Grant, SqlAccountStore

__all__ = ["AccountParts", "AccountService", "Assistant", "Grant", "SqlAccountStore"]
