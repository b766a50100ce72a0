"""Log lines as JSON objects (PACEKEEPER_LOG_FORMAT=json): one per line, with the request
id of the request that wrote it, and no secret.

Secrets: every record is redacted when it is created (`logredact`, ERR-3); the formatter
redacts the finished message once more, and writes an exception as its type only, never
a traceback (a frame's locals or a driver's message may hold a credential).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson

from pacekeeper import logredact
from pacekeeper.ops._context import request_id


class JsonFormatter(logging.Formatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        logredact.install()  # this formatter may be built by dictConfig in a new process

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                  + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) \
                and len(record.args) == 5:
            client, method, path, version, status = record.args
            entry.update(message="request", client=client, method=method, path=path,
                         http_version=version, status=status)
        else:
            try:
                message = record.getMessage()
            except (TypeError, ValueError):  # arguments that do not fit the format
                message = str(record.msg)
            entry["message"] = logredact.redact(message)
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        if record.exc_info and record.exc_info[0] is not None:
            entry["exception"] = record.exc_info[0].__name__
        return orjson.dumps(entry, default=str).decode()


def log_config(log_format: str, level: str = "INFO") -> dict[str, Any] | None:
    """A `logging.config.dictConfig` for uvicorn's `log_config` (applied in each worker
    process); None keeps uvicorn's own text format."""
    if log_format != "json":
        return None
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "pacekeeper.ops._logging.JsonFormatter"}},
        "handlers": {"default": {"class": "logging.StreamHandler", "formatter": "json",
                                 "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["default"], "level": level},
        "loggers": {name: {"handlers": [], "level": level, "propagate": True}
                    for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
    }


def configure_logging(log_format: str, level: str = "INFO") -> None:
    """The same for a process that runs no uvicorn (`pacekeeper worker`)."""
    import logging.config

    config = log_config(log_format, level)
    if config is None:
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    else:
        logging.config.dictConfig(config)


__all__ = ["JsonFormatter", "configure_logging", "log_config"]
