# SPDX-License-Identifier: MIT
"""stallwatch._native: the C Region type and the per-thread region stack."""

from __future__ import annotations

import os
import threading

import pytest

from conftest import run_python

import stallwatch
from stallwatch import _native


def test_extension_is_stable_abi_and_loads_agent_from_package():
    assert _native.__file__.endswith("_native.abi3.so")
    assert stallwatch.load_error is None


def test_enter_exit_are_c_methods_also_on_ai_nodes():
    assert type(_native.Region.__enter__).__name__ == "method_descriptor"
    assert type(_native.Region.__exit__).__name__ == "method_descriptor"
    node_type = type(stallwatch.ai.compute.forward)
    assert node_type.__enter__ is _native.Region.__enter__
    assert node_type.__exit__ is _native.Region.__exit__


def test_reentrant_nesting_uses_one_stack_entry_per_enter():
    region = _native.Region("compute", "forward")
    base = _native.stack_depth()
    with region as entered:
        assert entered is region
        with region:
            assert _native.stack_depth() == base + 2
            assert region.active()
        assert region.active()
    assert not region.active()
    assert _native.stack_depth() == base


def test_exception_inside_with_closes_region_and_propagates():
    region = _native.Region("compute", "backward")
    with pytest.raises(KeyError):
        with region:
            raise KeyError("boom")
    assert not region.active()


def test_exit_without_enter_is_a_counted_no_op():
    region = _native.Region("compute", "step")
    before = _native.stats()["python_unmatched_exits"]
    assert region.__exit__(None, None, None) is None
    assert _native.stats()["python_unmatched_exits"] == before + 1


def test_disabled_region_records_nothing_and_can_be_reenabled():
    region = _native.Region("data", "item", enabled=False)
    with region:
        assert not region.active()
    region.enabled = True
    with region:
        assert region.active()


def test_threads_have_independent_stacks():
    region = _native.Region("compute", "forward")
    barrier = threading.Barrier(4)
    seen = []

    def worker():
        with region:
            barrier.wait()
            seen.append((region.active(), _native.stack_depth()))
            barrier.wait()
        seen.append((region.active(), _native.stack_depth()))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    with region:
        pass
    for t in threads:
        t.join()
    assert sorted(seen) == [(False, 0)] * 4 + [(True, 1)] * 4


def test_out_of_order_exit_closes_the_right_entry():
    outer = _native.Region("pipeline", "train")
    inner = _native.Region("data", "item")
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)
    assert inner.active() and not outer.active()
    inner.__exit__(None, None, None)
    assert not inner.active()


def test_stack_overflow_is_refused_and_counted_not_raised():
    region = _native.Region("compute", "forward")
    before = _native.stats()["python_stack_overflows"]
    for _ in range(_native.MAX_DEPTH + 5):
        region.__enter__()
    assert _native.stack_depth() == _native.MAX_DEPTH
    assert _native.stats()["python_stack_overflows"] >= before + 5
    for _ in range(_native.MAX_DEPTH + 5):
        region.__exit__(None, None, None)
    assert _native.stack_depth() == 0


def test_forked_child_starts_with_an_empty_stack():
    region = _native.Region("pipeline", "train")
    with region:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.write(write, bytes([_native.stack_depth()]))
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(read, 1) == b"\x00"
        assert region.active()


def test_region_sends_begin_end_pair_on_one_thread(capture):
    run = run_python("""
        from stallwatch import Region
        with Region("compute", "forward"):
            pass
    """, capture)
    events = [e for e in run.events() if e.kind in ("begin", "end")]
    assert [(e.kind, e.cat, e.name) for e in events][0] == ("begin", "compute", "forward")
    assert [e.kind for e in events] == ["begin", "end"]
    assert events[0].region_id == events[1].region_id
    assert events[0].tid == events[1].tid == events[0].pid
    assert events[1].ts_ns >= events[0].ts_ns


def test_missing_extension_degrades_to_no_op(capture):
    run = run_python("""
        import sys
        sys.modules["stallwatch._native"] = None
        import stallwatch
        from stallwatch import ai
        with ai.compute.forward:
            pass
        for _ in ai.dataloader.fetch.iter(range(3)):
            pass
        ai.update(step=1)
        assert stallwatch.load_error
        assert stallwatch.start() == stallwatch.DISABLED
        print("ok")
    """, capture, prelude=False, expect_finals=0)
    assert run.stdout.strip() == "ok"
    capture.drain(0.3)
    assert capture.batches == []
