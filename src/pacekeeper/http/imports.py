"""Whole-account exports over HTTP (issue 31 item 3, docs/import.md).

``POST /api/imports``: the export as multipart field ``file``, or as the raw body with
its name in ``X-Filename``; written to disk as it arrives (the multipart parser is fed
chunk by chunk and hands on the file part's bytes as they come), never held in memory.
Answers 202 with ``{"id", "status_url"}``; the work is a background job.
``GET /api/imports/{id}``: its status, progress and report; another person's import is
404, as one that does not exist.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.exports import ExportImports, ImportNotFound, status_json
from pacekeeper.fitness.importers import ImportRejected
from pacekeeper.http._common import JSONResponse, services
from pacekeeper.http.fitness import rejection

IMPORTS_PATH = "/api/imports"
FILENAME_HEADER = "x-filename"


def _exports(request: Request) -> ExportImports:
    found = services(request).exports
    if found is None:
        raise ApiError("imports are not available here", code="not_found", status=404)
    return found


class _FilePart:
    """The bytes of the multipart field ``file``, as the body streams in."""

    def __init__(self, request: Request, boundary: bytes) -> None:
        self.request = request
        self.filename = ""
        self.found = False
        self._pending: list[bytes] = []
        self._field = b""
        self._value = b""
        self._headers: dict[bytes, bytes] = {}
        self._in_file = False
        self.parser = MultipartParser(boundary, {
            "on_part_begin": self._begin, "on_header_field": self._hfield,
            "on_header_value": self._hvalue, "on_header_end": self._hend,
            "on_headers_finished": self._headers_done, "on_part_data": self._data,
        })

    def _begin(self) -> None:
        self._headers, self._in_file = {}, False

    def _hfield(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _hvalue(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _hend(self) -> None:
        self._headers[self._field.lower()] = self._value
        self._field = self._value = b""

    def _headers_done(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        if options.get(b"name") == b"file" and not self.found:
            self._in_file = self.found = True
            self.filename = options.get(b"filename", b"").decode("utf-8", "replace")

    def _data(self, data: bytes, start: int, end: int) -> None:
        if self._in_file:
            self._pending.append(data[start:end])

    async def chunks(self) -> AsyncIterator[bytes]:
        async for chunk in self.request.stream():
            try:
                self.parser.write(chunk)
            except Exception:  # the parser's errors carry its internals; say it plainly
                raise ValidationFailed("the multipart body could not be read") from None
            pending, self._pending = self._pending, []
            for piece in pending:
                yield piece
        if not self.found:
            raise ValidationFailed("send the export in a multipart field named 'file'")


async def create_import(request: Request) -> Response:
    """POST /api/imports: 202 with the import's id and where to ask how it goes."""
    principal = await services(request).resolver.require(request.method, request.headers)
    owner = Owner(principal.user_id, principal.tenant_id)
    exports = _exports(request)
    content_type = request.headers.get("content-type", "")
    kind, options = parse_options_header(content_type)
    try:
        if kind == b"multipart/form-data":
            boundary = options.get(b"boundary")
            if not boundary:
                raise ValidationFailed("the multipart body names no boundary")
            part = _FilePart(request, boundary)
            job = await exports.receive(owner, lambda: part.filename, part.chunks())
        else:
            name = request.headers.get(FILENAME_HEADER, "").strip()
            if not name:
                raise ValidationFailed("send the export as multipart field 'file', or as "
                                       "the body with its name in the X-Filename header")
            job = await exports.receive(owner, lambda: name, request.stream())
    except ImportRejected as exc:
        raise rejection(exc) from None
    url = f"{IMPORTS_PATH}/{job.id}"
    headers: dict[str, Any] = {"Location": url}
    if principal.rate:
        headers.update(principal.rate.headers())
    return JSONResponse({"id": str(job.id), "status_url": url}, 202, headers=headers)


async def import_status(request: Request) -> Response:
    """GET /api/imports/{id}."""
    principal = await services(request).resolver.require(request.method, request.headers)
    owner = Owner(principal.user_id, principal.tenant_id)
    try:
        import_id = uuid.UUID(str(request.path_params["import_id"]))
    except ValueError:
        raise ImportNotFound("no such import") from None
    job = await _exports(request).get(owner, import_id)
    return JSONResponse(status_json(job, f"{IMPORTS_PATH}/{job.id}"),
                        headers=principal.rate.headers() if principal.rate else {})


def import_routes() -> list[BaseRoute]:
    return [Route(IMPORTS_PATH, create_import, methods=["POST"]),
            Route(IMPORTS_PATH + "/{import_id}", import_status, methods=["GET"])]


__all__ = ["IMPORTS_PATH", "import_routes"]
