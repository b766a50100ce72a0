"""What API key authentication + rate limiting add per request (issue 7: under 10 %).

`GET /a2a/tools` and `POST /a2a/execute {"tool": "whoami"}` with an enterprise key, on
`full` (the shipped app) and `bare` (the same app, each key checked once and the answer
reused: `app.py`), alternated in one run, in process (raw ASGI calls) and over HTTP
(uvicorn + wrk). Run it with `bench/run limits [--wrk] [--redis]`.
"""

from ._measure import REQUESTS, Figures, bench_env, in_process, over_http
from ._report import record, table

__all__ = [
    "REQUESTS",
    "Figures",
    "bench_env",
    "in_process",
    "over_http",
    "record",
    "table",
]
