"""The file revocation signal: an mmap'd counter every process and the CLI share (KEY-7, ACC-8).

Reading the version is a memory read, so it must still see a bump made by any other
process at once, lose no bump when several processes bump together, and take over a
file left by the older format (one byte appended per revocation).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pacekeeper.apikeys import FileRevocationSignal
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import MASTER_KEY, Harness

_BUMP = (
    "import asyncio, sys\n"
    "from pathlib import Path\n"
    "from pacekeeper.apikeys import FileRevocationSignal\n"
    "signal = FileRevocationSignal(Path(sys.argv[1]))\n"
    "for _ in range(int(sys.argv[2])):\n"
    "    asyncio.run(signal.bump())\n"
)


def _bumpers(path: Path, processes: int, each: int) -> None:
    running = [subprocess.Popen([sys.executable, "-c", _BUMP, str(path), str(each)])
               for _ in range(processes)]
    assert [p.wait(60) for p in running] == [0] * processes


async def test_a_bump_in_another_process_is_seen_by_the_next_read(tmp_path: Path) -> None:
    """KEY-7: the mapping shows the other process's write with no re-open, no stat."""
    signal = FileRevocationSignal(tmp_path / "revocations")
    before, before_text = signal.peek(), await signal.version()
    _bumpers(tmp_path / "revocations", 1, 1)
    assert signal.peek() != before
    assert await signal.version() != before_text


async def test_concurrent_bumps_from_several_processes_are_all_counted(tmp_path: Path) -> None:
    """Writers add under an exclusive flock: 4 processes x 50 bumps move it by 200."""
    signal = FileRevocationSignal(tmp_path / "revocations")
    start = int.from_bytes(signal.peek(), "little")
    _bumpers(tmp_path / "revocations", 4, 50)
    await signal.bump()  # and this process's own bump after theirs
    assert int.from_bytes(signal.peek(), "little") == start + 201


async def test_a_file_of_the_older_format_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "revocations"
    path.write_bytes(b"...")  # three revocations, as the old appending signal wrote them
    signal = FileRevocationSignal(path)
    other = FileRevocationSignal(path)
    assert path.stat().st_size == FileRevocationSignal.SIZE
    seen = {signal.peek()}
    for _ in range(3):
        await other.bump()
        seen.add(signal.peek())
    assert len(seen) == 4


@pytest.mark.slow
async def test_cli_disable_refuses_the_servers_cached_key_at_once(
    harness: Harness, db_url: str, tmp_path: Path
) -> None:
    """ACC-8: `pacekeeper user disable` in its own process; the very next request fails.

    The server has the key cached (no database read per request); only the shared
    counter tells it that something changed.
    """
    token = await user_token(harness, "cli-gone@example.com")
    key = await create_key(harness, token, "trial")
    headers = {"X-API-Key": key["api_key"]}
    for _ in range(2):  # the second one is served from the cache
        assert (await harness.client.get("/a2a/tools", headers=headers)).status_code == 200
    env = {**os.environ, "PACEKEEPER_DATA_DIR": str(tmp_path),
           "PACEKEEPER_DATABASE_URL": db_url, "SERVICE_MASTER_ENCRYPTION_KEY": MASTER_KEY,
           "PACEKEEPER_JWT_RSA_KEY_BITS": "2048", "PACEKEEPER_LOG_LEVEL": "warning"}
    cli = Path(sys.executable).parent / "pacekeeper"
    done = await asyncio.create_subprocess_exec(
        str(cli), "user", "disable", "cli-gone@example.com", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, errors = await asyncio.wait_for(done.communicate(), 90)
    assert done.returncode == 0, errors.decode()
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 401
    assert refused.json()["message"] == "invalid token: the key's user is disabled"
