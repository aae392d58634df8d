# SPDX-License-Identifier: MIT
"""`from stallwatch import ai`: every API style emits exactly the expected events.

Each test runs a snippet in a fresh process whose agent sends to a capture
socket, then compares (kind, cat, name) of what arrived. Regions are checked
by their BEGIN (or COMPLETE) event; every BEGIN must have its END.
"""

from __future__ import annotations

import collections

import pytest

from conftest import run_python

import stallwatch
from stallwatch import ai


END_LOOP_EXHAUSTED = 1


def regions(run, exhausted=False):
    """(cat, name) of each region, in order, after checking BEGIN/END pairing.

    The `.iter` waits that ended their loop (END value END_LOOP_EXHAUSTED) are
    left out unless `exhausted`: pydftracer records no event for them.
    """
    open_regions = {}
    out = []
    for e in run.events():
        if e.kind == "begin":
            open_regions[(e.pid, e.tid, e.region_id)] = (e, len(out))
            out.append((e.cat, e.name))
        elif e.kind == "end":
            begin, index = open_regions.pop((e.pid, e.tid, e.region_id))
            assert e.ts_ns >= begin.ts_ns
            if e.value == END_LOOP_EXHAUSTED and not exhausted:
                out[index] = None
        elif e.kind == "complete":
            assert e.dur_ns >= 0
            out.append((e.cat, e.name))
    assert open_regions == {}, f"regions never closed: {open_regions}"
    return [r for r in out if r is not None]


def marks(run):
    return [(e.cat, e.name, e.value) for e in run.events() if e.kind in ("mark", "counter")]


def test_context_manager_on_event_category_and_root(capture):
    run = run_python("""
        from stallwatch import ai
        with ai.compute.forward:
            pass
        with ai.compute:
            pass
        with ai.comm.all_reduce:
            pass
        with ai:
            pass
    """, capture)
    assert regions(run) == [("compute", "forward"), ("compute", "compute"),
                            ("comm", "all_reduce"), ("ai_root", "ai_root")]


def test_tree_names_match_pydftracer():
    expected = {
        "compute": ["forward", "backward", "step"],
        "data": ["preprocess", "item"],
        "dataloader": ["fetch"],
        "comm": ["send", "receive", "barrier", "bcast", "reduce", "all_reduce", "gather",
                 "all_gather", "scatter", "reduce_scatter", "all_to_all"],
        "device": ["transfer"],
        "checkpoint": ["capture", "restart"],
        "pipeline": ["epoch", "train", "evaluate", "test"],
    }
    assert (ai.cat, ai.name) == ("ai_root", "ai_root")
    for category, children in expected.items():
        node = getattr(ai, category)
        assert (node.cat, node.name) == (category, category)
        for child in children:
            assert (getattr(node, child).cat, getattr(node, child).name) == (category, child)


def test_decorator_with_and_without_arguments(capture):
    run = run_python("""
        from stallwatch import ai

        @ai.compute.forward
        def forward(x):
            return x + 1

        @ai.compute.backward(epoch=1, step=2)
        def backward(x):
            return x * 2

        @ai.compute.step(enable=False)
        def step():
            return "skipped"

        class Reader:
            @ai.data.item
            def read(self, i):
                return i

        assert forward(1) == 2 and backward(3) == 6 and step() == "skipped"
        assert Reader().read(7) == 7
        assert forward.__name__ == "forward"
    """, capture)
    assert regions(run) == [("compute", "forward"), ("compute", "backward"), ("data", "item")]


def test_decorator_raising_closes_region(capture):
    run = run_python("""
        from stallwatch import ai

        @ai.compute.forward
        def boom():
            raise ValueError("x")

        try:
            boom()
        except ValueError:
            pass
    """, capture)
    assert regions(run) == [("compute", "forward")]


def test_start_stop_and_metadata_marks(capture):
    run = run_python("""
        from stallwatch import ai
        ai.compute.step.start()
        ai.compute.step.stop()
        for _ in range(2):
            ai.pipeline.epoch.start(metadata=True)
            ai.pipeline.epoch.stop(metadata=True)
        ai.pipeline.train.start(metadata=True)
    """, capture)
    assert regions(run) == [("compute", "step")]
    assert marks(run) == [("pipeline", "epoch.start", 0), ("pipeline", "epoch.end", 0),
                          ("pipeline", "epoch.start", 1), ("pipeline", "epoch.end", 1),
                          ("pipeline", "train.start", 0)]


def test_iter_records_waits_and_blocks_with_count(capture):
    run = run_python("""
        from stallwatch import ai
        seen = []
        for x in ai.dataloader.fetch.iter(iter(range(3))):
            seen.append(x)
        assert seen == [0, 1, 2]
        assert ai.dataloader.fetch.arguments["count"] == 3
    """, capture)
    # Each wait is an open region while the loop waits (a stuck loader shows
    # as stuck); the fourth wait ended the loop and is marked exhausted.
    kinds = [(e.kind, e.name) for e in run.events() if e.kind in ("begin", "complete")]
    assert kinds == [("begin", "fetch.iter"), ("begin", "fetch.block")] * 3 + [
        ("begin", "fetch.iter")]
    assert regions(run) == [("dataloader", "fetch.iter"), ("dataloader", "fetch.block")] * 3
    assert regions(run, exhausted=True)[-1] == ("dataloader", "fetch.iter")


def test_iter_options_and_early_break(capture):
    run = run_python("""
        from stallwatch import ai
        for _ in ai.data.preprocess.iter(range(2), include_block=False):
            pass
        for _ in ai.data.preprocess.iter(range(2), include_iter=False, block_name="chunk"):
            pass
        for x in ai.pipeline.epoch.iter(range(10), iter_name="wait"):
            if x == 1:
                break
    """, capture)
    assert regions(run) == [("data", "preprocess.iter"), ("data", "preprocess.iter"),
                            ("data", "chunk"), ("data", "chunk"),
                            ("pipeline", "wait"), ("pipeline", "epoch.block"),
                            ("pipeline", "wait"), ("pipeline", "epoch.block")]


def test_derive_is_cached_and_named_after_parent():
    collate = ai.data.preprocess.derive("collate")
    assert collate is ai.data.preprocess.derive("collate")
    assert (collate.cat, collate.name) == ("data", "preprocess.collate")
    assert ai.data.preprocess.derive(name="collate") is collate


def test_init_hook_and_derived_decorator(capture):
    run = run_python("""
        from stallwatch import ai

        class Checkpoint:
            @ai.checkpoint.init
            def __init__(self):
                self.ready = True

        @ai.data.preprocess.derive(name="collate")
        def collate(batch):
            return batch

        assert Checkpoint().ready
        collate([1])
        with ai.data.item.init():
            pass
    """, capture)
    assert regions(run) == [("checkpoint", "checkpoint.init"), ("data", "preprocess.collate"),
                            ("data", "item.init")]


def test_update_writes_step_marks_and_batch_size_once_per_call(capture):
    run = run_python("""
        from stallwatch import ai
        ai.update(step=5, epoch=1)
        ai.compute.update(step=6)
        ai.update(args={"batch_size": 32})
        ai.comm.disable()
        ai.comm.update(step=99)
        ai.update(epoch=2)
    """, capture)
    assert marks(run) == [("pipeline", "step", 5), ("pipeline", "step", 6),
                          ("pipeline", "batch_size", 32)]


def test_update_is_sticky_on_node_and_subtree():
    fresh = stallwatch.AI()
    fresh.compute.update(epoch=2, image_idx=4, args={"lr": 0.1})
    assert fresh.compute.forward.arguments == {"epoch": 2, "image_idx": 4, "lr": 0.1}
    assert fresh.compute.arguments["epoch"] == 2
    assert "epoch" not in fresh.data.item.arguments
    late = fresh.compute.forward.derive("late")
    assert late.arguments["epoch"] == 2
    fresh.update(step=3)
    assert late.arguments["step"] == 3 and fresh.data.item.arguments["step"] == 3
    fresh.compute.disable()
    fresh.update(step=4)
    assert fresh.compute.forward.arguments["step"] == 3
    assert fresh.data.item.arguments["step"] == 4


def test_enable_disable_are_recursive(capture):
    run = run_python("""
        from stallwatch import ai
        collate = ai.data.preprocess.derive("collate")
        ai.data.disable()
        assert not ai.data.item.enabled and not collate.enabled
        with ai.data.item, collate, ai.data:
            pass
        ai.disable()
        with ai.compute.forward:
            pass
        ai.enable()
        assert collate.enabled and ai.comm.all_to_all.enabled
        with collate:
            pass
        with ai.comm.all_reduce(enable=False):
            pass
    """, capture)
    assert regions(run) == [("data", "preprocess.collate")]


def test_disable_while_open_still_closes(capture):
    run = run_python("""
        from stallwatch import ai
        with ai.compute.forward:
            ai.compute.disable()
        ai.compute.enable()
    """, capture)
    assert regions(run) == [("compute", "forward")]


def test_threads_and_reentry_pair_every_region(capture):
    run = run_python("""
        import threading
        from stallwatch import ai

        def work():
            for _ in range(200):
                with ai.compute.forward:
                    with ai.compute.forward:
                        pass

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    """, capture)
    events = [e for e in run.events() if e.kind in ("begin", "end")]
    assert collections.Counter(e.kind for e in events) == {"begin": 1600, "end": 1600}
    assert len({e.tid for e in events}) == 4
    assert regions(run) == [("compute", "forward")] * 1600


def test_generator_suspended_inside_region(capture):
    run = run_python("""
        from stallwatch import ai

        def items():
            for i in range(2):
                with ai.data.item:
                    yield i

        for _ in items():
            with ai.compute.forward:
                pass
    """, capture)
    assert collections.Counter(regions(run)) == {("data", "item"): 2, ("compute", "forward"): 2}


def test_stallwatch_enable_0_records_nothing_and_raises_nothing(capture):
    run = run_python("""
        import stallwatch
        from stallwatch import ai
        with ai.compute.forward:
            pass
        for _ in ai.dataloader.fetch.iter(range(3)):
            ai.update(step=1)
        ai.pipeline.epoch.start(metadata=True)
        assert not stallwatch.is_enabled()
        print(stallwatch.start())
    """, capture, prelude=False, expect_finals=0, env={"STALLWATCH_ENABLE": "0"})
    assert run.stdout.split() == [str(stallwatch.DISABLED)]
    capture.drain(0.3)
    assert capture.batches == []


@pytest.mark.parametrize("style", ["with", "decorator"])
def test_region_cost_with_absent_collector_stays_small(style):
    import time

    def body():
        return None

    traced = ai.compute.forward(body)
    n = 20000
    start = time.perf_counter()
    if style == "with":
        for _ in range(n):
            with ai.compute.forward:
                pass
    else:
        for _ in range(n):
            traced()
    per_region = (time.perf_counter() - start) / n
    assert per_region < 20e-6, f"{per_region * 1e9:.0f} ns per region"
