"""The `pacekeeper` command line (ACC-9 admin create, user disable, keys rotate, db)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pacekeeper.cli import cli

MASTER = base64.b64encode(bytes(32)).decode()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PACEKEEPER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SERVICE_MASTER_ENCRYPTION_KEY", MASTER)
    monkeypatch.setenv("PACEKEEPER_JWT_RSA_KEY_BITS", "2048")
    monkeypatch.setenv("PACEKEEPER_ARGON2_MEMORY_KIB", "1024")
    monkeypatch.setenv("PACEKEEPER_ARGON2_TIME_COST", "1")
    return tmp_path


def test_db_upgrade_admin_user_disable_rotate(env: Path) -> None:
    """ACC-9: the first admin from the CLI; disable and rotate work offline."""
    runner = CliRunner()
    result = runner.invoke(cli, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert (env / "pacekeeper.db").exists()
    result = runner.invoke(cli, ["admin", "create", "--email", "Root@Example.com"],
                           input="pw-123456789\npw-123456789\n")
    assert result.exit_code == 0, result.output
    assert "created admin root@example.com" in result.output
    assert "pw-123456789" not in result.output.replace("Password: ", "")
    dup = runner.invoke(cli, ["user", "create", "--email", "root@example.com",
                              "--password", "pw-123456789"])
    assert dup.exit_code == 2
    assert "already exists" in dup.output
    weak = runner.invoke(cli, ["user", "create", "--email", "u@example.com", "--password", "x"])
    assert weak.exit_code == 2
    assert "at least 8" in weak.output
    assert runner.invoke(cli, ["user", "create", "--email", "u@example.com",
                               "--password", "pw-123456789"]).exit_code == 0
    assert runner.invoke(cli, ["user", "disable", "u@example.com"]).exit_code == 0
    missing = runner.invoke(cli, ["user", "disable", "nobody@example.com"])
    assert missing.exit_code == 2
    rotated = runner.invoke(cli, ["keys", "rotate"])
    assert rotated.exit_code == 0
    assert "new signing key" in rotated.output


def test_production_without_master_key_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PACEKEEPER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PACEKEEPER_ENV", "production")
    monkeypatch.delenv("SERVICE_MASTER_ENCRYPTION_KEY", raising=False)
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert "SERVICE_MASTER_ENCRYPTION_KEY is required in production" in result.output
    assert not (tmp_path / "master.key").exists()
    monkeypatch.setenv("PACEKEEPER_JWT_RSA_KEY_BITS", "2048")
    small = CliRunner().invoke(cli, ["serve"])
    assert small.exit_code == 2
    assert "at least 4096 in production" in small.output
    monkeypatch.setenv("PACEKEEPER_PORT", "not-a-port")
    bad_port = CliRunner().invoke(cli, ["serve"])
    assert bad_port.exit_code == 2
    assert "port" in bad_port.output
    monkeypatch.delenv("PACEKEEPER_PORT")
    monkeypatch.delenv("PACEKEEPER_JWT_RSA_KEY_BITS")
    monkeypatch.setenv("SERVICE_MASTER_ENCRYPTION_KEY", "short")
    result = CliRunner().invoke(cli, ["db", "upgrade"])
    assert result.exit_code == 2
    assert "32 bytes" in result.output


def test_import_files_for_a_user(env: Path) -> None:
    """`pacekeeper import`: one line per file (imported, duplicate, rejected) and the
    counts, and a truncated file's warning (FIG-11); exit 1 when every file was rejected,
    2 for an unknown user."""
    data = Path(__file__).resolve().parents[1] / "data" / "activities"
    ride = data / "fit" / "4801048867.fit"
    cut = data / "corrupt" / "activity-unexpected-eof.fit"  # 3 bytes short: read in part
    broken = env / "cut-before-any-message.fit"  # nothing readable
    broken.write_bytes(cut.read_bytes()[:40])
    runner = CliRunner()
    assert runner.invoke(cli, ["user", "create", "--email", "rider@example.com",
                               "--password", "pw-123456789"]).exit_code == 0
    result = runner.invoke(cli, ["import", "--email", "Rider@Example.com",
                                 str(ride), str(ride), str(broken), str(cut)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("4801048867.fit: imported (") for line in lines)
    assert any(line.startswith("4801048867.fit: duplicate (") for line in lines)
    assert any(line.startswith("cut-before-any-message.fit: rejected: ") for line in lines)
    assert any(line.startswith("activity-unexpected-eof.fit: warning: the FIT file is "
                               "truncated") for line in lines)
    assert "2 imported, 0 merged, 1 duplicate, 1 rejected" in result.output
    only_bad = runner.invoke(cli, ["import", "--email", "rider@example.com", str(broken)])
    assert only_bad.exit_code == 1
    nobody = runner.invoke(cli, ["import", "--email", "nobody@example.com", str(ride)])
    assert nobody.exit_code == 2 and "no such user" in nobody.output


def test_recompute_a_users_stored_metrics(env: Path) -> None:
    """`pacekeeper user recompute`: the stored metrics of every activity with streams
    computed again (issue 27: TSS and best efforts stored by an older formula); 2 for
    an unknown user."""
    ride = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit" / \
        "4801048867.fit"
    runner = CliRunner()
    assert runner.invoke(cli, ["user", "create", "--email", "again@example.com",
                               "--password", "pw-123456789"]).exit_code == 0
    assert runner.invoke(cli, ["import", "--email", "again@example.com",
                               str(ride)]).exit_code == 0
    result = runner.invoke(cli, ["user", "recompute", "Again@Example.com"])
    assert result.exit_code == 0, result.output
    assert "recomputed 1 activities" in result.output
    nobody = runner.invoke(cli, ["user", "recompute", "nobody@example.com"])
    assert nobody.exit_code == 2 and "no such user" in nobody.output


def test_import_export_for_a_user(env: Path) -> None:
    """`pacekeeper import-export`: a whole-account export imported in the shell's own
    process, with the job's report at the end; exit 2 for an unknown user."""
    from tests.pacekeeper.fitness._exports import raw, strava_export

    export = strava_export(env / "export_1.zip", [
        ("1.gpx", raw("gpx/korita-zbevnica.gpx"), {"Activity Name": "Korita"}),
        ("2.fit", raw("corrupt/activity-unexpected-eof.fit")[:40], {})])
    runner = CliRunner()
    assert runner.invoke(cli, ["user", "create", "--email", "rider@example.com",
                               "--password", "pw-123456789"]).exit_code == 0
    result = runner.invoke(cli, ["import-export", "--email", "Rider@Example.com",
                                 str(export)])
    assert result.exit_code == 0, result.output
    assert "activities/2.fit: rejected: " in result.output
    assert "strava: done; 1 imported, 0 merged, 0 duplicates, 0 days, 1 rejected" \
        in result.output
    nobody = runner.invoke(cli, ["import-export", "--email", "nobody@example.com",
                                 str(export)])
    assert nobody.exit_code == 2 and "no such user" in nobody.output
