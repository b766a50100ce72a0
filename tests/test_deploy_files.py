"""deploy/ stays honest (issue 18): the compose file parses and names only real settings
and files, the nginx configurations pass `nginx -t`, the systemd units pass
`systemd-analyze verify` (or, without it, a parser check). The compose setup itself is
never started here: these machines cannot run containers (docs/deploy.md)."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from pacekeeper.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# Read by the service outside Settings (the spec's names, and mcpcast's broadcaster).
OTHER_VARIABLES = {"SERVICE_MASTER_ENCRYPTION_KEY", "MCPCAST_BROADCAST_URL",
                   "JWT_EXPIRY_HOURS"}


def _setting_names() -> set[str]:
    return {f"PACEKEEPER_{name.upper()}" for name in Settings.model_fields} | OTHER_VARIABLES


def _compose_problems(compose: dict[str, Any]) -> list[str]:
    """What is wrong with a parsed compose file (empty: nothing)."""
    problems: list[str] = []
    services = compose["services"]
    wanted = {"postgres", "redis", "pacekeeper-1", "pacekeeper-2", "pacekeeper-3", "worker",
              "nginx"}
    if missing := wanted - set(services):
        return [f"services missing: {sorted(missing)}"]
    known = _setting_names()
    for name in ("pacekeeper-1", "pacekeeper-2", "pacekeeper-3", "worker"):
        environment = services[name]["environment"]
        unknown = {k for k in environment if k not in known}
        if unknown:
            problems.append(f"{name}: not settings of the service: {sorted(unknown)}")
        if environment.get("PACEKEEPER_WORKER") != "off":  # the worker service runs the queue
            problems.append(f"{name}: PACEKEEPER_WORKER is not off")
    if services["worker"].get("command") != ["pacekeeper", "worker"]:
        problems.append("worker: not `pacekeeper worker`")
    if "/ready" not in " ".join(services["pacekeeper-1"]["healthcheck"]["test"]):
        problems.append("pacekeeper-1: the health check does not probe /ready")
    # Redis keeps its data over a restart, on a volume: the live feeds' sequence numbers
    # must not start again (docs/scaling.md, "Faults during load").
    command = services["redis"]["command"]
    if "--appendonly" not in command or command[command.index("--appendonly") + 1] != "yes":
        problems.append("redis: no --appendonly yes")
    if not any(v.endswith(":/data") for v in services["redis"].get("volumes", ())) or (
            "redis" not in compose.get("volumes", {})):
        problems.append("redis: /data is not on a volume")
    for volume in services["nginx"]["volumes"]:
        source = volume.split(":", 1)[0]
        if not (DEPLOY / "compose" / source).resolve().is_file():
            problems.append(f"nginx: mounts a missing file {source}")
    build = services["pacekeeper-1"]["build"]
    if not (DEPLOY / "compose" / build["context"] / build["dockerfile"]).resolve().is_file():
        problems.append("pacekeeper-1: the Dockerfile is missing")
    return problems


def _compose(replace: tuple[str, str] = ("", "")) -> dict[str, Any]:
    """The compose file, parsed; with ``replace``, of a copy with that text replaced."""
    text = (DEPLOY / "compose" / "compose.yaml").read_text()
    if replace[0]:
        assert replace[0] in text
        text = text.replace(*replace)
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def test_compose_file_parses_and_names_real_settings_and_files() -> None:
    assert _compose_problems(_compose()) == []


def test_compose_check_catches_a_broken_copy() -> None:
    """The check can fail: a misspelt setting, a missing mounted file, Redis without
    persistence are each reported."""
    typo = _compose(("PACEKEEPER_REDIS_URL:", "PACEKEEPER_REDIS_ULR:"))
    assert _compose_problems(typo) == [  # the four share one environment (a YAML anchor)
        f"{name}: not settings of the service: ['PACEKEEPER_REDIS_ULR']"
        for name in ("pacekeeper-1", "pacekeeper-2", "pacekeeper-3", "worker")]
    mount = _compose(("./nginx.conf:", "./no-such.conf:"))
    assert _compose_problems(mount) == ["nginx: mounts a missing file ./no-such.conf"]
    volatile = _compose(('"--appendonly", "yes"', '"--appendonly", "no"'))
    assert _compose_problems(volatile) == ["redis: no --appendonly yes"]


def _nginx_test(tmp_path: Path, site: str) -> subprocess.CompletedProcess[str]:
    """`nginx -t` of a site file inside a minimal main configuration in `tmp_path`."""
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(f"""
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{ }}
http {{
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/site.conf;
}}
""")
    return subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                           "-e", str(tmp_path / "error.log")],
                          capture_output=True, text=True, timeout=30)


def _with_proxy_rules(site: str) -> str:
    return site.replace("include /etc/nginx/pacekeeper-proxy.conf;",
                        f"include {DEPLOY / 'nginx' / 'pacekeeper-proxy.conf'};")


def test_nginx_site_passes_nginx_t(tmp_path: Path) -> None:
    site = (DEPLOY / "nginx" / "pacekeeper.conf").read_text()
    done = _nginx_test(tmp_path, _with_proxy_rules(site))  # -t binds no port
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def test_compose_nginx_passes_nginx_t(tmp_path: Path) -> None:
    site = (DEPLOY / "compose" / "nginx.conf").read_text()
    # The containers' names resolve only inside compose's network.
    site = re.sub(r"pacekeeper-(\d):8080", r"127.0.0.1:808\1", site)
    done = _nginx_test(tmp_path, _with_proxy_rules(site))
    assert done.returncode == 0, done.stderr


def test_nginx_t_catches_a_broken_site(tmp_path: Path) -> None:
    """The check can fail: a directive nginx does not know is reported."""
    site = (DEPLOY / "nginx" / "pacekeeper.conf").read_text()
    broken = _with_proxy_rules(site).replace("listen 80;", "listen 80;\n    proxy_bufering off;")
    assert _nginx_test(tmp_path, broken).returncode != 0


UNITS = ("pacekeeper@.service", "pacekeeper-worker.service")


def _verify(unit: Path) -> str:
    """What `systemd-analyze verify` says about the unit (it exits 0 on unknown keys and
    bad values, so its messages are the verdict); the parser check without it."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        parser = configparser.ConfigParser(strict=True, interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read_string(unit.read_text())
        service = parser["Service"]
        problems = [k for k in ("ExecStart", "User", "KillSignal") if k not in service]
        return "missing: " + ", ".join(problems) if problems else ""
    done = subprocess.run([analyze, "verify", unit.name], cwd=unit.parent,
                          capture_output=True, text=True, timeout=60)
    return "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                     if unit.name in line or done.returncode != 0)


@pytest.mark.parametrize("name", UNITS)
def test_systemd_units_verify(tmp_path: Path, name: str) -> None:
    text = (DEPLOY / "systemd" / name).read_text()
    assert "ExecStart=/opt/pacekeeper/.venv/bin/pacekeeper " in text
    # verify insists the command exists: point it at this environment's pacekeeper.
    exe = Path(sys.executable).parent / "pacekeeper"
    unit = tmp_path / name
    unit.write_text(text.replace("/opt/pacekeeper/.venv/bin/pacekeeper", str(exe)))
    assert _verify(unit) == ""


def test_systemd_verify_catches_a_broken_unit(tmp_path: Path) -> None:
    text = (DEPLOY / "systemd" / UNITS[1]).read_text()
    exe = Path(sys.executable).parent / "pacekeeper"
    unit = tmp_path / "broken.service"
    unit.write_text(text.replace("/opt/pacekeeper/.venv/bin/pacekeeper", str(exe))
                    .replace("KillSignal=SIGTERM", "KillSignal=SIGTERM\nRestart=sometimes"))
    assert _verify(unit) != ""
