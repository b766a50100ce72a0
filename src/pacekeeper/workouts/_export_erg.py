"""A ride as an ERG file (minutes vs watts) or an MRC file (minutes vs % FTP), the plain
text courses that trainer apps (TrainerRoad, PerfPRO, Golden Cheetah, Wahoo SYSTM and
others) load to drive a smart trainer in ERG mode.

Both are a header and a list of (minute, value) points joined by straight lines, so a
step is two points at its start and end: flat at the middle of its target range, except
a warm-up that ramps from the range's low to its high and a cool-down from high to low
(as the ZWO file does). Repeats are written out. They are power-only, time-only courses
for a ride: any other sport, target or end raises ``WorkoutExportError``. Lines end in
CRLF, as the Windows programs that defined the formats wrote them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pacekeeper.workouts._export_common import (
    Step,
    WorkoutExportError,
    power_only_cycling,
    read_workout,
    threshold,
    whole,
)


def render_erg(workout: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    """The ride as an ERG file; targets in % FTP need ``thresholds["ftp_watts"]``."""
    return _course(workout, thresholds, watts=True)


def render_mrc(workout: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    """The ride as an MRC file; targets in watts need ``thresholds["ftp_watts"]``."""
    return _course(workout, thresholds, watts=False)


def _course(workout: Mapping[str, Any], thresholds: Mapping[str, Any], *, watts: bool
            ) -> str:
    fmt = "ERG" if watts else "MRC"
    plan = read_workout(workout)
    power_only_cycling(plan, fmt)
    ftp = threshold(thresholds, "ftp_watts")
    lines = ["[COURSE HEADER]", "VERSION = 2", "UNITS = ENGLISH",
             f"DESCRIPTION = {_line(plan.description or plan.name)}",
             f"FILE NAME = {_line(plan.name)}"]
    if ftp is not None:
        lines.append(f"FTP = {whole(ftp)}")
    lines += ["MINUTES WATTS" if watts else "MINUTES PERCENT", "[END COURSE HEADER]",
              "[COURSE DATA]"]
    start_s = 0
    for step in plan.flat_steps():
        first, last = _ends(step, *_span(step, ftp, fmt, watts=watts))
        assert step.time_s is not None  # power_only_cycling refused every other end
        end_s = start_s + step.time_s
        for at_s, value in ((start_s, first), (end_s, last)):
            shown = str(whole(value)) if watts else f"{value:.1f}".rstrip("0").rstrip(".")
            lines.append(f"{at_s / 60:.2f}\t{shown}")
        start_s = end_s
    lines.append("[END COURSE DATA]")
    return "\r\n".join(lines) + "\r\n"


def _span(step: Step, ftp: float | None, fmt: str, *, watts: bool) -> tuple[float, float]:
    """The step's target range in the file's unit: watts (ERG) or % FTP (MRC)."""
    target, where = step.target, f"step {step.number}"
    if target is None:
        raise WorkoutExportError(f"{where} has no power target; an {fmt} file needs one")
    if target.type not in ("ftp_pct", "watts"):
        raise WorkoutExportError(
            f"{where} targets {target.type}; an {fmt} file holds only power")
    if (target.type == "watts") == watts:  # already in the file's unit
        return target.low, target.high
    if ftp is None:
        raise WorkoutExportError(
            f"{where} is in {target.type} and an {fmt} file is in "
            f"{'watts' if watts else '% FTP'}: converting needs the FTP set")
    scale = ftp / 100 if watts else 100 / ftp
    return target.low * scale, target.high * scale


def _ends(step: Step, low: float, high: float) -> tuple[float, float]:
    """The target at the step's start and end."""
    if step.kind == "warmup":
        return low, high
    if step.kind == "cooldown":
        return high, low
    middle = (low + high) / 2
    return middle, middle


def _line(text: str) -> str:
    """One header line: the formats have no escaping, so breaks and tabs become spaces."""
    return " ".join(text.split())


__all__ = ["render_erg", "render_mrc"]
