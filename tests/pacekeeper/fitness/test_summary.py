"""One activity summary (issue 29 item 5): declared once in ``fitness/summary.py``, and
every other shape of it (the importers' result, the store's records and row, the HTTP
body and its OpenAPI schema, get_activity's answer) carries the same field set, so a
new figure cannot reach one and miss another."""

from __future__ import annotations

import re
import uuid
from dataclasses import fields
from pathlib import Path
from typing import Any

from sqlalchemy import Float

from pacekeeper.fitness import NewActivity, StoredActivity
from pacekeeper.fitness._figures import rounded
from pacekeeper.fitness._tables import ActivityRow
from pacekeeper.fitness.importers import ParsedActivity
from pacekeeper.fitness.models import Activity
from pacekeeper.fitness.summary import FIGURES, SUMMARY_FIELDS, ActivitySummary
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_activities_http import TRAINER, _import, _user
from tests.pacekeeper.fitness.test_analysis import _mcp

SRC = Path(__file__).resolve().parents[3] / "src" / "pacekeeper"


def test_every_record_of_an_activity_inherits_the_one_summary() -> None:
    """The importers' result and the store's records are ActivitySummary subclasses:
    their summary fields are its fields, not a copy of them."""
    for record in (ParsedActivity, NewActivity, StoredActivity):
        assert issubclass(record, ActivitySummary), record
        assert tuple(f.name for f in fields(record))[:len(SUMMARY_FIELDS)] == SUMMARY_FIELDS


def test_the_stored_row_and_the_provider_model_carry_every_field() -> None:
    """The two shapes that cannot inherit a dataclass (the SQL table, the providers'
    pydantic wire model) have each field, with the summary's optionality: a figure
    missing from either would fail at the first sync or insert, not here."""
    columns = ActivityRow.__table__.c
    for f in fields(ActivitySummary):
        optional = f.default is None
        assert f.name in columns, f.name
        assert isinstance(columns[f.name].type, Float), f.name
        assert columns[f.name].nullable is optional, f.name
        assert f.name in Activity.model_fields, f.name
        assert Activity.model_fields[f.name].is_required() is not optional, f.name


def test_names_served_are_unique() -> None:
    for attr in ("name", "http", "tool"):
        names = [getattr(f, attr) for f in FIGURES]
        assert len(set(names)) == len(names), attr


def _detail_schema(spec: dict[str, Any], path: str) -> dict[str, Any]:
    schema: dict[str, Any] = (spec["paths"][path]["get"]["responses"]["200"]["content"]
                              ["application/json"]["schema"])
    return schema


async def test_http_schema_body_tool_and_row_carry_the_same_figures(harness: Harness
                                                                    ) -> None:
    """One imported ride, read four ways: the OpenAPI schemas of the list and the detail
    name every figure (the list all but the detail-only ones); the HTTP body has each
    under its HTTP name, get_activity under its tool name, both the stored value
    rounded by the declaration."""
    h = harness
    auth, owner = await _user(h, "summary-one@example.com")
    imported = await _import(h, auth, TRAINER)
    assert imported.status_code == 201, imported.text
    activity_id = imported.json()["activity"]["id"]

    spec = (await h.client.get("/openapi.json")).json()
    detail = _detail_schema(spec, "/api/activities/{activity_id}")["properties"]
    listed = (_detail_schema(spec, "/api/activities")["properties"]["activities"]
              ["items"]["properties"])
    assert {f.http for f in FIGURES} <= set(detail)
    assert {f.http for f in FIGURES if not f.detail_only} <= set(listed)
    assert not {f.http for f in FIGURES if f.detail_only} & set(listed)

    stored = await h.services.fitness.store.get(owner.user_id, uuid.UUID(activity_id))
    assert stored is not None
    body = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
    page = (await h.client.get("/api/activities", headers=auth)).json()["activities"][0]
    tool = (await _mcp(h, auth, "get_activity", {"activity_id": activity_id})
            )["structuredContent"]
    present = 0
    for f in FIGURES:
        value = getattr(stored, f.name)
        expected = None if value is None else round(float(value), f.digits)
        assert body[f.http] == expected, f.name
        assert (f.http in page) is not f.detail_only, f.name
        assert tool[f.tool] == rounded(expected, f.tool), f.name
        present += value is not None
    assert present >= 10  # a trainer ride with power, heart rate and cadence: real figures


# The modules that spell out the summary's fields one by one, and why each must: a
# new field is an edit in the first, a new column in the second (and its migration), and
# a value in those that produce it. Any other module that lists six or more of its names
# is a field-by-field copy this issue removed (16 modules spelled it out before; 11 now).
_SPELLED_OUT = {
    "fitness/summary.py": "the declaration",
    "fitness/_tables.py": "the SQL columns",
    "fitness/models.py": "the providers' wire model (pydantic: checked above)",
    "fitness/importers/_summary.py": "the figures computed from the streams",
    "fitness/importers/_totals.py": "the device's own totals of a FIT session",
    # lap and leg records: a lap's summary, stored as JSON, not the activity's
    "fitness/importers/_types.py": "ParsedLap and ParsedLeg",
    "fitness/importers/_assemble.py": "ParsedLap and ParsedLeg built",
    "fitness/_figures.py": "the list_activities line (a chosen few, renamed)",
    "providers/strava/_map.py": "Strava's names mapped",
    "providers/garmin/_map.py": "Garmin's names mapped",
    "providers/fitbit/_map.py": "Fitbit's names mapped (the retired Fitbit Web API)",
    "providers/fitbit/_google_map.py": "Fitbit's names mapped (the Google Health API)",
    "fitness/exports/_apple.py": "an Apple Health workout's statistics mapped",
}


def _names_spelled(text: str) -> int:
    names = {*SUMMARY_FIELDS, *(f.http for f in FIGURES)}
    return sum(1 for n in names if re.search(rf"\b{n}\b", text))


def test_no_module_copies_the_summary_field_by_field() -> None:
    """The count behind docs/architecture.md's "Add a summary field": the modules
    spelling the summary out are exactly the listed ones."""
    spelled = {str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
               if _names_spelled(p.read_text()) >= 6}
    assert spelled == set(_SPELLED_OUT)


def test_every_mapper_returns_the_one_stream_type() -> None:
    """Streams have one form: a provider's mapper, the provider interface and the file
    importers all hand over a ``StreamSet`` on the 1 Hz grid (the providers' own
    pydantic ``Streams``, converted later by the sync, is gone)."""
    from typing import get_type_hints

    from pacekeeper.fitness import models
    from pacekeeper.fitness.streams import StreamSet
    from pacekeeper.providers._base import ProviderClient
    from pacekeeper.providers.garmin._map import map_activity_details
    from pacekeeper.providers.strava._map import map_streams

    def returns(function: Any) -> Any:
        # The providers name StreamSet for type checkers only (numpy loads on first use).
        names = {**function.__globals__, "StreamSet": StreamSet}
        return get_type_hints(function, globalns=names)["return"]

    assert not hasattr(models, "Streams")
    assert returns(map_streams) is StreamSet
    assert returns(map_activity_details) == tuple[Activity, StreamSet]
    assert returns(ProviderClient.fetch_streams) is StreamSet
    assert get_type_hints(ParsedActivity)["streams"] is StreamSet
