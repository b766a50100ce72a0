"""RFC 6749: the authorization endpoint (browser pages) and the token endpoint."""

from pacekeeper.oauth2.rfc6749.authorize import authorize
from pacekeeper.oauth2.rfc6749.token import client_endpoint, json_no_store, read_form, token

__all__ = ["authorize", "client_endpoint", "json_no_store", "read_form", "token"]
