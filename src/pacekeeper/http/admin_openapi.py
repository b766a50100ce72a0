"""OpenAPI path items of the admin endpoints (`pacekeeper.http.admin`)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import ISO_TIME as _ISO
from pacekeeper._openapi_parts import SESSION_AUTH as _AUTH
from pacekeeper._openapi_parts import error_response as _err
from pacekeeper._openapi_parts import json_response as _json
from pacekeeper.admin._service import MAX_RATE_LIMIT
from pacekeeper.apikeys import PLAN_TIERS
from pacekeeper.config import RegistrationMode

_NULLABLE_STR = {"type": ["string", "null"]}
_RATE = {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_RATE_LIMIT}
_PLAN = {"type": "string", "enum": list(PLAN_TIERS)}
_USER = {"type": "object", "required": ["id", "email", "role", "status", "tenant_id"],
         "properties": {
             "id": {"type": "string", "format": "uuid"}, "email": {"type": "string"},
             "display_name": _NULLABLE_STR, "role": {"type": "string", "enum": ["user", "admin"]},
             "status": {"type": "string", "enum": ["active", "disabled"]},
             "tenant_id": {"type": "string", "format": "uuid"},
             "tenant_name": {"type": "string"}, "created_at": _ISO,
             "last_login_at": {"type": ["string", "null"], "format": "date-time"}}}
_TENANT = {"type": "object", "required": ["id", "name", "slug", "plan", "users"],
           "properties": {
               "id": {"type": "string", "format": "uuid"}, "name": {"type": "string"},
               "slug": {"type": "string"}, "plan": {"type": "string"},
               "rate_limit_per_minute": _RATE, "created_at": _ISO,
               "users": {"type": "integer", "minimum": 0}}}
_REGISTRATION = {"type": "object", "required": ["mode", "source", "modes"], "properties": {
    "mode": {"type": "string", "enum": [m.value for m in RegistrationMode]},
    "source": {"type": "string", "enum": ["stored", "environment"]},
    "modes": {"type": "array", "items": {"type": "string"}}}}
_READ_ERRORS = {"400": _err("bad input"), "401": _err("authentication required"),
                "403": _err("not an administrator"), "429": _err("rate limited")}
_WRITE_ERRORS = {**_READ_ERRORS, "403": _err("not an administrator, or CSRF failure")}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _id(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}]


def admin_paths() -> dict[str, dict[str, Any]]:
    return {
        "/api/admin/users": {"get": {
            "summary": "Users of every tenant, by email (admins only)",
            "security": _AUTH,
            "parameters": [
                {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 320},
                 "description": "part of the email"},
                {"name": "tenant_id", "in": "query", "schema": {"type": "string",
                                                                "format": "uuid"}},
                {"name": "after", "in": "query", "schema": {"type": "string"},
                 "description": "next_after of the previous page"},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "minimum": 1, "maximum": 200}}],
            "responses": {"200": _json("a page of users", {
                "type": "object", "required": ["users", "next_after"],
                "properties": {"users": {"type": "array", "items": _USER},
                               "next_after": _NULLABLE_STR}}), **_READ_ERRORS}}},
        "/api/admin/users/{user_id}": {"patch": {
            "summary": "Disable (immediate: every session, token and key) or enable a user",
            "security": _AUTH, "parameters": _id("user_id"),
            "requestBody": _body({"type": "object", "required": ["status"], "properties": {
                "status": {"type": "string", "enum": ["active", "disabled"]}}}),
            "responses": {"200": _json("the user", {"type": "object", "required": ["user"],
                                                    "properties": {"user": _USER}}),
                          **_WRITE_ERRORS, "404": _err("no such user"),
                          "409": _err("an admin cannot disable themselves")}}},
        "/api/admin/tenants": {
            "get": {"summary": "Tenants with plan, rate limit and number of users",
                    "security": _AUTH,
                    "responses": {"200": _json("tenants", {
                        "type": "object", "required": ["tenants"],
                        "properties": {"tenants": {"type": "array", "items": _TENANT}}}),
                        **_READ_ERRORS}},
            "post": {"summary": "Create a tenant", "security": _AUTH,
                     "requestBody": _body({"type": "object", "required": ["name"], "properties": {
                         "name": {"type": "string", "minLength": 1, "maxLength": 200},
                         "slug": {"type": ["string", "null"],
                                  "pattern": "^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$"},
                         "plan": _PLAN, "rate_limit_per_minute": _RATE}}),
                     "responses": {"201": _json("the tenant", {
                         "type": "object", "required": ["tenant"],
                         "properties": {"tenant": _TENANT}}),
                         **_WRITE_ERRORS, "409": _err("the slug is taken")}}},
        "/api/admin/tenants/{tenant_id}": {"patch": {
            "summary": "Change a tenant's name, plan or rate limit (null: the default)",
            "security": _AUTH, "parameters": _id("tenant_id"),
            "requestBody": _body({"type": "object", "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 200},
                "plan": _PLAN, "rate_limit_per_minute": _RATE}}),
            "responses": {"200": _json("the tenant", {"type": "object", "required": ["tenant"],
                                                      "properties": {"tenant": _TENANT}}),
                          **_WRITE_ERRORS, "404": _err("no such tenant")}}},
        "/api/admin/plans": {"get": {
            "summary": "The plans and the API key tiers each lets its users create",
            "security": _AUTH,
            "responses": {"200": _json("plans", {"type": "object", "required": ["plans"],
                                                 "properties": {"plans": {"type": "array"}}}),
                          **_READ_ERRORS}}},
        "/api/admin/registration": {
            "get": {"summary": "Who may register: open, admin (invite only) or closed",
                    "security": _AUTH,
                    "responses": {"200": _json("the mode", _REGISTRATION), **_READ_ERRORS}},
            "put": {"summary": "Set who may register (stored; overrides the environment)",
                    "security": _AUTH,
                    "requestBody": _body({"type": "object", "required": ["mode"], "properties": {
                        "mode": {"type": "string",
                                 "enum": [m.value for m in RegistrationMode]}}}),
                    "responses": {"200": _json("the mode", _REGISTRATION), **_WRITE_ERRORS}}},
    }


__all__ = ["admin_paths"]
