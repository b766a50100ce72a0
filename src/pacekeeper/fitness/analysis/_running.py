"""Running: race prediction from a race given or the person's own best efforts (the
tools of ``pacekeeper.tools.running``)."""

from __future__ import annotations

from datetime import timedelta

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._calculators import predict_race
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.analysis._base import AnalysisBase
from pacekeeper.fitness.analysis._results import RacePrediction


class RunningAnalysis(AnalysisBase):
    async def race_prediction(self, owner: Owner, distance_m: float | None,
                              time_s: float | None, targets: list[float]) -> RacePrediction:
        """Race times for ``targets`` from a race given, or, without one, from the
        person's own form: the best effort of the last 90 days with the highest VDOT
        (``_vdot``, as goal feasibility, the training summary and estimate_vo2max use),
        so a distance's prediction is the same in every answer."""
        if distance_m is not None or time_s is not None:
            if distance_m is None or time_s is None:
                raise FitnessInputError("give distance_m and time_s of a race, or neither "
                                        "to predict from your own best efforts")
            return predict_race(distance_m, time_s, targets, await self.units(owner))
        today = await self.today(owner)
        efforts = await self._efforts(owner, today - timedelta(days=89), today)
        vdot = self._vdot(efforts)
        if vdot is None:
            raise FitnessInputError("no run of a mile or more in the last 90 days to predict "
                                    "from: give distance_m and time_s of a recent race")
        name = vdot[1]
        seconds, activity_id, day = efforts[name]
        out = predict_race(an.BEST_EFFORT_DISTANCES[name], seconds, targets,
                           await self.units(owner, today))
        out["summary"] = f"from your best {name} ({day}): {out['summary']}"
        out["basis"] = {"effort": name, "activity_id": activity_id, "date": day}
        return out



__all__ = ["RunningAnalysis"]
