"""Public documents: health, JWKS (JWT-6, JWT-7), the OpenAPI description."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper import __version__
from pacekeeper.http._common import JSONResponse, services
from pacekeeper.http._openapi import add_path, openapi_document
from pacekeeper.http.a2a_openapi import A2A_PATHS, API_KEY_SCHEME
from pacekeeper.http.account_openapi import account_paths
from pacekeeper.http.admin_openapi import admin_paths
from pacekeeper.http.analysis import analysis_paths
from pacekeeper.http.apikeys_openapi import KEY_PATHS
from pacekeeper.http.connections_openapi import connection_paths
from pacekeeper.http.fitness import fitness_paths
from pacekeeper.http.gear import gear_paths
from pacekeeper.http.imports_openapi import IMPORT_PATHS
from pacekeeper.http.records import records_paths
from pacekeeper.http.workouts import workout_paths
from pacekeeper.oauth2 import openapi_paths
from pacekeeper.web._openapi import web_paths


async def health(_request: Request) -> Response:
    return JSONResponse({"status": "ok", "version": __version__})


async def jwks(request: Request) -> Response:
    """GET /oauth2/jwks and its legacy alias /admin/jwks: current and in-grace keys."""
    return JSONResponse(
        services(request).keys.jwks(),
        headers={"Cache-Control": "public, max-age=3600"},
    )


async def openapi(request: Request) -> Response:
    document = openapi_document(services(request).settings.public_base_url)
    for path, item in openapi_paths().items():
        add_path(document, path, item)
    for path, item in {**connection_paths(), **KEY_PATHS, **A2A_PATHS, **fitness_paths(),
                       **IMPORT_PATHS,
                       **analysis_paths(request.app.routes), **web_paths(), **account_paths(),
                       **admin_paths(), **workout_paths(), **gear_paths(),
                       **records_paths()}.items():
        add_path(document, path, item)
    document["components"]["securitySchemes"]["apiKey"] = API_KEY_SCHEME
    return JSONResponse(document)


__all__ = ["health", "jwks", "openapi"]
