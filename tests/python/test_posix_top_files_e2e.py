# SPDX-License-Identifier: MIT
"""Top files by I/O time, end to end. A real ``python -m stallwatch.run --posix`` program reads
three files of known, different sizes (each 8 times the next) in 64 KiB reads; through a real
stallwatchd, the rank's ``top_files`` (docs/api.md, "Top files by I/O time") over its longest
window list the three files in the order of their sizes, the most read first, each with exactly
the bytes it read and at least its read calls, and ``files`` plus ``other`` hold every byte the
rank read."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
from typing import Any, Dict

from conftest import child_env
from daemon_fixture import get_json, requires_daemon
from posix_support import requires_posix

pytestmark = [requires_daemon, requires_posix]

CHUNK = 65536
# Most read first: the read calls' time grows with the bytes they copy.
FILE_SIZES = [48 * 1024 * 1024 + 777, 6 * 1024 * 1024 + 55, 768 * 1024 + 3]

READER = """
import os
import sys

total = 0
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    while True:
        chunk = os.read(fd, %d)
        if not chunk:
            break
        total += len(chunk)
    os.close(fd)
print(total)
""" % CHUNK


def longest_window(detail: Dict[str, Any]) -> str:
    windows = [w for w in detail["ranks"][0]["top_files"] if w != "total"]
    return max(windows, key=lambda w: int(w.rstrip("s")))


def finished_rank(base: str, job: str) -> Dict[str, Any]:
    """Rank 0 of `job` once it has finished and two reads a second apart agree."""
    deadline = time.monotonic() + 30
    last: Dict[str, Any] = {}
    while time.monotonic() < deadline:
        try:
            rank = get_json(f"{base}/api/v1/jobs/{job}")["ranks"][0]
        except (urllib.error.HTTPError, KeyError, IndexError):
            rank = {}
        if rank.get("state") == "finished" and rank.get("top_files") == last.get("top_files"):
            return rank
        last = rank
        time.sleep(1)
    raise AssertionError(f"rank 0 of {job} did not finish with settled top files: {last}")


def test_top_files_list_the_most_read_file_first_with_its_bytes(daemon, tmp_path):
    base, ingest = daemon
    data = tmp_path / "data"
    data.mkdir()
    files = []
    for i, size in enumerate(FILE_SIZES):
        f = data / f"shard-{i}.bin"
        f.write_bytes(os.urandom(size))
        files.append(str(f))
    script = tmp_path / "reader.py"
    script.write_text(READER)
    job = "posix-top-files"
    proc = subprocess.run(
        [sys.executable, "-m", "stallwatch.run", "--posix", str(script), *files],
        env=child_env(None, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split()[-1]) == sum(FILE_SIZES)

    rank = finished_rank(base, job)
    window = longest_window({"ranks": [rank]})
    top = rank["top_files"][window]
    listed = top["files"]
    assert listed[0]["path"] == files[0], top
    # In the sizes' order; any other file the runtime touched may come between.
    ours = [f for f in listed if f["path"] in files]
    assert [f["path"] for f in ours] == files, top
    for f, size in zip(ours, FILE_SIZES):
        assert f["read_bytes"] == size, top
        assert f["write_bytes"] == 0, top
        # The reads (the last one returns 0 at the end of the file), close, and open but for
        # the first file: the open that starts the agent is not timed (agent/posix/capture.h).
        assert f["ops"] == -(-size // CHUNK) + 2 + (f["path"] != files[0]), top
        assert f["io_seconds"] > 0, top
    times = [f["io_seconds"] for f in listed]
    assert times == sorted(times, reverse=True), top
    # Every byte the rank read is in the list or in "other": the rank's I/O volume.
    total = rank["windows"][window]
    read = round(total["read_bytes_per_second"] * total["wall_seconds"])
    assert sum(f["read_bytes"] for f in listed) + top["other"]["read_bytes"] == read, (top, total)
    # The run is shorter than the window: the total since the start holds the same calls.
    assert rank["top_files"]["total"] == top, rank["top_files"]
