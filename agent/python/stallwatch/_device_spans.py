"""Device spans from pairs of device events, resolved off the training thread.

Events recorded around a step's device work (``stallwatch.torch`` records
``torch.cuda.Event`` pairs on the current stream) complete on the device
asynchronously. :class:`SpanResolver` owns one side thread that polls the
pending pairs with ``query()`` -- it never synchronizes an event, a stream or
a device -- and turns each completed pair into a COMPLETE event in cat
``gpu`` (the collector's DEVICE_BUSY) on the lane of its device and stream.

Events are duck-typed: anything with ``query() -> bool`` and
``elapsed_time(other) -> milliseconds`` works, which is how the tests drive it
without a GPU.

Timestamps. ``elapsed_time`` gives only durations between two events of one
device, so start times need an anchor on the host clock:

* with an ``anchor_factory``, the resolver records an anchor event on an idle
  side stream of the device and polls it tightly; the host time at which it
  completed (bracketed by the last poll that saw it pending) anchors the
  device's timeline, and a span starts at
  ``anchor_ns + anchor.elapsed_time(start)``. Anchors are renewed every
  ``anchor_interval_s`` so that drift between the GPU's and the host's clocks
  stays small;
* without one (or before the first), a span starts at the host time the
  resolver first saw its start event complete: late by at most the poll
  interval.

Either way the duration is ``start.elapsed_time(end)``. Bounded: at most
``max_pending`` spans wait; further ones are refused and counted as dropped,
and :meth:`SpanResolver.stop` drops (and counts) those still incomplete at
its deadline. Nothing here raises into the caller of :meth:`submit`.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Optional

from stallwatch import _agent

Emit = Callable[[int, int, int, int, int], Any]

GPU_CAT = "gpu"
_CALIBRATION_LIMIT_NS = 20_000_000
_CALIBRATION_RETRY_NS = 1_000_000_000


class _Span:
    __slots__ = ("name_id", "device", "lane", "start", "end", "seen_start_ns")

    def __init__(self, name_id: int, device: int, lane: int, start: Any, end: Any) -> None:
        self.name_id = name_id
        self.device = device
        self.lane = lane
        self.start = start
        self.end = end
        self.seen_start_ns: Optional[int] = None


class _Anchor:
    __slots__ = ("event", "host_ns", "taken_ns", "bracket_ns")

    def __init__(self, event: Any, host_ns: int, taken_ns: int, bracket_ns: int) -> None:
        self.event = event
        self.host_ns = host_ns
        self.taken_ns = taken_ns
        self.bracket_ns = bracket_ns


def _completed(event: Any) -> bool:
    try:
        return bool(event.query())
    except Exception:
        return False


class SpanResolver:
    """Resolves (start, end) device-event pairs into ``gpu`` complete events.

    `emit(lane, cat_id, name_id, start_ns, dur_ns)` records one span (default:
    the agent's ``complete_on``); `now_ns()` is the agent's clock;
    `anchor_factory(device)` returns a freshly recorded event on an idle
    stream of `device` (or None); `recycle(event)` takes events back once
    resolved. :meth:`submit` may be called from any thread; the resolver's own
    thread does all polling.
    """

    def __init__(self, emit: Optional[Emit] = None, now_ns: Callable[[], int] = _agent.now_ns,
                 poll_interval_s: float = 0.002, max_pending: int = 1024,
                 anchor_factory: Optional[Callable[[int], Any]] = None,
                 anchor_interval_s: float = 30.0,
                 recycle: Optional[Callable[[Any], None]] = None) -> None:
        self._emit: Emit = emit if emit is not None else _agent.complete_on
        self._now_ns = now_ns
        self._poll_interval_s = poll_interval_s
        self._max_pending = max_pending
        self._anchor_factory = anchor_factory
        self._anchor_interval_ns = int(anchor_interval_s * 1e9)
        self._recycle = recycle
        self._cat_id = _agent.name_id(GPU_CAT)
        self._pending: Deque[_Span] = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._anchors: Dict[int, _Anchor] = {}
        self._calibrated_at: Dict[int, int] = {}
        self.submitted = 0
        self.resolved = 0
        self.dropped = 0
        self.failed = 0

    def start(self) -> None:
        """Starts the side thread (idempotent)."""
        if self._thread is not None:
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="stallwatch-device-spans",
                                        daemon=True)
        self._thread.start()

    def submit(self, name: str, device: int, lane: int, start: Any, end: Any) -> bool:
        """Queues a recorded pair; False (counted as dropped) when the queue is full."""
        span = _Span(_agent.name_id(name), device, lane, start, end)
        with self._lock:
            if len(self._pending) >= self._max_pending:
                self.dropped += 1
                return False
            self._pending.append(span)
            self.submitted += 1
        return True

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def stats(self) -> Dict[str, int]:
        with self._lock:
            return {"submitted": self.submitted, "resolved": self.resolved,
                    "dropped": self.dropped, "failed": self.failed,
                    "pending": len(self._pending), "anchored_devices": len(self._anchors)}

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stops the thread, resolves what completes within `timeout_s`, drops the rest."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout_s)
        deadline = time.monotonic() + timeout_s
        while self.pending() and time.monotonic() < deadline:
            if not self.poll_once():
                time.sleep(self._poll_interval_s)
        with self._lock:
            self.dropped += len(self._pending)
            self._pending.clear()

    def poll_once(self) -> int:
        """One pass over the pending spans (the thread's loop body); returns how many resolved."""
        with self._lock:
            spans: List[_Span] = list(self._pending)
        if not spans:
            return 0
        if self._anchor_factory is not None:
            now = self._now_ns()
            for device in {s.device for s in spans}:
                anchor = self._anchors.get(device)
                last = self._calibrated_at.get(device)
                due = anchor is None or now - anchor.taken_ns > self._anchor_interval_ns
                if due and (last is None or now - last > _CALIBRATION_RETRY_NS):
                    self._calibrated_at[device] = now
                    self._calibrate(device)
        now = self._now_ns()
        done = []
        for span in spans:
            if span.seen_start_ns is None:
                if not _completed(span.start):
                    continue
                span.seen_start_ns = now
            if _completed(span.end):
                done.append(span)
        if done:
            for span in done:
                self._resolve(span)
            finished = set(map(id, done))
            with self._lock:
                self._pending = collections.deque(s for s in self._pending
                                                  if id(s) not in finished)
        return len(done)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                self.poll_once()
            except Exception:
                with self._lock:
                    self.failed += 1
            self._stopping.wait(self._poll_interval_s)

    def _calibrate(self, device: int) -> None:
        try:
            event = self._anchor_factory(device) if self._anchor_factory else None
        except Exception:
            event = None
        if event is None:
            return
        before = self._now_ns()
        deadline = before + _CALIBRATION_LIMIT_NS
        while True:
            now = self._now_ns()
            if _completed(event):
                self._anchors[device] = _Anchor(event, (before + now) // 2, now, now - before)
                return
            if now > deadline:
                return
            before = now

    def _resolve(self, span: _Span) -> None:
        try:
            duration_ns = max(0, round(span.start.elapsed_time(span.end) * 1e6))
            start_ns = span.seen_start_ns
            anchor = self._anchors.get(span.device)
            if anchor is not None:
                anchored = anchor.host_ns + round(anchor.event.elapsed_time(span.start) * 1e6)
                start_ns = min(anchored, start_ns) if start_ns is not None else anchored
            self._emit(span.lane, self._cat_id, span.name_id, int(start_ns), int(duration_ns))
            with self._lock:
                self.resolved += 1
        except Exception:
            with self._lock:
                self.failed += 1
        if self._recycle is not None:
            self._recycle(span.start)
            self._recycle(span.end)
