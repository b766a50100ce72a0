"""MCP Apps views (the extension SEP-1865, `@modelcontextprotocol/ext-apps`): the fitness
chart, a mean-maximal curve, one activity and the training calendar, drawn by a host
that supports MCP Apps from the very result the tool returned; hosts that do not keep
using the structured result.

Each view is a `ui://pacekeeper/...` resource of type `text/html;profile=mcp-app`, named
by its tools in `_meta.ui.resourceUri` only: ext-apps deprecates the older flat
`ui/resourceUri` for servers and has hosts read both, and every tools/list carried it. A
view is one self-contained HTML document: its script and stylesheet inline (hosts load
views into a sandboxed iframe with no origin of ours), allowed by their SHA-256 in the
view's own Content-Security-Policy: nothing else runs, and the view fetches nothing
(`default-src 'none'`): it draws what the host hands it (`ui/notifications/tool-result`).
The views hold no data of anyone's, so reading one needs only what every
`resources/read` needs.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from importlib import resources
from typing import Any

from mcpcast import resource

MIME = "text/html;profile=mcp-app"
FITNESS_CHART = "ui://pacekeeper/fitness-chart"
CURVE = "ui://pacekeeper/curve"
ACTIVITY = "ui://pacekeeper/activity"
CALENDAR = "ui://pacekeeper/calendar"
_VIEWS = {FITNESS_CHART: ("Fitness chart", "fitness-chart.js"),
          CURVE: ("Mean-maximal curve", "curve.js"),
          ACTIVITY: ("Activity", "activity.js"),
          CALENDAR: ("Training calendar", "calendar.js")}


def ui_meta(uri: str) -> dict[str, Any]:
    """A tool's `_meta` naming its view."""
    return {"ui": {"resourceUri": uri}}


def _asset(name: str) -> str:
    return (resources.files("pacekeeper.tools") / "app_views" / name).read_text("utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@functools.cache
def view_html(uri: str) -> str:
    title, script_name = _VIEWS[uri]
    script = "\n" + _asset("bridge.js") + "\n" + _asset(script_name) + "\n"
    style = "\n" + _asset("view.css") + "\n"
    policy = (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; "
              "img-src data:; base-uri 'none'; form-action 'none'")
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{title} · Pacekeeper</title>\n<style>{style}</style>\n</head>\n"
        "<body data-state=\"waiting\">\n<main><p class=\"empty\">Waiting for the result…</p>"
        f"</main>\n<script>{script}</script>\n</body>\n</html>\n"
    )


class AppViews:
    """The views as resources (mixed into the server's tool class)."""

    @resource(uri=FITNESS_CHART, name="fitness-chart-view", mime_type=MIME,
              description="MCP Apps view of get_fitness_chart: CTL, ATL and TSB per day.")
    def fitness_chart_view(self) -> str:
        return view_html(FITNESS_CHART)

    @resource(uri=CURVE, name="curve-view", mime_type=MIME,
              description="MCP Apps view of get_power_curve, get_hr_curve, get_pace_curve.")
    def curve_view(self) -> str:
        return view_html(CURVE)

    @resource(uri=ACTIVITY, name="activity-view", mime_type=MIME,
              description="MCP Apps view of get_activity: figures, power curve, laps.")
    def activity_view(self) -> str:
        return view_html(ACTIVITY)

    @resource(uri=CALENDAR, name="calendar-view", mime_type=MIME,
              description="MCP Apps view of get_calendar: the weeks, planned and done.")
    def calendar_view(self) -> str:
        return view_html(CALENDAR)


__all__ = ["ACTIVITY", "CALENDAR", "CURVE", "FITNESS_CHART", "MIME", "AppViews", "ui_meta",
           "view_html"]
