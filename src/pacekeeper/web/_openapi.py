"""OpenAPI items of the HTML pages (the account endpoints' are `http/account_openapi.py`)."""

from __future__ import annotations

from typing import Any

from pacekeeper._openapi_parts import HTML as _HTML
from pacekeeper.web.routes import PAGES


def _page(summary: str) -> dict[str, Any]:
    return {"get": {"summary": f"{summary} (HTML; the sign-in form without a session)",
                    "security": [{"cookie": []}, {}],
                    "responses": {"200": {"description": "the page", "content": _HTML},
                                  "403": {"description": "an admin page", "content": _HTML}}}}


def web_paths() -> dict[str, dict[str, Any]]:
    paths = {"/": _page("Landing page, or home")}
    paths.update({p.path: _page(f"{p.label} page") for p in PAGES})
    for path, summary, name in (("/activities/{activity_id}", "One activity's page", "activity_id"),
                                ("/workouts/{workout_id}", "One workout's page", "workout_id"),
                                ("/workouts/{workout_id}/edit", "The workout builder, editing",
                                 "workout_id")):
        paths[path] = {"get": {**_page(summary)["get"],
                               "parameters": [{"name": name, "in": "path", "required": True,
                                               "schema": {"type": "string"}}]}}
    paths["/workouts/new"] = _page("The workout builder")
    return paths


__all__ = ["web_paths"]
