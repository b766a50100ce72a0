"""The engine version: which importer and analytics computed an activity's figures.

THE RULE: bump ``ENGINE_VERSION`` by one in the same change as any change to a figure
the importer (``pacekeeper.fitness.importers``: summary, laps, legs, swim structure,
streams) or the analytics (``pacekeeper.fitness.analytics``: stored metrics) computes.
Every activity is stamped with the version that computed it (migration 0016); at start
the service re-derives, in the background, every activity stamped with an older one
(``FitnessService.rederive``; docs/import.md, "Re-deriving after an upgrade"), so a
person never sees figures of two engines side by side. Not for a change that leaves
every stored figure as it was (a refactor, a new tool over the same figures).

History: 0 (or NULL) before the stamp existed; 1 issue 27 (TSS over the whole series,
power dropouts as zero, moving time within the timer, multisport legs, pool swims,
device totals shown, best efforts); 2 swims' load from CSS (sTSS).
"""

from __future__ import annotations

ENGINE_VERSION = 2

__all__ = ["ENGINE_VERSION"]
