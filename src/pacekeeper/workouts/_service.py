"""The plans' service: workouts (create, read, change, delete, put on a day), the calendar
of planned and done (PLAN-3), the PMC projected through the plan, a suggested week kept
as workouts, the files of a workout and the calendar feed behind its secret (PLAN-4).

HTTP handlers and MCP tools call this; it calls the stores and the fitness side's
analysis (the person's today, the one PMC, the suggested week); nothing here renders a
file itself (``_export_*``).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from pacekeeper.connections import ConnectionService
from pacekeeper.errors import ApiError
from pacekeeper.fitness import _inputs
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._settings import SettingsHistory, for_sport
from pacekeeper.fitness._store import SqlFitnessStore
from pacekeeper.fitness.analysis import AnalysisService, FitnessChart, local_day
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.owner import Owner
from pacekeeper.providers import PROVIDERS, ProviderClient, TokenSet, WorkoutReceiver
from pacekeeper.providers.registry import WORKOUT_PROVIDER_IDS
from pacekeeper.workouts import _calendar
from pacekeeper.workouts._export_erg import render_erg, render_mrc
from pacekeeper.workouts._export_fit import render_fit
from pacekeeper.workouts._export_garmin import render_garmin_training
from pacekeeper.workouts._export_ics import render_ics
from pacekeeper.workouts._export_zwo import render_zwo
from pacekeeper.workouts._steps import (
    Thresholds,
    WorkoutInvalid,
    check_sport,
    check_workout,
    derive,
    stored_sport,
)
from pacekeeper.workouts._store import SqlWorkoutStore, StoredWorkout

Clock = Callable[[], datetime]
MAX_CALENDAR_DAYS = 366
# The calendar page's "Unscheduled" list: the newest this many (each derived on reading).
MAX_UNSCHEDULED = 100
# Time in target reads each matched activity's streams: for ranges up to 5 weeks only
# (a month's calendar), not for a year's.
TIME_IN_TARGET_DAYS = 35
# How far the PMC is projected when no end is asked: the plan's last day, within a year.
PLAN_HORIZON_DAYS = 365
# The calendar feed: the plan from a month back to a year ahead.
FEED_BACK_DAYS, FEED_AHEAD_DAYS = 30, 365
FORMATS: dict[str, tuple[str, str]] = {
    "fit": ("application/vnd.ant.fit", "fit"), "zwo": ("application/xml", "zwo"),
    "erg": ("text/plain; charset=utf-8", "erg"), "mrc": ("text/plain; charset=utf-8", "mrc")}
# A suggest_training_week session as a workout: its kind's intensity as the target range
# whose mid is the IF the suggestion planned with (so the planned load is the suggested
# one), per threshold the person has; RPE (TSS per hour of _steps' table) without one.
_WEEK_IF = {"easy": 65, "long": 70, "tempo": 85, "intervals": 95, "opener": 65, "race": 100}
_WEEK_RPE = {"easy": (3, 4), "long": (3, 5), "tempo": (6, 7), "intervals": (7, 8),
             "opener": (3, 4), "race": (8, 9)}


class WorkoutNotFound(ApiError):
    """404: no workout of that id is the caller's (another person's reads alike)."""

    status = 404
    code = "not_found"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _workout_id(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(text))
    except ValueError:
        raise WorkoutNotFound("no such workout") from None


# Each format's renderer (pure: ``_export_*``).
# The bodies providers take workouts in (``Capabilities.workout_format``).
DEVICE_FORMATS: dict[str, Callable[..., dict[str, Any]]] = {
    "training-api-v2": render_garmin_training}
_RENDERERS: dict[str, Callable[..., Any]] = {
    "fit": render_fit, "zwo": render_zwo, "erg": render_erg, "mrc": render_mrc,
    "ics": render_ics}


def _renderer(fmt: str) -> Callable[..., Any]:
    return _RENDERERS[fmt]


class WorkoutService:
    def __init__(self, store: SqlWorkoutStore, fitness: SqlFitnessStore,
                 analysis: AnalysisService, clock: Clock,
                 connections: Callable[[], ConnectionService | None] = lambda: None) -> None:
        self.store = store
        self.fitness = fitness
        self.analysis = analysis
        self.clock = clock
        self._connections = connections  # read when used: the app attaches them later

    # -- thresholds -------------------------------------------------------------------------

    async def _history(self, owner: Owner) -> SettingsHistory:
        return SettingsHistory(await self.fitness.settings(owner.user_id))

    @staticmethod
    def _settings(history: SettingsHistory, sport: str, day: date) -> dict[str, Any]:
        """The sport's settings on ``day`` under their generic names (``for_sport``)."""
        return for_sport(history.on(day), stored_sport(sport))[0]

    def _thresholds(self, history: SettingsHistory, sport: str, day: date) -> Thresholds:
        return Thresholds.from_settings(self._settings(history, sport, day), sport)

    # -- workouts ---------------------------------------------------------------------------

    def view(self, w: StoredWorkout, history: SettingsHistory, today: date
             ) -> dict[str, Any]:
        """The workout as answered: its id and day, its shape, and the derived figures
        (``_steps.derive``) with the thresholds of its day (today's when unscheduled)."""
        figures = derive(w.shape(), self._thresholds(history, w.sport, w.day or today))
        return {"id": str(w.id), "date": None if w.day is None else w.day.isoformat(),
                **w.shape(), **figures}

    async def _checked(self, owner: Owner, data: Mapping[str, Any], day: date | None
                       ) -> tuple[dict[str, Any], SettingsHistory, date]:
        today = await self.analysis.today(owner)
        history = await self._history(owner)
        sport = check_sport(data.get("sport"))
        workout = check_workout(data, self._thresholds(history, sport, day or today))
        return workout, history, today

    @staticmethod
    def _day(data: dict[str, Any]) -> date | None:
        text = data.pop("date", None)
        if text is not None and not isinstance(text, str):
            raise WorkoutInvalid("date must be a date (YYYY-MM-DD)")
        return _inputs.day(text, "date")

    async def create(self, owner: Owner, data: Mapping[str, Any]) -> dict[str, Any]:
        """A new workout from the shared shape plus an optional ``date``."""
        body = dict(data)
        day = self._day(body)
        workout, history, today = await self._checked(owner, body, day)
        now = self.clock()
        stored = StoredWorkout(uuid.uuid4(), workout["name"], workout["sport"],
                               workout.get("description"), workout["steps"], day, now, now)
        await self.store.add(owner, stored)
        return self.view(stored, history, today)

    async def _get(self, owner: Owner, workout_id: str) -> StoredWorkout:
        found = await self.store.get(owner.user_id, _workout_id(workout_id))
        if found is None:
            raise WorkoutNotFound("no such workout")
        return found

    async def get(self, owner: Owner, workout_id: str) -> dict[str, Any]:
        found = await self._get(owner, workout_id)
        return self.view(found, await self._history(owner), await self.analysis.today(owner))

    async def unscheduled(self, owner: Owner) -> list[dict[str, Any]]:
        """The workouts made without a date (the calendar has no day for them), newest
        first, as ``get`` answers each (figures with today's thresholds), at most
        ``MAX_UNSCHEDULED``."""
        found = await self.store.unscheduled(owner.user_id, MAX_UNSCHEDULED)
        history, today = await self._history(owner), await self.analysis.today(owner)
        return [self.view(w, history, today) for w in found]

    async def update(self, owner: Owner, workout_id: str, changes: Mapping[str, Any]
                     ) -> dict[str, Any]:
        """The fields given replace the workout's (``date`` null: unscheduled); the whole
        is checked again, with the thresholds of its (new) day."""
        current = await self._get(owner, workout_id)
        if not changes:
            raise WorkoutInvalid("give at least one of name, sport, steps, description, date")
        body = {**current.shape(), **dict(changes)}
        day = current.day
        if "date" in body:
            day = self._day(body)
        if body.get("description") is None:
            body.pop("description", None)
        workout, history, today = await self._checked(owner, body, day)
        stored = StoredWorkout(current.id, workout["name"], workout["sport"],
                               workout.get("description"), workout["steps"], day,
                               current.created_at, self.clock())
        if not await self.store.replace(owner.user_id, stored):
            raise WorkoutNotFound("no such workout")
        return self.view(stored, history, today)

    async def schedule(self, owner: Owner, workout_id: str, day: str | None
                       ) -> dict[str, Any]:
        """Put the workout on ``day`` (from any day: a move), or take it off (None)."""
        return await self.update(owner, workout_id, {"date": day})

    async def delete(self, owner: Owner, workout_id: str) -> None:
        if not await self.store.delete(owner.user_id, _workout_id(workout_id)):
            raise WorkoutNotFound("no such workout")

    # -- the calendar (PLAN-3) ----------------------------------------------------------------

    async def _range(self, owner: Owner, start: str | None, end: str | None
                     ) -> tuple[date, date]:
        """[from, to]: by default this week (from Monday) and the next three."""
        first = _inputs.day(start, "from")
        last = _inputs.day(end, "to")
        if first is None:
            today = await self.analysis.today(owner)
            first = (last or today) - timedelta(days=(last or today).weekday())
        if last is None:
            last = first + timedelta(days=27)
        if last < first:
            raise FitnessInputError("'to' must not be before 'from'")
        if (last - first).days + 1 > MAX_CALENDAR_DAYS:
            raise FitnessInputError(f"ask for at most {MAX_CALENDAR_DAYS} days at once")
        return first, last

    async def calendar(self, owner: Owner, start: str | None, end: str | None
                       ) -> dict[str, Any]:
        """Per day of [from, to] with anything on it: the planned workouts (with their
        derived figures and, when done, ``done``: the matching activity's compliance) and
        the activities done (``workout_id`` of the planned one each did)."""
        first, last = await self._range(owner, start, end)
        today = await self.analysis.today(owner)
        history = await self._history(owner)
        workouts = await self.store.between(owner.user_id, first, last)
        rows = await self.fitness.period_rows(
            owner.user_id, datetime.combine(first - timedelta(days=1), time.min, UTC),
            datetime.combine(last + timedelta(days=2), time.min, UTC), (),
            hide=owner.withheld)
        done = [_calendar.Done(str(r.id), local_day(r.start_at, r.utc_offset_s), r.sport,
                               r.moving_s or r.elapsed_s, r.load) for r in rows]
        done = [d for d in done if first <= d.day <= last]
        views = {str(w.id): self.view(w, history, today) for w in workouts}
        planned = [_calendar.Planned(str(w.id), w.day or first, stored_sport(w.sport),
                                     views[str(w.id)]["duration_s"], views[str(w.id)]["load"])
                   for w in workouts]
        matches = _calendar.match(planned, done)
        by_activity = {d.id: pid for pid, d in matches.items()}
        streams = {r.id for r in rows if r.has_streams}
        in_target: dict[str, float | None] = {}
        if (last - first).days < TIME_IN_TARGET_DAYS:
            for w in workouts:
                d = matches.get(str(w.id))
                if d is not None and uuid.UUID(d.id) in streams:
                    assert w.day is not None
                    in_target[str(w.id)] = await self._in_target(owner, w, d, history)
        planned_days: dict[date, list[dict[str, Any]]] = {}
        for p in planned:
            v = views[p.id]
            item = {k: v[k] for k in ("id", "name", "sport", "duration_s", "distance_m",
                                      "load", "load_method")}
            if p.id in matches:
                item["done"] = _calendar.compliance(p, matches[p.id], in_target.get(p.id))
            planned_days.setdefault(p.day, []).append(item)
        names = {r.id: r.name for r in rows}
        done_days: dict[date, list[dict[str, Any]]] = {}
        for d in done:
            entry: dict[str, Any] = {"id": d.id, "name": names.get(uuid.UUID(d.id)),
                                     "sport": d.sport, "moving_s": round(d.moving_s),
                                     "load": None if d.load is None else round(d.load, 1)}
            if d.id in by_activity:
                entry["workout_id"] = by_activity[d.id]
            done_days.setdefault(d.day, []).append(entry)
        days = _calendar.days(first, last, planned_days, done_days)
        matched = len(matches)
        return {"summary": f"{first} to {last}: {len(planned)} planned, {len(done)} done, "
                           f"{matched} planned workouts done",
                "from": first.isoformat(), "to": last.isoformat(), "days": days}

    async def _in_target(self, owner: Owner, w: StoredWorkout, done: _calendar.Done,
                         history: SettingsHistory) -> float | None:
        blob = await self.fitness.streams(owner.user_id, uuid.UUID(done.id))
        if blob is None:
            return None
        return _calendar.time_in_target(w.shape(), self._thresholds(history, w.sport, done.day),
                                        StreamSet.from_bytes(blob))

    # -- the PMC through the plan -------------------------------------------------------------

    async def planned_loads(self, owner: Owner, first: date, last: date
                            ) -> dict[date, float]:
        """The planned load per day of [first, last] (workouts whose load is known)."""
        history = await self._history(owner)
        out: dict[date, float] = {}
        for w in await self.store.between(owner.user_id, first, last):
            assert w.day is not None
            load = derive(w.shape(), self._thresholds(history, w.sport, w.day))["load"]
            if load is not None:
                out[w.day] = out.get(w.day, 0.0) + load
        return out

    async def fitness_chart(self, owner: Owner, start: str | None, end: str | None,
                            ctl_days: int | None = None, atl_days: int | None = None
                            ) -> FitnessChart:
        """The fitness chart with the plan: the planned loads of the days after today
        added to the daily loads the one PMC runs on (GoldenCheetah's planned curve); the
        chart runs to ``to``, by default the last planned day within a year."""
        today = await self.analysis.today(owner)
        horizon = today + timedelta(days=PLAN_HORIZON_DAYS)
        last = _inputs.day(end, "to")
        ahead = await self.planned_loads(owner, today + timedelta(days=1),
                                         last or horizon)
        if last is None:
            last = max([today, *ahead])
        return await self.analysis.fitness_chart(owner, start, last.isoformat(), ctl_days,
                                                 atl_days, planned=ahead)

    # -- a suggested week kept -------------------------------------------------------------

    async def save_week(self, owner: Owner, goal_id: str | None, sport: str | None
                        ) -> dict[str, Any]:
        """``suggest_training_week``'s answer (the same arguments, the same day: the same
        week) stored as one workout per session that is not rest: a single step of the
        session's duration at its intensity (``_WEEK_IF`` of the threshold the person has
        for the sport, else an RPE range), its suggested target as the note."""
        # The week's sport by either name (``cycling`` or ``ride``), checked here: the
        # suggestion itself takes any text.
        activity_sport = None if sport is None else stored_sport(check_sport(sport))
        week = await self.analysis.suggest_week(owner, goal_id, activity_sport)
        history = await self._history(owner)
        saved: list[dict[str, Any]] = []
        for session in week["sessions"]:
            if session["type"] == "rest" or not session.get("duration_min"):
                continue
            sport_name = {"ride": "cycling", "run": "running", "swim": "swimming"}.get(
                session["sport"], session["sport"])
            day = date.fromisoformat(session["date"])
            th = self._thresholds(history, sport_name, day)
            mid = _WEEK_IF.get(session["type"], 65)
            kind = ("ftp_pct" if th.ftp_watts and sport_name == "cycling" else
                    "pace_pct" if th.pace_s and sport_name in ("running", "swimming") else
                    "lthr_pct" if th.lthr_bpm else None)
            low, high = ((mid - 5, mid + 5) if kind is not None
                         else _WEEK_RPE.get(session["type"], (3, 4)))
            step: dict[str, Any] = {
                "kind": "active", "end": {"time_s": int(session["duration_min"]) * 60},
                "target": {"type": kind or "rpe", "low": low, "high": high}}
            if session.get("target"):
                step["note"] = str(session["target"])[:200]
            made = await self.create(owner, {
                "name": f"{session['type']} {sport_name}", "sport": sport_name,
                "steps": [step], "date": session["date"]})
            saved.append({k: made[k] for k in ("id", "date", "name", "duration_s", "load")})
        return {"summary": f"{len(saved)} workouts planned for the {week['phase']} week "
                           f"of {week['week_of']}",
                "week_of": week["week_of"], "workouts": saved}

    # -- files -------------------------------------------------------------------------------

    async def export(self, owner: Owner, workout_id: str, fmt: str
                     ) -> tuple[bytes, str, str]:
        """(body, media type, file name) of the workout in ``fmt``."""
        if fmt not in FORMATS:
            raise WorkoutInvalid(f"format must be one of {', '.join(FORMATS)}")
        found = await self._get(owner, workout_id)
        render = _renderer(fmt)
        history = await self._history(owner)
        day = found.day or await self.analysis.today(owner)
        thresholds = self._settings(history, found.sport, day)  # the generic names
        # FIT stamps the file's creation: the workout's last change, so the same
        # workout always renders the same bytes.
        extra = {"created": found.updated_at} if fmt == "fit" else {}
        body = render(found.shape(), thresholds, **extra)
        data = body.encode() if isinstance(body, str) else bytes(body)
        media, ext = FORMATS[fmt]
        return data, media, f"workout-{found.id}.{ext}"

    # -- onto the device -----------------------------------------------------------------

    async def send(self, owner: Owner, workout_id: str, provider: str) -> dict[str, Any]:
        """Push the workout to the person's account at ``provider`` (one whose registry
        entry takes workouts: Garmin's Training API) and, when it has a date, put it on
        that day there; the device gets it on its next sync with that account. Each send
        makes a new copy there (the answer names it), as the provider's API keeps no link
        back that a later send could update."""
        if provider not in WORKOUT_PROVIDER_IDS:
            raise WorkoutInvalid(f"provider must be one that takes workouts: "
                                 f"{', '.join(WORKOUT_PROVIDER_IDS) or 'none here'}")
        body_format = PROVIDERS[provider].capabilities.workout_format
        assert body_format is not None  # what WORKOUT_PROVIDER_IDS holds
        found = await self._get(owner, workout_id)
        connections = self._connections()
        if connections is None:
            raise ApiError("provider connections are not available on this server",
                           status=503)
        day = found.day or await self.analysis.today(owner)
        body = DEVICE_FORMATS[body_format](found.shape(), self._settings(
            await self._history(owner), found.sport, day))
        session = connections.session(owner.user_id, provider, owner.tenant_id)

        async def push(client: ProviderClient, token: TokenSet) -> tuple[str, str | None]:
            if not isinstance(client, WorkoutReceiver):  # the registry said it would
                raise WorkoutInvalid(f"{provider} takes no workouts here")
            pushed = await client.push_workout(token, body)
            scheduled = (None if found.day is None
                         else await client.schedule_workout(token, pushed, found.day))
            return pushed, scheduled

        pushed, scheduled = await session.call(push)
        return {"id": str(found.id), "provider": provider, "provider_workout_id": pushed,
                "date": None if found.day is None else found.day.isoformat(),
                "provider_schedule_id": scheduled}

    # -- the calendar feed (PLAN-4) --------------------------------------------------------

    async def new_feed_token(self, owner: Owner) -> str:
        """A new secret for the person's feed (the previous one stops working); only its
        hash is kept, so it is shown this once."""
        token = secrets.token_urlsafe(32)
        await self.store.set_token(owner, token_hash(token), self.clock())
        return token

    async def revoke_feed_token(self, owner: Owner) -> bool:
        return await self.store.delete_token(owner.user_id)

    async def feed(self, token: str | None) -> str:
        """The iCalendar feed of the token's owner; 404 for no, a wrong or a revoked token
        (one answer for all: nothing tells a guess from a revoked link)."""
        owner = None if not token else await self.store.token_owner(token_hash(token))
        if owner is None:
            raise WorkoutNotFound("no such calendar")
        render = _renderer("ics")
        today = await self.analysis.today(owner)
        history = await self._history(owner)
        workouts = await self.store.between(owner.user_id, today - timedelta(
            days=FEED_BACK_DAYS), today + timedelta(days=FEED_AHEAD_DAYS))
        events = [self._event(self.view(w, history, today)) for w in workouts]
        changed = max((w.updated_at for w in workouts), default=self.clock())
        body = render(events, dtstamp=changed)
        return body.decode() if isinstance(body, bytes) else str(body)

    @staticmethod
    def _event(view: dict[str, Any]) -> dict[str, Any]:
        """A planned workout as the feed's event: all-day on its date, its planned
        duration and load said in the description."""
        said = [view.get("description") or ""]
        if view.get("load") is not None:
            said.append(f"planned load {view['load']:g} ({view['load_method']})")
        return {"uid": f"{view['id']}@pacekeeper", "date": view["date"], "name": view["name"],
                "sport": view["sport"], "duration_s": view["duration_s"],
                "description": "\n".join(t for t in said if t)}


__all__ = ["FORMATS", "WorkoutNotFound", "WorkoutService", "token_hash"]
