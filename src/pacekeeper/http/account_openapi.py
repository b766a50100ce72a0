"""OpenAPI path items of the account endpoints (`pacekeeper.http.account`)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json

_PASSWORD = {"type": "object", "required": ["password"],
             "properties": {"password": {"type": "string"}}}


def account_paths() -> dict[str, dict[str, Any]]:
    return {
        "/api/account": {"delete": {
            "summary": "Delete my account and every piece of my data (password confirms)",
            "security": _AUTH,
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": _PASSWORD}}},
            "responses": {"200": _json("deleted", {"type": "object"}),
                          "400": _err("bad input"), "401": _err("authentication required"),
                          "403": _err("CSRF failure, or the password is not correct"),
                          "429": _err("rate limited, or too many password attempts (the "
                                      "login limits; Retry-After)")}}},
        "/api/account/password": {"post": {
            "summary": "Change my password; every other session ends",
            "security": _AUTH,
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["current_password", "new_password"],
                "properties": {"current_password": {"type": "string"},
                               "new_password": {"type": "string"}}}}}},
            "responses": {"200": _json("changed", {"type": "object"}),
                          "400": _err("bad input or weak password"),
                          "401": _err("authentication required"),
                          "403": _err("CSRF failure, or the password is not correct"),
                          "429": _err("rate limited, or too many password attempts (the "
                                      "login limits; Retry-After)")}}},
        "/api/account/export": {"get": {
            "summary": "Download all my data as one zip archive",
            "security": _AUTH,
            "responses": {"200": {"description": "the archive", "content": {
                "application/zip": {"schema": {"type": "string", "format": "binary"}}}},
                "401": _err("authentication required"), "429": _err("rate limited")}}},
        "/api/account/assistants": {"get": {
            "summary": "The OAuth clients (assistants) I authorised",
            "security": _AUTH,
            "responses": {"200": _json("assistants", {"type": "object"}),
                          "401": _err("authentication required"),
                          "429": _err("rate limited")}}},
        "/api/account/assistants/{client_id}": {"delete": {
            "summary": "Revoke every grant of one assistant",
            "security": _AUTH,
            "parameters": [{"name": "client_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": _json("revoked", {"type": "object"}),
                          "401": _err("authentication required"), "403": _err("CSRF failure"),
                          "404": _err("no grant of that client"),
                          "429": _err("rate limited")}}},
    }


__all__ = ["account_paths"]
