"""A workout as a Zwift ``.zwo`` file (XML), which Zwift, MyWhoosh, TrainerRoad and others
import.

Zwift holds every target as a fraction: of FTP on the bike, of threshold pace (as a
speed) on a run. So a ride needs power targets (% FTP, or watts with the FTP given) and a
run pace targets (% of threshold pace, or a pace with the threshold pace given); a heart
rate or RPE target, a step ended by a distance or a lap press, or another sport cannot be
written and raise ``WorkoutExportError``. A step without a target is a ``FreeRide``.

Blocks: a warm-up ramps from its target's low to high (``Warmup``), a cool-down from high
to low (``Cooldown``, whose ``PowerLow`` is where it starts, as in Zwift's own files);
any other step holds the middle of its range (``SteadyState``), since a trainer in ERG
mode holds one value. A repeat of exactly two targeted steps is ``IntervalsT`` (on/off
pairs); any other repeat is written out step by step. A step's note becomes a
``textevent`` shown on screen when the block starts.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from pacekeeper.workouts._export_common import (
    Repeat,
    Step,
    Workout,
    WorkoutExportError,
    all_timed,
    power_fraction,
    read_workout,
    speed_range_m_s,
    threshold_speed_m_s,
)

_SPORT_TYPES = {"cycling": "bike", "running": "run"}


def render_zwo(workout: Mapping[str, Any], thresholds: Mapping[str, Any]) -> str:
    """The workout as the text of a ``.zwo`` file (UTF-8 XML with its declaration)."""
    plan = read_workout(workout)
    sport_type = _SPORT_TYPES.get(plan.sport)
    if sport_type is None:
        raise WorkoutExportError(
            f"Zwift workouts are rides or runs; this workout is {plan.sport}")
    all_timed(plan, "Zwift")
    root = ET.Element("workout_file")
    ET.SubElement(root, "author").text = "Pacekeeper"
    ET.SubElement(root, "name").text = _text(plan.name)
    ET.SubElement(root, "description").text = _text(plan.description or "")
    ET.SubElement(root, "sportType").text = sport_type
    ET.SubElement(root, "tags")
    body = ET.SubElement(root, "workout")
    for block in plan.blocks:
        if isinstance(block, Repeat) and _is_on_off(block):
            _intervals(body, block, plan, thresholds)
        else:
            for step in block.steps * block.times if isinstance(block, Repeat) else (block,):
                _block(body, step, plan, thresholds)
    ET.indent(root, space="  ")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            + ET.tostring(root, encoding="unicode") + "\n")


def _is_on_off(block: Repeat) -> bool:
    return (len(block.steps) == 2
            and all(s.target is not None and s.kind not in ("warmup", "cooldown")
                    for s in block.steps))


def _fraction(step: Step, plan: Workout, thresholds: Mapping[str, Any]
              ) -> tuple[float, float] | None:
    """The step's target as (low, high) fractions of the sport's threshold, or None."""
    where = f"step {step.number}"
    if step.target is None:
        return None
    if plan.sport == "cycling":
        return power_fraction(step.target, thresholds, where)
    if step.target.type == "pace_pct":
        return step.target.low / 100, step.target.high / 100
    if step.target.type != "pace":
        raise WorkoutExportError(
            f"{where} targets {step.target.type}; a Zwift run holds only pace targets")
    speed = threshold_speed_m_s(plan.sport, thresholds)
    if speed is None:
        raise WorkoutExportError(f"{where}: a pace target needs the threshold pace set")
    slow, fast = speed_range_m_s(step.target, plan.sport, thresholds, where)
    return slow / speed, fast / speed


def _block(body: ET.Element, step: Step, plan: Workout,
           thresholds: Mapping[str, Any]) -> None:
    assert step.time_s is not None  # render_zwo refused every other end
    span = _fraction(step, plan, thresholds)
    attrs = {"Duration": str(step.time_s)}
    if span is None:
        node = ET.SubElement(body, "FreeRide", attrs | {"FlatRoad": "1"})
    elif step.kind == "warmup":
        node = ET.SubElement(body, "Warmup",
                             attrs | {"PowerLow": _f(span[0]), "PowerHigh": _f(span[1])})
    elif step.kind == "cooldown":
        node = ET.SubElement(body, "Cooldown",
                             attrs | {"PowerLow": _f(span[1]), "PowerHigh": _f(span[0])})
    else:
        node = ET.SubElement(body, "SteadyState", attrs | {"Power": _f(sum(span) / 2)})
    _note(node, step)


def _intervals(body: ET.Element, block: Repeat, plan: Workout,
               thresholds: Mapping[str, Any]) -> None:
    on, off = block.steps
    on_span, off_span = _fraction(on, plan, thresholds), _fraction(off, plan, thresholds)
    # _is_on_off checked the targets, render_zwo the ends.
    assert on_span is not None
    assert off_span is not None
    assert on.time_s is not None
    assert off.time_s is not None
    node = ET.SubElement(body, "IntervalsT", {
        "Repeat": str(block.times), "OnDuration": str(on.time_s),
        "OffDuration": str(off.time_s), "OnPower": _f(sum(on_span) / 2),
        "OffPower": _f(sum(off_span) / 2)})
    _note(node, on)


def _note(node: ET.Element, step: Step) -> None:
    if step.note:
        ET.SubElement(node, "textevent", {"timeoffset": "0", "message": _text(step.note)})


def _f(fraction: float) -> str:
    """A fraction to 3 decimals (0.1 % of FTP), without trailing zeros."""
    text = f"{fraction:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _text(value: str) -> str:
    """``value`` without the control characters XML 1.0 cannot hold at all."""
    return "".join(c for c in value if c >= " " or c in "\t\n\r")


__all__ = ["render_zwo"]
