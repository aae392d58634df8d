"""CUDA-event spans without CUDA: the SpanResolver with duck-typed fake events.

A fake event completes when the fake host clock reaches the time the "device"
executed it; elapsed_time() reports device time, which runs at an offset the
resolver does not know. The resolver must place spans on the host clock from
an anchor (or, without one, from when it saw the start complete), never wait
on one slow span, stay bounded, and count what it could not resolve.
"""

from __future__ import annotations

from conftest import run_python
from stallwatch._device_spans import SpanResolver

MS = 1_000_000
T0 = 1_700_000_000 * 1_000_000_000
DEVICE_OFFSET_NS = 987_654_321  # device clock minus host clock; the resolver does not know it


class Clock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> int:
        return self.t


class FakeEvent:
    """Completes when the host clock reaches `done_at`; times itself on the device clock."""

    def __init__(self, clock: Clock, done_at: int, fail_timing: bool = False) -> None:
        self.clock = clock
        self.done_at = done_at
        self.fail_timing = fail_timing

    def query(self) -> bool:
        return self.clock.t >= self.done_at

    def elapsed_time(self, other: "FakeEvent") -> float:
        if not (self.query() and other.query()) or self.fail_timing or other.fail_timing:
            raise RuntimeError("event not ready")
        return ((other.done_at + DEVICE_OFFSET_NS) - (self.done_at + DEVICE_OFFSET_NS)) / 1e6


class Emitted:
    def __init__(self) -> None:
        self.spans = []

    def __call__(self, lane, cat_id, name_id, start_ns, dur_ns) -> int:
        self.spans.append((lane, name_id, start_ns, dur_ns))
        return 0


def resolver(clock, emitted, **kwargs) -> SpanResolver:
    return SpanResolver(emit=emitted, now_ns=clock, **kwargs)


def test_without_an_anchor_a_span_starts_when_its_start_was_seen():
    clock, emitted = Clock(), Emitted()
    r = resolver(clock, emitted)
    assert r.submit("forward", 0, 0x80000007, FakeEvent(clock, T0 + 1 * MS),
                    FakeEvent(clock, T0 + 5 * MS))
    assert r.poll_once() == 0
    clock.t = T0 + 2 * MS
    assert r.poll_once() == 0, "the end is still running on the device"
    clock.t = T0 + 6 * MS
    assert r.poll_once() == 1
    [(lane, _, start_ns, dur_ns)] = emitted.spans
    assert lane == 0x80000007
    assert start_ns == T0 + 2 * MS, "seen complete at the 2 ms poll: an upper bound"
    assert dur_ns == 4 * MS, "the duration is the device's own"
    assert r.pending() == 0


def test_an_anchor_places_spans_exactly_however_late_they_are_polled():
    clock, emitted = Clock(), Emitted()
    anchors = []

    def anchor_factory(device: int) -> FakeEvent:
        event = FakeEvent(clock, clock.t)  # an idle side stream runs it at once
        anchors.append((device, event))
        return event

    r = resolver(clock, emitted, anchor_factory=anchor_factory)
    clock.t = T0 + 100 * MS
    r.submit("backward", 1, 0x81000003, FakeEvent(clock, T0 + 101 * MS),
             FakeEvent(clock, T0 + 109 * MS))
    r.poll_once()
    assert [device for device, _ in anchors] == [1]
    clock.t = T0 + 500 * MS  # polled very late
    assert r.poll_once() == 1
    [(_, _, start_ns, dur_ns)] = emitted.spans
    assert start_ns == T0 + 101 * MS
    assert dur_ns == 8 * MS


def test_a_slow_span_does_not_hold_back_the_others():
    clock, emitted = Clock(), Emitted()
    r = resolver(clock, emitted)
    slow_start, slow_end = FakeEvent(clock, T0 + 1 * MS), FakeEvent(clock, T0 + 300 * MS)
    r.submit("step", 0, 0x80000001, slow_start, slow_end)
    r.submit("forward", 0, 0x80000002, FakeEvent(clock, T0 + 2 * MS),
             FakeEvent(clock, T0 + 3 * MS))
    clock.t = T0 + 4 * MS
    assert r.poll_once() == 1
    assert [s[0] for s in emitted.spans] == [0x80000002]
    for t in range(5, 300, 50):
        clock.t = T0 + t * MS
        r.poll_once()
    assert r.pending() == 1, "still waiting, never synchronizing"
    clock.t = T0 + 301 * MS
    assert r.poll_once() == 1
    assert [s[0] for s in emitted.spans] == [0x80000002, 0x80000001]
    assert emitted.spans[1][3] == 299 * MS


def test_the_queue_is_bounded_and_refusals_are_counted():
    clock, emitted = Clock(), Emitted()
    recycled = []
    r = resolver(clock, emitted, max_pending=2, recycle=recycled.append)
    events = [FakeEvent(clock, T0 + MS) for _ in range(6)]
    assert r.submit("a", 0, 0x80000000, events[0], events[1])
    assert r.submit("b", 0, 0x80000000, events[2], events[3])
    assert not r.submit("c", 0, 0x80000000, events[4], events[5])
    assert r.stats()["dropped"] == 1
    clock.t = T0 + 2 * MS
    assert r.poll_once() == 2
    assert len(recycled) == 4, "resolved events go back to the pool"


def test_stop_resolves_what_completes_and_drops_the_rest():
    clock, emitted = Clock(), Emitted()
    r = resolver(clock, emitted)
    r.submit("done", 0, 0x80000000, FakeEvent(clock, T0), FakeEvent(clock, T0))
    r.submit("never", 0, 0x80000000, FakeEvent(clock, T0), FakeEvent(clock, T0 + 10**15))
    r.stop(timeout_s=0.05)
    assert len(emitted.spans) == 1
    stats = r.stats()
    assert stats["resolved"] == 1
    assert stats["dropped"] == 1
    assert stats["pending"] == 0


def test_a_pair_that_cannot_be_timed_is_counted_not_raised():
    clock, emitted = Clock(), Emitted()
    r = resolver(clock, emitted)
    r.submit("broken", 0, 0x80000000, FakeEvent(clock, T0, fail_timing=True),
             FakeEvent(clock, T0))
    assert r.poll_once() == 1
    assert emitted.spans == []
    assert r.stats()["failed"] == 1


def test_the_resolver_thread_sends_gpu_spans_on_their_lanes(capture):
    run = run_python("""
        import threading
        from stallwatch import _agent
        from stallwatch._device_spans import SpanResolver

        class Event:
            def __init__(self, done_at):
                self.done_at = done_at
            def query(self):
                return _agent.now_ns() >= self.done_at
            def elapsed_time(self, other):
                return (other.done_at - self.done_at) / 1e6

        resolver = SpanResolver()
        resolver.start()
        now = _agent.now_ns()
        lane = _agent.device_lane(0, 7)
        resolver.submit("forward", 0, lane, Event(now + 5_000_000), Event(now + 25_000_000))
        resolver.submit("step", 0, lane, Event(now + 30_000_000), Event(now + 40_000_000))
        resolver.stop(timeout_s=5)
        print(lane, resolver.stats()["resolved"])
    """, capture)
    lane, resolved = map(int, run.stdout.split())
    assert resolved == 2
    spans = [e for e in run.events() if e.cat == "gpu"]
    assert [(e.kind, e.name, e.tid) for e in spans] == [("complete", "forward", lane),
                                                         ("complete", "step", lane)]
    assert [e.dur_ns for e in spans] == [20_000_000, 10_000_000]
