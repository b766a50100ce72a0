"""Tiers: 30-day quotas (KEY-6), per-minute burst limits, trial lifetime (KEY-5), plans.

The monthly table of service.md section 8 is authoritative (decisions.md); the
conflicting per-day figures are not applied. Burst limits are ours (the spec names
none): a token bucket per key, sized so that a tier's monthly quota cannot be spent in
a few seconds, yet an agent may call in short bursts.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum


class Tier(StrEnum):
    TRIAL = "trial"
    STARTER = "starter"
    PROFESSIONAL = "professional"
    ENTERPRISE = "enterprise"


# Requests per key per rolling 30 days; None is unlimited.
QUOTAS: dict[Tier, int | None] = {
    Tier.TRIAL: 1_000,
    Tier.STARTER: 10_000,
    Tier.PROFESSIONAL: 100_000,
    Tier.ENTERPRISE: None,
}

# Token-bucket capacity per key, refilled evenly over a minute.
BURST_PER_MINUTE: dict[Tier, int] = {
    Tier.TRIAL: 60,
    Tier.STARTER: 300,
    Tier.PROFESSIONAL: 1_200,
    Tier.ENTERPRISE: 6_000,
}

QUOTA_WINDOW_DAYS = 30
TRIAL_LIFETIME = timedelta(days=14)

# Which tiers a user (not an admin) may create, by the plan of their tenant. Admins may
# create any tier for anyone. Unknown plans get the free plan's tiers.
PLAN_TIERS: dict[str, frozenset[Tier]] = {
    "free": frozenset({Tier.TRIAL}),
    "starter": frozenset({Tier.TRIAL, Tier.STARTER}),
    "professional": frozenset({Tier.TRIAL, Tier.STARTER, Tier.PROFESSIONAL}),
    "enterprise": frozenset(Tier),
}


def tiers_for_plan(plan: str) -> frozenset[Tier]:
    return PLAN_TIERS.get(plan.lower(), PLAN_TIERS["free"])


def parse_tier(value: object) -> Tier | None:
    """The tier named by `value`, or None (KEY-2: anything else is a 400 upstream)."""
    if not isinstance(value, str):
        return None
    try:
        return Tier(value)
    except ValueError:
        return None


__all__ = [
    "BURST_PER_MINUTE",
    "PLAN_TIERS",
    "QUOTAS",
    "QUOTA_WINDOW_DAYS",
    "TRIAL_LIFETIME",
    "Tier",
    "parse_tier",
    "tiers_for_plan",
]
