# SPDX-License-Identifier: MIT
"""CUDA-event spans without a GPU: the SpanResolver and CudaEventSpans against
fake_cuda_runtime.FakeCuda, a model of ``torch.cuda`` that keeps the runtime's
rules (calls act on the calling thread's current device and create a context
there; an event query during a global-mode graph capture invalidates it;
events recorded in a capture raise when queried).

The resolver must place spans on the host clock from an anchor (or, without
one, from when it saw the start complete), open each span's region as soon as
its start completed, never wait on one slow span, stay bounded, evict what can
never resolve, count what it could not resolve, leave GPU 0 alone and graph
captures intact.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from conftest import run_python
from fake_cuda_runtime import Device, FakeCuda
from stallwatch._device_spans import SpanResolver

MS = 1_000_000
T0 = 1_700_000_000 * 1_000_000_000


class Clock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> int:
        return self.t


class Regions:
    """Records begin_on / end_on calls: (lane, name_id, start_ns, end_ns or None)."""

    def __init__(self) -> None:
        self.opened = []
        self.ends = {}

    def begin(self, lane, cat_id, name_id, start_ns) -> int:
        self.opened.append((lane, name_id, start_ns))
        return len(self.opened)

    def end(self, token, end_ns) -> int:
        assert token not in self.ends, "a region closed twice"
        self.ends[token] = end_ns
        return 0

    @property
    def spans(self):
        return [(lane, name, start, self.ends.get(i + 1))
                for i, (lane, name, start) in enumerate(self.opened)]


def recorded(cuda: FakeCuda, stream, done_at: int):
    """An event recorded on `stream` behind work that finishes at `done_at`."""
    stream.busy_until = done_at
    event = cuda.Event(enable_timing=True)
    event.record(stream)
    return event


def resolver(clock, regions, cuda=None, **kwargs) -> SpanResolver:
    if cuda is not None:
        kwargs.setdefault("device_guard", cuda.device)
    return SpanResolver(emit_begin=regions.begin, emit_end=regions.end, now_ns=clock, **kwargs)


def test_without_an_anchor_a_span_opens_when_its_start_was_seen():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    r = resolver(clock, regions, cuda)
    assert r.submit("forward", 0, 0x80000007, recorded(cuda, stream, T0 + 1 * MS),
                    recorded(cuda, stream, T0 + 5 * MS))
    assert r.poll_once() == 0
    assert regions.spans == []
    clock.t = T0 + 2 * MS
    assert r.poll_once() == 0, "the end is still running on the device"
    [(lane, _, start_ns, end_ns)] = regions.spans
    assert (lane, start_ns, end_ns) == (0x80000007, T0 + 2 * MS, None), \
        "the region opens when the start was seen complete: an upper bound"
    clock.t = T0 + 6 * MS
    assert r.poll_once() == 1
    [(_, _, start_ns, end_ns)] = regions.spans
    assert end_ns - start_ns == 4 * MS, "the duration is the device's own"
    assert r.pending() == 0


def test_a_span_longer_than_the_lateness_is_open_while_it_runs():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    r = resolver(clock, regions, cuda)
    r.submit("backward", 0, 0x80000007, recorded(cuda, stream, T0 + 1 * MS),
             recorded(cuda, stream, T0 + 5001 * MS))
    for t in range(2, 5000, 250):
        clock.t = T0 + t * MS
        r.poll_once()
        [(_, _, start_ns, end_ns)] = regions.spans
        assert end_ns is None and start_ns == T0 + 2 * MS, "open from its start on"
    clock.t = T0 + 5002 * MS
    assert r.poll_once() == 1
    [(_, _, start_ns, end_ns)] = regions.spans
    assert end_ns - start_ns == 5000 * MS


def test_an_anchor_places_spans_exactly_however_late_they_are_polled():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    anchors = []

    def anchor_factory(device: int):
        side = cuda.Stream(device=device)  # idle: an event there completes at once
        event = cuda.Event(enable_timing=True)
        event.record(side)
        anchors.append((device, cuda.current_device()))
        return event

    r = resolver(clock, regions, cuda, anchor_factory=anchor_factory)
    clock.t = T0 + 100 * MS
    stream = cuda.current_stream(1)
    r.submit("backward", 1, 0x81000003, recorded(cuda, stream, T0 + 101 * MS),
             recorded(cuda, stream, T0 + 109 * MS))
    r.poll_once()
    assert anchors == [(1, 1)], "one anchor, made with its device current"
    clock.t = T0 + 500 * MS  # polled very late
    assert r.poll_once() == 1
    [(_, _, start_ns, end_ns)] = regions.spans
    assert start_ns == T0 + 101 * MS
    assert end_ns == T0 + 109 * MS
    assert r.stats()["open_delay_max_ns"] == 399 * MS, "how late the region opened"


def test_a_slow_span_does_not_hold_back_the_others():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    slow, fast = cuda.Stream(device=0), cuda.Stream(device=0)
    r = resolver(clock, regions, cuda)
    r.submit("step", 0, 0x80000001, recorded(cuda, slow, T0 + 1 * MS),
             recorded(cuda, slow, T0 + 300 * MS))
    r.submit("forward", 0, 0x80000002, recorded(cuda, fast, T0 + 2 * MS),
             recorded(cuda, fast, T0 + 3 * MS))
    clock.t = T0 + 4 * MS
    assert r.poll_once() == 1
    for t in range(5, 300, 50):
        clock.t = T0 + t * MS
        r.poll_once()
    assert r.pending() == 1, "still waiting, never synchronizing"
    clock.t = T0 + 301 * MS
    assert r.poll_once() == 1
    assert sorted(lane for lane, *_ in regions.spans) == [0x80000001, 0x80000002]
    slow_span = [s for s in regions.spans if s[0] == 0x80000001][0]
    assert slow_span[3] - slow_span[2] == 299 * MS


def test_a_host_far_ahead_of_the_device_costs_a_poll_one_query_per_stream():
    # A launch-bound loop queues hundreds of spans; each query holds the GIL the
    # training thread needs. On a real H200 querying them all every 2 ms cost a
    # 2 ms step 37 %; events of one stream complete in order, so the first
    # pending one answers for the rest of its stream.
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream, other = cuda.current_stream(0), cuda.Stream(device=0)
    r = resolver(clock, regions, cuda, max_pending=2048)
    for i in range(500):
        r.submit("forward", 0, 0x80000001, recorded(cuda, stream, T0 + (2 * i + 1) * MS),
                 recorded(cuda, stream, T0 + (2 * i + 2) * MS))
    r.submit("backward", 0, 0x80000002, recorded(cuda, other, T0 + 1 * MS),
             recorded(cuda, other, T0 + 3 * MS))
    clock.t = T0
    cuda.queries = 0
    assert r.poll_once() == 0
    assert cuda.queries == 2, "one pending start per stream, not 501"
    clock.t = T0 + 10 * MS
    cuda.queries = 0
    assert r.poll_once() == 6, "five forwards and the backward completed"
    assert cuda.queries <= 4 * 6 + 2, "start, end and elapsed_time per resolved span, and one pending"
    clock.t = T0 + 1000 * MS
    assert r.poll_once() == 495
    assert r.pending() == 0
    starts = [start for lane, _, start, _ in regions.spans if lane == 0x80000001]
    assert starts == sorted(starts) and len(starts) == 500


def test_the_queue_is_bounded_and_refusals_are_counted():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    recycled = []
    r = resolver(clock, regions, cuda, max_pending=2, recycle=recycled.append)
    events = [recorded(cuda, stream, T0 + MS) for _ in range(6)]
    assert r.submit("a", 0, 0x80000000, events[0], events[1])
    assert r.submit("b", 0, 0x80000000, events[2], events[3])
    assert not r.submit("c", 0, 0x80000000, events[4], events[5])
    assert r.stats()["dropped"] == 1
    clock.t = T0 + 2 * MS
    assert r.poll_once() == 2
    assert len(recycled) == 4, "resolved events go back to the pool"


def test_stop_resolves_what_completes_and_drops_the_rest_closing_its_region():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    r = resolver(clock, regions, cuda)
    r.submit("done", 0, 0x80000000, recorded(cuda, stream, T0), recorded(cuda, stream, T0))
    r.submit("never", 0, 0x80000000, recorded(cuda, stream, T0),
             recorded(cuda, stream, T0 + 10**15))
    r.stop(timeout_s=0.05)
    assert len(regions.opened) == 2
    assert len(regions.ends) == 2, "the region of the dropped span is closed too"
    stats = r.stats()
    assert stats["resolved"] == 1
    assert stats["dropped"] == 1
    assert stats["pending"] == 0


def test_a_pair_that_cannot_be_timed_is_counted_not_raised():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    r = resolver(clock, regions, cuda)
    # Events of two devices: elapsed_time refuses them.
    r.submit("broken", 0, 0x80000000, recorded(cuda, cuda.current_stream(0), T0),
             recorded(cuda, cuda.current_stream(1), T0))
    assert r.poll_once() == 1
    assert r.stats()["failed"] == 1
    assert len(regions.ends) == 1, "its region is still closed"


def test_the_resolver_thread_queries_events_on_their_own_device():
    # The model lives on GPU 1 of a two-GPU node; nothing may touch GPU 0.
    cuda = FakeCuda(time.monotonic_ns)
    cuda.set_device(1)
    regions = Regions()
    r = SpanResolver(emit_begin=regions.begin, emit_end=regions.end, now_ns=time.monotonic_ns,
                     device_guard=cuda.device)
    r.start()
    stream = cuda.current_stream()
    for _ in range(3):
        start = cuda.Event(enable_timing=True)
        start.record(stream)
        cuda.launch(stream, 5 * MS)
        end = cuda.Event(enable_timing=True)
        end.record(stream)
        r.submit("forward", 1, 0x81000007, start, end)
    deadline = time.monotonic() + 5
    while r.stats()["resolved"] < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    r.stop()
    assert r.stats()["resolved"] == 3
    assert cuda.contexts == {1}, "the side thread created a CUDA context on GPU 0"


def test_a_blocked_pass_shows_in_the_longest_pass_and_gap():
    # What stalls the thread tells the cause of a region that opened late: a
    # pass as long as the gap (a call in it blocked) or only a gap (the thread
    # could not run).
    cuda = FakeCuda(time.monotonic_ns)
    regions = Regions()
    r = SpanResolver(emit_begin=regions.begin, emit_end=regions.end, now_ns=time.monotonic_ns,
                     device_guard=cuda.device)
    stream = cuda.current_stream()
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record(stream)
    end.record(stream)
    query = start.query

    def blocking_query() -> bool:
        time.sleep(0.3)
        start.query = query
        return query()

    start.query = blocking_query
    r.submit("forward", 0, 0x80000007, start, end)
    r.start()
    deadline = time.monotonic() + 5
    while r.stats()["resolved"] < 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.02)
    r.stop()
    stats = r.stats()
    assert stats["resolved"] == 1
    assert stats["pass_max_ns"] >= 300 * MS
    assert stats["poll_gap_max_ns"] >= stats["pass_max_ns"]


def test_spans_recorded_in_a_capture_are_evicted_not_left_to_fill_the_queue():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    r = resolver(clock, regions, cuda, max_pending=2)
    for _ in range(5):
        with cuda.capture(stream):
            start, end = recorded(cuda, stream, T0), recorded(cuda, stream, T0 + MS)
        assert r.submit("forward", 0, 0x80000007, start, end), "the queue is full"
        clock.t += 2 * MS
        r.poll_once()
    stats = r.stats()
    assert stats["unresolvable"] == 5
    assert stats["pending"] == 0
    assert stats["dropped"] == 0


def load_cuda_module():
    from stallwatch.torch import _cuda
    return _cuda


def event_spans(cuda: FakeCuda, regions: Regions):
    spans = load_cuda_module().CudaEventSpans(cuda=cuda)
    spans.resolver._emit_begin = regions.begin
    spans.resolver._emit_end = regions.end
    return spans


def test_no_event_is_queried_while_a_cuda_graph_is_captured():
    from stallwatch.torch._state import TorchState

    cuda = FakeCuda(time.monotonic_ns)
    regions = Regions()
    state = TorchState()
    state.gpu_spans = spans = event_spans(cuda, regions)
    load_cuda_module().guard_captures(state, cuda.CUDAGraph)
    stream = cuda.current_stream()
    # A span still running on the device while the graph is captured.
    token = spans.enter()
    cuda.launch(stream, 300 * MS)
    spans.exit(token, "forward")
    time.sleep(0.02)
    graph = cuda.CUDAGraph()
    graph.capture_begin()
    try:
        assert spans.enter() is None, "no span is recorded into the graph"
        time.sleep(0.1)  # the resolver polls every 2 ms
    finally:
        graph.capture_end()
    assert cuda.invalidated_captures == 0, "a query from the side thread broke the capture"
    deadline = time.monotonic() + 5
    while spans.stats()["resolved"] < 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    spans.stop()
    stats = spans.stats()
    assert stats["resolved"] == 1
    assert stats["skipped_during_capture"] == 1


def test_a_capture_not_made_through_cudagraph_stops_queries_once_noticed():
    cuda = FakeCuda(time.monotonic_ns)
    regions = Regions()
    spans = event_spans(cuda, regions)
    token = spans.enter()
    cuda.launch(cuda.current_stream(), 200 * MS)
    spans.exit(token, "forward")
    time.sleep(0.02)
    with cuda.capture(cuda.Stream(device=0)):
        assert spans.enter() is None, "no span is recorded into the graph"
        time.sleep(0.1)
    assert cuda.invalidated_captures == 0, "a query from the side thread broke the capture"
    deadline = time.monotonic() + 5
    while spans.stats()["resolved"] < 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    spans.stop()
    assert spans.stats()["resolved"] == 1, "queries go on once the capture is over"


def test_spans_go_on_the_stream_of_the_device_the_work_runs_on():
    # model.to("cuda:1") without set_device: the current device stays 0.
    cuda = FakeCuda(time.monotonic_ns)
    regions = Regions()
    spans = event_spans(cuda, regions)
    token = spans.enter(Device(1))
    cuda.launch(cuda.current_stream(1), 50 * MS)
    spans.exit(token, "forward")
    spans.stop()
    [(lane, _, start_ns, end_ns)] = regions.spans
    assert lane == 0x80000000 | 1 << 24 | 7, "the span is on device 1's stream"
    assert abs(end_ns - start_ns - 50 * MS) < MS, "and measures the work that ran there"
    assert 0 not in cuda.contexts


def test_a_forked_child_neither_inherits_spans_nor_hangs_on_the_parents_lock():
    clock, regions = Clock(), Regions()
    cuda = FakeCuda(clock)
    stream = cuda.current_stream(0)
    r = resolver(clock, regions, cuda)
    r.submit("forward", 0, 0x80000000, recorded(cuda, stream, T0), recorded(cuda, stream, T0))
    with r._lock:  # the resolver thread was inside its lock when the program forked
        pid = os.fork()
        if pid == 0:
            signal.alarm(5)
            ok = r.pending() == 0 and r.submit("child", 0, 0x80000000,
                                                recorded(cuda, stream, T0),
                                                recorded(cuda, stream, T0))
            os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status), "the child hung on the parent's lock"
    assert os.WEXITSTATUS(status) == 0
    assert r.pending() == 1


def test_the_resolver_thread_sends_gpu_regions_on_their_lanes(capture):
    run = run_python("""
        import time
        from stallwatch import _agent
        from stallwatch._device_spans import SpanResolver
        from fake_cuda_runtime import FakeCuda

        cuda = FakeCuda(_agent.now_ns)
        resolver = SpanResolver(device_guard=cuda.device)
        resolver.start()
        stream = cuda.current_stream(0)
        lane = _agent.device_lane(0, stream.stream_id)
        for name, work_ms in (("forward", 20), ("step", 10)):
            start = cuda.Event(enable_timing=True)
            start.record(stream)
            cuda.launch(stream, work_ms * 1_000_000)
            end = cuda.Event(enable_timing=True)
            end.record(stream)
            resolver.submit(name, 0, lane, start, end)
        resolver.stop(timeout_s=5)
        print(lane, resolver.stats()["resolved"])
    """, capture)
    lane, resolved = map(int, run.stdout.split())
    assert resolved == 2
    spans = [e for e in run.events() if e.tid == lane]
    assert [(e.kind, e.cat, e.name) for e in spans if e.kind == "begin"] == [
        ("begin", "gpu", "forward"), ("begin", "gpu", "step")]
    ends = {e.region_id: e.ts_ns for e in spans if e.kind == "end"}
    durations = [ends[e.region_id] - e.ts_ns for e in spans if e.kind == "begin"]
    assert [round(d / MS) for d in durations] == [20, 10]
