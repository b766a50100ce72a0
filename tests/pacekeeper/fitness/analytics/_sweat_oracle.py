"""Run inside the oracle venv (sweat 0.25, GoldenCheetah's Python): JSON in, JSON out.

stdin: {"power": [...], "cp": float, "w_prime": float}
stdout: {"mean_max": [...], "wbal_skiba": [...], "wbal_fsc": [...], "wbal_waterworth": [...]}

sweat's ``mean_max`` takes the cumulative energy without a leading zero, so it never
sees the window that starts at the first second; we prepend one 0 to the cumulative sum
by prepending a 0 W sample *to the energy baseline only*: passing [0] + power gives
windows over exactly the original seconds (the 0 sits before the first window's start).
"""

import json
import sys

import numpy as np
from sweat.metrics.core import mean_max
from sweat.pdm import w_prime_balance as wb

request = json.load(sys.stdin)
power = np.asarray(request["power"], dtype=float)
cp, w_prime = request["cp"], request["w_prime"]
curve = mean_max(np.concatenate(([0.0], power)))
out = {
    "mean_max": [float(x) for x in curve],
    "wbal_skiba": [float(x) for x in wb.w_prime_balance_skiba(power, cp, w_prime)]
    if request.get("skiba", True)
    else None,
    "wbal_fsc": [float(x) for x in wb.w_prime_balance_froncioni_skiba_clarke(power, cp, w_prime)],
    "wbal_waterworth": [float(x) for x in wb.w_prime_balance_waterworth(power, cp, w_prime)],
}
json.dump(out, sys.stdout)
