# SPDX-License-Identifier: MIT
"""The pydftracer AI logging loop produces exactly pydftracer's event count.

Mapping (see the stallwatch package docstring): each pydftracer complete
event is one region here (a BEGIN/END pair) with the same cat and name, and
each metadata event one mark ``<name>.start``/``<name>.end``. The ``.iter``
wait that ends a loop (StopIteration) is a region too, since the loop really
waited, but its END carries END_LOOP_EXHAUSTED: pydftracer records no event
for it, so it is not counted here. pydftracer's own test of this loop expects
75 trace lines with DFTracer's preload on; 8 of those are not AI events
(the count with ``ai.disable()``), so its AI events are 67, and 52/61/43/64
with the dataloader/device/compute/checkpoint categories disabled. The
``step`` marks are the wire form of the ``step`` argument (one per
``ai.update(step=)``) and are counted separately.
"""

from __future__ import annotations

import collections
import os

import pytest

from conftest import run_python

SCENARIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios", "ai_loop.py")

STEPS = 6
COMMON = {
    ("pipeline", "train"): 1,
    ("checkpoint", "checkpoint.init"): 1,
    ("checkpoint", "restart"): 1,
    ("checkpoint", "capture"): 1,
    ("dataloader", "fetch"): 3,
    ("dataloader", "fetch.iter"): STEPS,
    ("dataloader", "fetch.block"): STEPS,
    ("data", "item"): STEPS,
    ("compute", "step"): STEPS,
    ("data", "preprocess.collate"): STEPS,
    ("device", "transfer"): STEPS,
    ("compute", "compute"): STEPS,
    ("compute", "forward"): STEPS,
    ("compute", "backward"): STEPS,
}
EPOCH_REGIONS = {("pipeline", "epoch.iter"): 3, ("pipeline", "epoch.block"): 3}
EPOCH_MARKS = {("pipeline", "epoch.start"): 3, ("pipeline", "epoch.end"): 3}
DISABLED = {
    "dataloader": {("dataloader", "fetch"), ("dataloader", "fetch.iter"),
                   ("dataloader", "fetch.block")},
    "device": {("device", "transfer")},
    "compute": {("compute", "step"), ("compute", "compute"), ("compute", "forward"),
                ("compute", "backward")},
    "ckpt": {("checkpoint", "checkpoint.init"), ("checkpoint", "restart"),
             ("checkpoint", "capture")},
}
PYDFTRACER_AI_EVENTS = {None: 67, "all": 0, "dataloader": 52, "device": 61, "compute": 43,
                        "ckpt": 64, "comm": 67}


END_LOOP_EXHAUSTED = 1


def ai_records(run):
    """Counter of (cat, name) over regions and metadata marks; plus the step marks."""
    records = collections.Counter()
    steps = []
    open_regions = {}
    for e in run.events():
        if e.kind == "begin":
            open_regions[(e.pid, e.tid, e.region_id)] = (e.cat, e.name)
        elif e.kind == "end":
            key = open_regions.pop((e.pid, e.tid, e.region_id), None)
            if key is not None and e.value != END_LOOP_EXHAUSTED:
                records[key] += 1
        elif e.kind == "complete":
            records[(e.cat, e.name)] += 1
        elif e.kind == "mark" and e.name == "step":
            steps.append(e.value)
        elif e.kind == "mark":
            records[(e.cat, e.name)] += 1
    return records, steps


@pytest.mark.parametrize("metadata", [False, True], ids=["normal", "metadata"])
@pytest.mark.parametrize("disable", [None, "all", "dataloader", "device", "compute", "ckpt",
                                     "comm"])
def test_loop_matches_pydftracer_count(capture, tmp_path, metadata, disable):
    args = [str(tmp_path)] + (["--metadata"] if metadata else []) + (
        ["--disable", disable] if disable else [])
    run = run_python(open(SCENARIO).read(), capture, args=args)
    records, steps = ai_records(run)
    expected = collections.Counter(COMMON)
    expected.update(EPOCH_MARKS if metadata else EPOCH_REGIONS)
    if disable == "all":
        expected = collections.Counter()
    for key in DISABLED.get(disable, ()):
        del expected[key]
    assert records == expected
    assert sum(records.values()) == PYDFTRACER_AI_EVENTS[disable]
    assert steps == ([] if disable == "all" else [0, 1] * 3)


def test_loop_ending_waits_are_regions_marked_exhausted(capture, tmp_path):
    run = run_python(open(SCENARIO).read(), capture, args=[str(tmp_path)])
    begins = {(e.pid, e.tid, e.region_id): e.name for e in run.events() if e.kind == "begin"}
    exhausted = collections.Counter(
        begins.get((e.pid, e.tid, e.region_id)) for e in run.events()
        if e.kind == "end" and e.value == END_LOOP_EXHAUSTED)
    # One per loop: three epochs of fetch.iter, and the epoch loop itself.
    assert exhausted == {"fetch.iter": 3, "epoch.iter": 1}


def test_loop_with_stallwatch_disabled_sends_nothing(capture, tmp_path):
    run_python(open(SCENARIO).read(), capture, prelude=False, expect_finals=0,
               args=[str(tmp_path)], env={"STALLWATCH_ENABLE": "0"})
    capture.drain(0.3)
    assert capture.batches == []
