# SPDX-License-Identifier: MIT
"""Job and rank identity as seen on the wire and by children."""

from __future__ import annotations

import socket

from conftest import run_python

from stallwatch import _identity


def test_job_falls_back_in_design_order():
    assert _identity.choose_job({"STALLWATCH_JOB": "a", "TORCHELASTIC_RUN_ID": "b"}) == "a"
    assert _identity.choose_job({"TORCHELASTIC_RUN_ID": "b", "SLURM_JOB_ID": "c"}) == "b"
    assert _identity.choose_job({"SLURM_JOB_ID": "c"}) == "c"
    assert _identity.choose_job({"STALLWATCH_JOB": " "}).startswith(socket.gethostname() + "-")


def test_rank_falls_back_and_ignores_garbage():
    assert _identity.choose_rank({"STALLWATCH_RANK": "3", "RANK": "5"}) == 3
    assert _identity.choose_rank({"RANK": "5"}) == 5
    assert _identity.choose_rank({"STALLWATCH_RANK": "x", "RANK": "2"}) == 2
    assert _identity.choose_rank({}) == 0


def test_import_fixes_identity_in_environment_for_children(capture):
    run = run_python("""
        import os, subprocess, sys
        print(os.environ["STALLWATCH_JOB"], os.environ["STALLWATCH_RANK"])
        code = "import stallwatch; stallwatch.mark('test', 'child', 1); stallwatch.flush(2000)"
        subprocess.run([sys.executable, "-c", code], check=True)
    """, capture, env={"RANK": "4"}, expect_finals=2)
    job, rank = run.stdout.split()
    assert rank == "4"
    pids = {b.pid for b in capture.batches}
    parent = next(b.ppid for b in capture.batches if b.ppid in pids)
    assert job == f"{socket.gethostname()}-{parent}"
    sources = {(b.job, b.rank) for b in capture.batches}
    assert sources == {(job, 4)}
    assert len({b.pid for b in capture.batches}) == 2


def test_torchelastic_run_id_names_the_job(capture):
    run_python("pass", capture, env={"TORCHELASTIC_RUN_ID": "elastic-7", "RANK": "1"})
    assert {(b.job, b.rank) for b in capture.batches} == {("elastic-7", 1)}
