"""Swim load: TrainingPeaks' swim TSS (sTSS) from the swim's pace and the swimmer's
threshold pace (CSS)."""

from __future__ import annotations


def swim_tss(distance_m: float, moving_s: float, threshold_pace_s_per_100m: float
             ) -> float | None:
    """sTSS = IF^3 x hours x 100 with IF = NSS / threshold speed, NSS = distance / time
    (McGregor & Fitzgerald for TrainingPeaks, 2008; TrainingPeaks' help, "Why don't
    TrainingPeaks and WKO4 agree on my swim TSS?"). IF is cubed, not squared as on land:
    drag grows with speed faster in water. Time is the moving time, rests at the wall
    left out, as TrainingPeaks counts it (WKO counts the whole time). One hour at CSS is
    100. None without a distance, a time or a threshold."""
    if distance_m <= 0 or moving_s <= 0 or threshold_pace_s_per_100m <= 0:
        return None
    intensity = (distance_m / moving_s) / (100.0 / threshold_pace_s_per_100m)
    return intensity**3 * moving_s / 3600.0 * 100.0


__all__ = ["swim_tss"]
