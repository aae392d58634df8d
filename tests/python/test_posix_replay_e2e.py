# SPDX-License-Identifier: MIT
"""Live and replayed I/O volume agree. A real ``python -m stallwatch.run --posix`` program reads
files of known sizes; what its agent sends goes to a real stallwatchd through a relay that keeps
a copy. The copy's POSIX and STDIO calls are written as a dftracer ``.pfw`` (the call's name and
category, pid, tid, start and duration in microseconds with the nanoseconds as decimals, and
``args.fname`` / ``args.ret``, the bytes moved, as dftracer writes them) and replayed with
``stallwatch replay`` into the same daemon as another job. Over the whole run (the finalized
counters of ``/metrics`` once both ranks have finished) the two ranks must have the same read and
write bytes, the same read and write calls, and the same io_seconds, |IO| to the nanosecond: the
same calls at the same times are the same intervals whether they came live or from a trace.
Their top files by I/O time over the whole run (``top_files.total`` of the API) are the same too:
the replay names each ``args.fname`` with a ``posix_file`` mark as the agent does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Dict, List, Tuple

import pytest
import zmq

from conftest import child_env
from daemon_fixture import requires_daemon
from posix_support import requires_posix
from wire_capture import Decoded, decode

CLI = os.environ.get("STALLWATCH_TEST_CLI", "")

pytestmark = [requires_daemon, requires_posix,
              pytest.mark.skipif(not os.path.isfile(CLI),
                                 reason="stallwatch CLI not built (STALLWATCH_TEST_CLI)")]

# Sizes that end in a short read, one smaller than a chunk, one of whole chunks.
FILE_SIZES = [3 * 65536 + 1234, 4000, 2 * 65536]

READER = """
import os
import sys

total = 0
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        total += len(chunk)
    total += len(os.pread(fd, 100, 10))
    os.close(fd)
print(total)
"""


class Relay:
    """A PULL socket the agent sends to; every frame is decoded, kept, and passed on unchanged
    to the daemon's ingest endpoint."""

    def __init__(self, ingest: str) -> None:
        context = zmq.Context.instance()
        self._pull = context.socket(zmq.PULL)
        self._pull.setsockopt(zmq.LINGER, 0)
        self.endpoint = f"tcp://127.0.0.1:{self._pull.bind_to_random_port('tcp://127.0.0.1')}"
        self._push = context.socket(zmq.PUSH)
        self._push.setsockopt(zmq.LINGER, 5000)
        self._push.connect(ingest)
        self.batches: List[Decoded] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._pull.poll(100):
                frame = self._pull.recv()
                self.batches.append(decode(frame))
                self._push.send(frame)

    def wait_final(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(b.final for b in self.batches):
                return True
            time.sleep(0.1)
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._pull.close(0)
        self._push.close()


def micros(ns: int) -> str:
    """ns as a JSON number of microseconds, exact to the nanosecond."""
    return f"{ns // 1000}.{ns % 1000:03d}"


def write_pfw(batches: List[Decoded], path: str) -> Tuple[int, int]:
    """Writes the POSIX and STDIO calls of `batches` as dftracer records; returns (calls, bytes
    read by read-like calls)."""
    paths: Dict[Tuple[int, int], str] = {}
    begun: Dict[Tuple[int, int, int], Tuple[str, str, int, int]] = {}
    calls: List[Tuple[str, str, int, int, int, int, str, int]] = []
    for b in sorted(batches, key=lambda b: (b.pid, b.seq)):
        for e in b.events:
            if e.kind == "mark" and e.cat == "posix_file":
                paths[(e.pid, e.value)] = e.name
            elif e.kind == "complete" and e.cat in ("POSIX", "STDIO"):
                calls.append((e.cat, e.name, e.pid, e.tid, e.ts_ns, e.dur_ns,
                              paths.get((e.pid, e.region_id), ""), e.value))
            elif e.kind == "begin" and e.cat in ("POSIX", "STDIO"):
                begun[(e.pid, e.tid, e.region_id)] = (e.cat, e.name, e.value, e.ts_ns)
            elif e.kind == "end" and (e.pid, e.tid, e.region_id) in begun:
                cat, name, file_id, start = begun.pop((e.pid, e.tid, e.region_id))
                calls.append((cat, name, e.pid, e.tid, start, e.ts_ns - start,
                              paths.get((e.pid, file_id), ""), e.value))
    read_bytes = 0
    with open(path, "w") as out:
        out.write("[\n")
        for i, (cat, name, pid, tid, ts, dur, fname, ret) in enumerate(calls):
            out.write(f'{{"id":{i + 1},"name":{json.dumps(name)},"cat":"{cat}","pid":{pid},'
                      f'"tid":{tid},"ts":{micros(ts)},"dur":{micros(dur)},"ph":"X",'
                      f'"args":{{"fname":{json.dumps(fname)},"ret":{ret}}}}}\n')
            if name in ("read", "pread", "pread64", "fread"):
                read_bytes += ret
    return len(calls), read_bytes


COUNTERS = ("io_read_bytes_total", "io_write_bytes_total", "io_read_ops_total",
            "io_write_ops_total", "io_seconds_total")


def rank_counters(base: str, job: str) -> Tuple[Dict[str, str], bool]:
    """The finalized I/O counters of rank 0 of `job` as /metrics prints them, and whether the
    rank has finished."""
    with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
        text = response.read().decode()
    out: Dict[str, str] = {}
    finished = False
    for line in text.splitlines():
        if f'job_id="{job}"' not in line or 'rank="0"' not in line:
            continue
        m = re.match(r"stallwatch_(\w+)\{[^}]*\} (\S+)$", line)
        if m is None:
            continue
        if m.group(1) in COUNTERS:
            out[m.group(1)] = m.group(2)
        elif m.group(1) == "rank_info" and 'state="finished"' in line:
            finished = True
    return out, finished


def final_counters(base: str, job: str) -> Dict[str, str]:
    """The counters once the rank has finished and its end is final: the lateness (2 s) has
    passed since it finished, and two reads a second apart agree."""
    deadline = time.monotonic() + 30
    while not rank_counters(base, job)[1]:
        if time.monotonic() > deadline:
            pytest.fail(f"rank 0 of {job} did not finish")
        time.sleep(0.5)
    time.sleep(3)
    last: Dict[str, str] = {}
    while time.monotonic() < deadline:
        counters = rank_counters(base, job)[0]
        if counters == last and len(counters) == len(COUNTERS):
            return counters
        last = counters
        time.sleep(1)
    pytest.fail(f"the counters of rank 0 of {job} did not settle: {last}")


def total_top_files(base: str, job: str) -> dict:
    """Rank 0's top files since its start, as the API lists them."""
    with urllib.request.urlopen(f"{base}/api/v1/jobs/{job}", timeout=5) as response:
        doc = json.load(response)
    rank = next(r for r in doc["ranks"] if r["rank"] == 0)
    return rank["top_files"].get("total", {})


def test_live_and_replayed_io_volume_are_equal(daemon, tmp_path):
    base, ingest = daemon
    data = tmp_path / "data"
    data.mkdir()
    files = []
    for i, size in enumerate(FILE_SIZES):
        f = data / f"shard-{i}.bin"
        f.write_bytes(bytes((i * 7 + k) % 251 for k in range(size)))
        files.append(str(f))
    script = tmp_path / "reader.py"
    script.write_text(READER)

    relay = Relay(ingest)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "stallwatch.run", "--posix", str(script), *files],
            env=child_env(None, STALLWATCH_COLLECTOR=relay.endpoint,
                          STALLWATCH_JOB="posix-volume-live"),
            capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert int(proc.stdout.split()[-1]) == sum(FILE_SIZES) + 3 * 100
        assert relay.wait_final(20), "the agent sent no final batch"
    finally:
        relay.close()
    live = final_counters(base, "posix-volume-live")

    pfw = tmp_path / "trace-0-of-1.pfw"
    calls, read_bytes = write_pfw(relay.batches, str(pfw))
    assert calls > 0
    # At least the data files' reads: any other traced read of the process counts on both sides.
    assert read_bytes >= sum(FILE_SIZES) + 3 * 100
    replay = subprocess.run([CLI, "replay", str(pfw), "--speed", "max", "--to", ingest, "--job",
                             "posix-volume-replayed"], capture_output=True, text=True,
                            timeout=60)
    assert replay.returncode == 0, replay.stderr
    replayed = final_counters(base, "posix-volume-replayed")

    assert int(live["io_read_bytes_total"]) == read_bytes, (live, replayed)
    assert replayed == live

    live_top = total_top_files(base, "posix-volume-live")
    replayed_top = total_top_files(base, "posix-volume-replayed")
    by_path = {f["path"]: f for f in live_top.get("files", [])}
    for path, size in zip(files, FILE_SIZES):
        assert path in by_path, live_top
        # Reads to the end (the last one returns 0) and the pread of 100 bytes.
        assert by_path[path]["read_bytes"] == size + 100, by_path[path]
        assert by_path[path]["io_seconds"] > 0
    assert replayed_top == live_top
