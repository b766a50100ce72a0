"""Sandbox training sessions: what an athlete sets out to do, second by second.

A session is a list of blocks, each a steady effort at a fraction of the sport's hour
threshold (FTP for rides, threshold speed for runs) or an effort on the athlete's
duration curve (``_physiology``): even-paced at a fraction of the best mean for its
duration (tests, time trials, 1-minute reps) or all-out (sprints, strides). Targets use
Coggan's power zones (upper bounds 55/75/90/105/120/150 % of FTP) and Friel's pace zones
(zone 2 at 114-129 % of threshold pace, 5b at 90-97 %), so an endurance session lands in
zone 2 and VO2max intervals in zone 5. Pure functions of the session's seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ._physiology import Curve, FloatArray


@dataclass(frozen=True, slots=True)
class Block:
    seconds: int
    kind: str  # "steady" (x of threshold), "even" (x of the curve's best), "allout", "ramp"
    x: float  # fraction of threshold (steady, ramp end) or of the curve (even, allout)
    x0: float = 0.0  # ramp start, fraction of threshold
    work: bool = False  # a work bout of the session (what its name promises)


@dataclass(frozen=True, slots=True)
class Plan:
    kind: str  # "Endurance", "Tempo", "Threshold", "VO2max", "Anaerobic", "Sprints", ...
    blocks: tuple[Block, ...]

    @property
    def seconds(self) -> int:
        return sum(b.seconds for b in self.blocks)


RIDE_KINDS = (
    ("Endurance", 36),
    ("Tempo", 14),
    ("Threshold", 10),
    ("VO2max", 16),
    ("Anaerobic", 8),
    ("Sprints", 10),
    ("Test", 3),
)
RUN_KINDS = (
    ("Easy", 44),
    ("Strides", 14),
    ("Tempo", 14),
    ("Intervals", 16),
    ("Reps", 7),
    ("Race", 5),
)
_TESTS = ("Sprints", "5 min test", "20 min test", "Time trial")


def _warm(minutes: int, start: float = 0.45, end: float = 0.7) -> Block:
    return Block(minutes * 60, "ramp", end, x0=start)


def _fill(blocks: list[Block], total: int, x: float) -> list[Block]:
    """Pad with steady riding to ``total`` seconds, before a 6-minute cool-down."""
    used = sum(b.seconds for b in blocks) + 360
    if total > used:
        blocks.append(Block(total - used, "steady", x))
    blocks.append(Block(360, "steady", 0.5))
    return blocks


def _reps(n: int, work: Block, rest: Block) -> list[Block]:
    out: list[Block] = []
    for i in range(n):
        out.append(work)
        if i < n - 1:
            out.append(rest)
    out.append(Block(300, "steady", 0.55))
    return out


def ride_plan(kind: str, minutes: int, rng: random.Random) -> Plan:
    """A ride of about ``minutes`` (longer when the session needs it)."""
    total = minutes * 60
    easy = rng.uniform(0.6, 0.7)
    if kind == "Test":
        kind = rng.choice(_TESTS[1:])
    blocks = [_warm(10)]
    if kind == "Endurance":
        blocks.append(Block(max(0, total - 960), "steady", rng.uniform(0.62, 0.72)))
    elif kind == "Tempo":
        blocks += _reps(
            rng.choice((2, 3)),
            Block(rng.choice((12, 15)) * 60, "steady", rng.uniform(0.8, 0.88), work=True),
            Block(300, "steady", 0.6),
        )
    elif kind == "Threshold":
        blocks += _reps(
            2,
            Block(rng.choice((12, 15, 20)) * 60, "steady", rng.uniform(0.95, 1.02), work=True),
            Block(300, "steady", 0.55),
        )
    elif kind == "VO2max":  # zone 5: 105-120 % of FTP
        blocks += _reps(
            rng.choice((4, 5, 6)),
            Block(rng.choice((180, 240, 300)), "steady", rng.uniform(1.09, 1.16), work=True),
            Block(180, "steady", 0.5),
        )
    elif kind == "Anaerobic":  # 1-minute reps, even-paced near the curve
        blocks += _reps(
            rng.choice((5, 6, 8)),
            Block(60, "even", rng.uniform(0.9, 1.0), work=True),
            Block(240, "steady", 0.5),
        )
    elif kind == "Sprints":
        blocks.append(Block(600, "steady", easy))
        blocks += _reps(
            rng.choice((4, 6)),
            Block(rng.choice((10, 12, 15)), "allout", rng.uniform(0.93, 1.0), work=True),
            Block(300, "steady", 0.5),
        )
    else:  # "5 min test", "20 min test", "Time trial": one even-paced best effort
        seconds = {"5 min test": 300, "20 min test": 1200, "Time trial": 3600}[kind]
        blocks += [
            Block(300, "steady", 0.75),
            Block(180, "steady", 0.5),
            Block(seconds, "even", rng.uniform(0.96, 1.0), work=True),
        ]
    return Plan(kind, tuple(_fill(blocks, total, easy)))


def run_plan(kind: str, minutes: int, rng: random.Random) -> Plan:
    """A run of about ``minutes``; x is a fraction of threshold speed."""
    total = minutes * 60
    easy = rng.uniform(0.82, 0.86)  # Friel zone 2: 77.5-87.7 % of threshold speed
    blocks = [_warm(8, 0.7, easy)]
    if kind in ("Easy", "Strides"):
        blocks.append(Block(max(0, total - 840), "steady", easy))
        if kind == "Strides":
            blocks += _reps(
                6, Block(20, "allout", rng.uniform(0.9, 0.98), work=True), Block(60, "steady", 0.65)
            )
    elif kind == "Tempo":
        blocks.append(
            Block(rng.choice((20, 25, 30)) * 60, "steady", rng.uniform(0.9, 0.95), work=True)
        )
    elif kind == "Intervals":  # Friel 5b: 103-111 % of threshold speed
        blocks += _reps(
            rng.choice((5, 6)),
            Block(rng.choice((180, 240)), "steady", rng.uniform(1.05, 1.09), work=True),
            Block(150, "steady", 0.65),
        )
    elif kind == "Reps":
        blocks += _reps(
            8,
            Block(rng.choice((45, 60, 75)), "even", rng.uniform(0.9, 0.97), work=True),
            Block(120, "steady", 0.6),
        )
    else:  # "Race": a 5 or 10 km effort, even-paced at the curve's best for its time
        blocks.append(Block(rng.choice((1200, 2400)), "even", rng.uniform(0.96, 1.0), work=True))
    return Plan(kind, tuple(_fill(blocks, total, easy)))


def pick(kinds: tuple[tuple[str, int], ...], rng: random.Random) -> str:
    names, weights = zip(*kinds, strict=True)
    return str(rng.choices(names, weights=weights)[0])


def trial_kind(ordinal: int) -> str:
    """A test week's ride: sprints, a 5- or 20-minute test or an hour time trial in turn."""
    return _TESTS[ordinal % len(_TESTS)]


def targets(
    plan: Plan, curve: Curve, threshold: float, rng: random.Random
) -> tuple[FloatArray, FloatArray]:
    """Second-by-second target output (W or m/s) and a work mask (1 in the session's
    work bouts)."""
    parts, work = [], []
    for b in plan.blocks:
        if b.kind == "ramp":
            part = threshold * np.linspace(b.x0, b.x, b.seconds, dtype=np.float64)
        elif b.kind == "steady":
            part = np.full(b.seconds, threshold * b.x)
        elif b.kind == "even":
            part = np.full(b.seconds, curve.best(b.seconds) * b.x)
        else:
            part = curve.all_out(b.seconds) * b.x
        parts.append(part)
        work.append(np.full(b.seconds, 1.0 if b.work else 0.0))
    out = np.concatenate(parts)
    # Second-to-second variation of +-5 %; 2 % in work bouts, where the athlete holds a
    # target (or is at the limit) and the bout must stay in its zone.
    mask = np.concatenate(work)
    noise = np.random.default_rng(rng.getrandbits(64)).standard_normal(len(out))
    out = out * (1.0 + noise * np.where(mask > 0, 0.02, 0.05))
    return np.maximum(out, 0.0), mask


__all__ = [
    "RIDE_KINDS",
    "RUN_KINDS",
    "Block",
    "Plan",
    "pick",
    "ride_plan",
    "run_plan",
    "targets",
    "trial_kind",
]
