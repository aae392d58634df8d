# SPDX-License-Identifier: MIT
"""libstallwatch_posix.so on a real program (posix_probe): every interposed call keeps
its result and errno (EINTR and partial reads included) and the program's output is
byte-identical with and without the preload; the calls on data files arrive as regions
in cat POSIX/STDIO named like DFTracer's, with the bytes moved as their value."""

from __future__ import annotations

import subprocess

from conftest import child_env
from posix_support import LIB, PROBE, regions, requires_posix
from wire_capture import Capture

pytestmark = requires_posix


def run_probe(directory: str, capture, preload: bool, **extra: str) -> subprocess.CompletedProcess:
    env = child_env(capture, **extra)
    if preload:
        env["LD_PRELOAD"] = LIB
    return subprocess.run([PROBE, directory], env=env, capture_output=True, timeout=60)


def test_every_call_keeps_its_result_and_errno(capture, tmp_path):
    (tmp_path / "bare").mkdir()
    (tmp_path / "traced").mkdir()
    bare = run_probe(str(tmp_path / "bare"), None, preload=False)
    traced = run_probe(str(tmp_path / "traced"), capture, preload=True, STALLWATCH_POSIX="1")
    assert bare.returncode == 0, bare.stderr
    assert traced.returncode == 0, traced.stderr
    assert traced.stdout == bare.stdout
    lines = bare.stdout.decode().splitlines()
    assert any(line.startswith("read fifo EINTR") and "errno=4 " in line for line in lines)
    assert any(line.startswith("read fifo partial") and "result=10 " in line for line in lines)
    assert any(line.startswith("pread past end") and "result=500 " in line for line in lines)
    # The capture did trace them: the run above was not a pass-through.
    capture.wait_until(lambda: bool(capture.finished_pids()), 15.0)
    assert any(r.name == "read" for r in regions(capture))


def test_disabled_agent_changes_nothing(tmp_path):
    (tmp_path / "bare").mkdir()
    (tmp_path / "off").mkdir()
    bare = run_probe(str(tmp_path / "bare"), None, preload=False)
    off = run_probe(str(tmp_path / "off"), None, preload=True, STALLWATCH_ENABLE="0")
    assert off.returncode == 0, off.stderr
    assert off.stdout == bare.stdout


def test_calls_on_data_files_are_regions_with_their_bytes(capture: Capture, tmp_path):
    proc = run_probe(str(tmp_path), capture, preload=True, STALLWATCH_POSIX="1")
    assert proc.returncode == 0, proc.stderr
    capture.wait_until(lambda: bool(capture.finished_pids()), 15.0)
    got = regions(capture)
    data = str(tmp_path / "data.bin")
    on_data = [(r.cat, r.name, r.value) for r in got if r.path == data]
    reads = [v for cat, name, v in on_data if name == "read"]
    # Then one read on each copy (dup, dup2, dup3, fcntl F_DUPFD, F_DUPFD_CLOEXEC) and
    # __read_chk; the copy of /dev/null made over a traced number reads untraced.
    assert reads == [4096, 4096, 1808, 0, 100, 11, 12, 13, 14, 15, 16]
    assert ("POSIX", "pread", 500) in on_data
    assert ("POSIX", "pread64", 0) in on_data
    assert ("POSIX", "readv", 0) in on_data  # at the end of the file
    assert ("POSIX", "preadv", 30) in on_data
    assert ("POSIX", "preadv64", 10) in on_data
    assert [v for cat, name, v in on_data if name == "fread"] == [6000, 3999]
    names = {(r.cat, r.name) for r in got}
    for name in ("open", "open64", "openat", "openat64", "creat", "creat64", "close", "read",
                 "write", "pwrite", "pwrite64", "pwritev", "pwritev64", "lseek", "lseek64",
                 "stat", "stat64", "fstat", "fstat64", "statx", "fsync", "fdatasync"):
        assert ("POSIX", name) in names, name
    for name in ("fopen", "fopen64", "fread", "fwrite", "fclose"):
        assert ("STDIO", name) in names, name
    writes = {(r.name, r.value) for r in got if r.path == str(tmp_path / "out.bin")}
    assert {("write", 12), ("pwrite", 5), ("pwrite64", 1), ("pwritev", 4),
            ("pwritev64", 4)} <= writes
    assert ("read", 0) in {(r.name, r.value) for r in got if r.path == str(tmp_path / "fifo")}
    marks = {(e.name, e.value) for e in capture.events() if e.kind == "mark" and e.cat == "POSIX"}
    assert ("mmap", 10000) in marks and ("munmap", 10000) in marks
    # Only the program's data files are named; the agent's own files never are.
    paths = {e.name for e in capture.events() if e.kind == "mark" and e.cat == "posix_file"}
    assert paths and all(p.startswith(str(tmp_path)) for p in paths), paths
    counters = {e.name for e in capture.events() if e.kind == "counter" and e.cat == "proc_io"}
    assert counters == {"rchar", "read_bytes"}


def test_files_past_the_limit_share_one_counted_name(capture: Capture, tmp_path):
    proc = run_probe(str(tmp_path), capture, preload=True, STALLWATCH_POSIX_MAX_FILES="2")
    assert proc.returncode == 0, proc.stderr
    capture.wait_until(lambda: bool(capture.finished_pids()), 15.0)
    paths = {e.name for e in capture.events() if e.kind == "mark" and e.cat == "posix_file"}
    assert len(paths - {"<other files>"}) == 2
    assert "<other files>" in paths
    folded = [e.value for e in capture.events()
              if e.kind == "counter" and e.cat == "posix_file" and e.name == "other_files"]
    assert folded and folded[-1] >= 3
