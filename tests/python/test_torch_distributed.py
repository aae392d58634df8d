# SPDX-License-Identifier: MIT
"""Zero-code capture of torch.distributed calls and DDP gradient buckets.

Two ranks of a gloo job (scenarios/dist_calls.py) under ``python -m
stallwatch.run``: each call becomes one ``comm`` region (bytes on the END of
a synchronous call; an ``async_op=True`` call recorded when ``wait()``
returns, on the waiting thread; ``all_gather_object`` once, not its inner
``all_gather``); DDP's gradient all-reduce is recorded per bucket, and the
trained parameters are the same with and without the instrumentation, and a
job whose process-group threads still hold bucket callbacks when it ends
(starved of CPU) ends cleanly.
"""

from __future__ import annotations

import collections
import os
import signal
import socket
import subprocess
import sys

import pytest

from conftest import child_env

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios", "dist_calls.py")


def gloo_available() -> bool:
    try:
        import torch.distributed as dist
    except Exception:
        return False
    return bool(dist.is_available())


pytestmark = pytest.mark.skipif(not gloo_available(),
                                reason="PyTorch with torch.distributed is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_ranks(capture, *args, **env):
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-m", "stallwatch.run", SCRIPT, str(rank), str(port),
                               *args],
                              env=child_env(capture, STALLWATCH_JOB="dist", STALLWATCH_RANK=str(rank),
                                            GLOO_SOCKET_IFNAME="lo", PYTHONFAULTHANDLER="1",
                                            **env),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(2)]
    outs = []
    try:
        for p in procs:
            try:
                outs.append(p.communicate(timeout=240))
            except subprocess.TimeoutExpired:
                # Say where every rank waits (faulthandler prints each thread's
                # stack on SIGABRT), and leave no rank behind spinning.
                for q in procs:
                    q.send_signal(signal.SIGABRT)
                report = []
                for q in procs:
                    try:
                        report.append(q.communicate(timeout=10))
                    except subprocess.TimeoutExpired:
                        q.kill()
                        report.append(q.communicate())
                raise AssertionError(f"rank {procs.index(p)} did not finish in 240 s; "
                                     f"ranks' exit codes {[q.returncode for q in procs]}, "
                                     f"stderr: {[err[-6000:] for _, err in report]}") from None
    finally:
        for q in procs:
            if q.poll() is None:
                q.kill()
                q.wait()
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    if capture is not None:
        capture.wait_until(lambda: len(capture.finished_pids()) >= 2, 15)
    return outs[0][0]


# Rank 0's output of the instrumented run, for the comparison below.
_TRACED: list = []


def test_collectives_and_ddp_buckets_are_comm_regions(capture):
    out = run_ranks(capture)
    _TRACED.append(out)
    comm = [e for e in capture.events() if e.cat == "comm"]
    by_pid = collections.defaultdict(list)
    for e in comm:
        by_pid[e.pid].append(e)
    assert len(by_pid) == 2
    for pid, events in by_pid.items():
        opened = collections.Counter(e.name for e in events if e.kind == "begin")
        completed = collections.Counter(e.name for e in events if e.kind == "complete")
        sent = "send" if opened["send"] else "recv"
        assert opened == {"broadcast": 1, "all_gather_object": 1, sent: 1, "barrier": 1}, opened
        # The async all_reduce at wait(), then one DDP bucket per step.
        assert completed == {"all_reduce": 4}, completed
        ends = {e.region_id: e.value for e in capture.events(pid=pid) if e.kind == "end"}
        begins = {e.name: e.region_id for e in events if e.kind == "begin"}
        assert ends[begins["broadcast"]] == 64
        assert ends[begins[sent]] == 16
        waited = next(e for e in events if e.kind == "complete")
        assert waited.tid == pid  # recorded on the main thread, which waited
    assert "checksum" in out


def test_ddp_result_is_unchanged():
    plain = run_ranks(None, STALLWATCH_ENABLE="0")
    traced = _TRACED[0] if _TRACED else run_ranks(None)
    assert plain.split()[-1] == traced.split()[-1]


def test_job_ends_while_the_process_group_still_holds_bucket_callbacks(capture):
    # The process group's threads run only while the main thread waits, from
    # the last backward pass on: before the fix, destroy_process_group or the
    # interpreter's end met them still needing the GIL, and the rank hung in
    # the process group's destructor or aborted at exit.
    out = run_ranks(capture, "starve-threads")
    plain = run_ranks(None, STALLWATCH_ENABLE="0")
    assert out.split()[-1] == plain.split()[-1]
