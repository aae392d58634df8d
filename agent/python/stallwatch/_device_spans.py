# SPDX-License-Identifier: MIT
"""Device spans from pairs of device events, resolved off the training thread.

Events recorded around a step's device work (``stallwatch.torch`` records
``torch.cuda.Event`` pairs on the stream the work runs on) complete on the
device asynchronously. :class:`SpanResolver` owns one side thread that polls
the pending pairs with ``query()`` -- it never synchronizes an event, a stream
or a device -- and records each span in cat ``gpu`` (the collector's
DEVICE_BUSY) on the lane of its device and stream: a BEGIN as soon as the
start event completed, the END once the end event did. The collector counts
a region while it is open, so a forward or backward longer than its lateness
(2 s) counts in full; a COMPLETE sent at the end would arrive partly late and
be clipped.

Events are duck-typed: anything with ``query() -> bool`` and
``elapsed_time(other) -> milliseconds`` works. The CUDA runtime's rules still
apply, and the resolver keeps them:

* a thread's CUDA calls act on that thread's current device, and a new thread
  starts on device 0: calling ``query()`` there would create a CUDA context on
  GPU 0 in every process (hundreds of MiB each). With a `device_guard` the
  resolver makes each span's own device current around every call on its
  events;
* while a stream is captured into a CUDA graph in the default (global) mode,
  an event query from any thread invalidates the capture. The training
  thread brackets captures with :meth:`SpanResolver.block_queries` /
  :meth:`SpanResolver.unblock_queries`: once ``block_queries`` returns, no
  query is running and none starts until the capture ended; a capture it did
  not bracket, once noticed, stops the queries while `capture_probe` says it
  runs;
* an event recorded during a capture belongs to the graph, and querying it
  raises every time after: a span whose event raises is evicted at once and
  counted as ``unresolvable`` (with its BEGIN closed), never left to fill the
  queue.

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

Either way the span ends at its start plus ``start.elapsed_time(end)``.
Bounded: at most ``max_pending`` spans wait; further ones are refused and
counted as dropped, and :meth:`SpanResolver.stop` drops (and counts) those
still incomplete at its deadline, closing the regions it opened. A process
forked while the resolver ran gets a resolver with nothing pending and no
thread (its locks are new: the parent's may have been held at the fork).
Nothing here raises into the caller of :meth:`submit`.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
import weakref
from typing import Any, Callable, ContextManager, Deque, Dict, List, Optional

from stallwatch import _agent

BeginEmit = Callable[[int, int, int, int], int]
EndEmit = Callable[[int, int], Any]

GPU_CAT = "gpu"
_CALIBRATION_LIMIT_NS = 20_000_000
_CALIBRATION_RETRY_NS = 1_000_000_000


class _Span:
    __slots__ = ("name_id", "device", "lane", "start", "end", "seen_start_ns", "start_ns",
                 "token")

    def __init__(self, name_id: int, device: int, lane: int, start: Any, end: Any) -> None:
        self.name_id = name_id
        self.device = device
        self.lane = lane
        self.start = start
        self.end = end
        self.seen_start_ns: Optional[int] = None
        self.start_ns: Optional[int] = None
        self.token = 0


class _Anchor:
    __slots__ = ("event", "host_ns", "taken_ns", "bracket_ns")

    def __init__(self, event: Any, host_ns: int, taken_ns: int, bracket_ns: int) -> None:
        self.event = event
        self.host_ns = host_ns
        self.taken_ns = taken_ns
        self.bracket_ns = bracket_ns


class _Unresolvable(Exception):
    """An event whose query raised: it can never complete."""


def _completed(event: Any) -> bool:
    try:
        return bool(event.query())
    except Exception as exc:
        raise _Unresolvable() from exc


def _no_guard(device: int) -> ContextManager[Any]:
    return contextlib.nullcontext()


_RESOLVERS: "weakref.WeakSet[SpanResolver]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for resolver in list(_RESOLVERS):
        resolver._forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class SpanResolver:
    """Resolves (start, end) device-event pairs into ``gpu`` regions on device lanes.

    `emit_begin(lane, cat_id, name_id, start_ns) -> token` opens a span's
    region and `emit_end(token, end_ns)` closes it (default: the agent's
    ``begin_on`` / ``end_on``); `now_ns()` is the agent's clock;
    `anchor_factory(device)` returns a freshly recorded event on an idle
    stream of `device` (or None); `recycle(event)` takes events back once
    resolved; `device_guard(device)` is a context manager making `device`
    current on the calling thread (``torch.cuda.device``); `capture_probe()`
    says whether a graph capture noticed by the training thread still runs
    (it may only ask CUDA whether a stream is capturing, which is allowed
    during a capture). :meth:`submit` may be called from any thread; the
    resolver's own thread does all polling.
    """

    def __init__(self, emit_begin: Optional[BeginEmit] = None,
                 emit_end: Optional[EndEmit] = None,
                 now_ns: Callable[[], int] = _agent.now_ns,
                 poll_interval_s: float = 0.002, max_pending: int = 1024,
                 anchor_factory: Optional[Callable[[int], Any]] = None,
                 anchor_interval_s: float = 30.0,
                 recycle: Optional[Callable[[Any], None]] = None,
                 device_guard: Optional[Callable[[int], ContextManager[Any]]] = None,
                 capture_probe: Optional[Callable[[], bool]] = None) -> None:
        self._emit_begin: BeginEmit = emit_begin if emit_begin is not None else _agent.begin_on
        self._emit_end: EndEmit = emit_end if emit_end is not None else _agent.end_on
        self._now_ns = now_ns
        self._poll_interval_s = poll_interval_s
        self._max_pending = max_pending
        self._anchor_factory = anchor_factory
        self._anchor_interval_ns = int(anchor_interval_s * 1e9)
        self._recycle = recycle
        self._device_guard = device_guard if device_guard is not None else _no_guard
        self._capture_probe = capture_probe
        self._cat_id = _agent.name_id(GPU_CAT)
        self._pending: Deque[_Span] = collections.deque()
        self._lock = threading.Lock()
        self._gate = threading.Lock()  # held by every pass that calls into events
        self._blocked = 0
        self._stopping = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._anchors: Dict[int, _Anchor] = {}
        self._calibrated_at: Dict[int, int] = {}
        self.submitted = 0
        self.resolved = 0
        self.dropped = 0
        self.failed = 0
        self.unresolvable = 0
        # How long after its start a span's region opened, at most: beyond the
        # collector's lateness (2 s) the BEGIN arrives late and is clipped.
        self.open_delay_max_ns = 0
        # The longest time from one pass of the thread to the next, and the
        # longest pass: a gap far longer than the longest pass means the thread
        # could not run (the GIL); a pass as long means a call in it blocked.
        # Either delays every region's opening by as much.
        self.poll_gap_max_ns = 0
        self.pass_max_ns = 0
        _RESOLVERS.add(self)

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

    def block_queries(self) -> None:
        """Returns once no event query runs, and keeps new ones from starting until
        :meth:`unblock_queries` (a CUDA graph capture is starting)."""
        with self._gate:
            self._blocked += 1

    def unblock_queries(self) -> None:
        with self._gate:
            self._blocked = max(0, self._blocked - 1)

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def stats(self) -> Dict[str, int]:
        with self._lock:
            return {"submitted": self.submitted, "resolved": self.resolved,
                    "dropped": self.dropped, "failed": self.failed,
                    "unresolvable": self.unresolvable, "pending": len(self._pending),
                    "anchored_devices": len(self._anchors), "blocked": self._blocked,
                    "open_delay_max_ns": self.open_delay_max_ns,
                    "poll_gap_max_ns": self.poll_gap_max_ns, "pass_max_ns": self.pass_max_ns}

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
            left = list(self._pending)
            self.dropped += len(left)
            self._pending.clear()
        now = self._now_ns()
        for span in left:
            self._close(span, now)

    def poll_once(self) -> int:
        """One pass over the pending spans (the thread's loop body); returns how many resolved."""
        with self._lock:
            spans: List[_Span] = list(self._pending)
        if not spans:
            return 0
        with self._gate:
            if self._blocked or self._capture_running():
                return 0
            by_device: Dict[int, List[_Span]] = {}
            for span in spans:
                by_device.setdefault(span.device, []).append(span)
            done: List[_Span] = []
            gone: List[_Span] = []
            for device, device_spans in by_device.items():
                with self._device_guard(device):
                    self._poll_device(device, device_spans, done, gone)
        if done or gone:
            finished = set(map(id, done + gone))
            with self._lock:
                self._pending = collections.deque(s for s in self._pending
                                                  if id(s) not in finished)
                self.unresolvable += len(gone)
            for span in done + gone:
                if self._recycle is not None:
                    self._recycle(span.start)
                    self._recycle(span.end)
        return len(done)

    def _capture_running(self) -> bool:
        if self._capture_probe is None:
            return False
        try:
            return bool(self._capture_probe())
        except Exception:
            return True

    def _poll_device(self, device: int, spans: List[_Span], done: List[_Span],
                     gone: List[_Span]) -> None:
        if self._anchor_factory is not None:
            now = self._now_ns()
            anchor = self._anchors.get(device)
            last = self._calibrated_at.get(device)
            due = anchor is None or now - anchor.taken_ns > self._anchor_interval_ns
            if due and (last is None or now - last > _CALIBRATION_RETRY_NS):
                self._calibrated_at[device] = now
                self._calibrate(device)
        now = self._now_ns()
        # Events recorded on one stream complete in the order they were recorded, so
        # on each lane the first span whose start (or end) is still pending holds
        # every later one back: a pass queries at most two pending events per lane
        # however far the host runs ahead (a launch-bound loop queues hundreds).
        # A span recorded inside another on the same lane (its end submitted first)
        # is only resolved later, never wrongly.
        held: set = set()
        for span in spans:
            if span.lane in held:
                continue
            try:
                if span.seen_start_ns is None:
                    if not _completed(span.start):
                        held.add(span.lane)
                        continue
                    span.seen_start_ns = now
                    self._open(span)
                if _completed(span.end):
                    self._resolve(span, now)
                    done.append(span)
                else:
                    held.add(span.lane)
            except _Unresolvable:
                self._close(span, span.start_ns if span.start_ns is not None else now)
                gone.append(span)

    def _run(self) -> None:
        last = None
        while not self._stopping.is_set():
            now = self._now_ns()
            if last is not None:
                self.poll_gap_max_ns = max(self.poll_gap_max_ns, now - last)
            last = now
            try:
                self.poll_once()
                self.pass_max_ns = max(self.pass_max_ns, self._now_ns() - now)
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
            try:
                if _completed(event):
                    self._anchors[device] = _Anchor(event, (before + now) // 2, now, now - before)
                    return
            except _Unresolvable:
                return
            if now > deadline:
                return
            before = now

    def _open(self, span: _Span) -> None:
        """The start event completed: the span's region opens at its start."""
        start_ns = span.seen_start_ns
        anchor = self._anchors.get(span.device)
        if anchor is not None:
            try:
                anchored = anchor.host_ns + round(anchor.event.elapsed_time(span.start) * 1e6)
                start_ns = min(anchored, start_ns) if start_ns is not None else anchored
            except Exception:
                pass
        now = self._now_ns()
        span.start_ns = int(start_ns if start_ns is not None else now)
        self.open_delay_max_ns = max(self.open_delay_max_ns, now - span.start_ns)
        try:
            span.token = self._emit_begin(span.lane, self._cat_id, span.name_id, span.start_ns)
        except Exception:
            span.token = 0

    def _resolve(self, span: _Span, now: int) -> None:
        start_ns = span.start_ns if span.start_ns is not None else now
        try:
            duration_ns = max(0, round(span.start.elapsed_time(span.end) * 1e6))
            end_ns = start_ns + duration_ns
            ok = True
        except Exception:
            end_ns = max(start_ns, now)
            ok = False
        self._close(span, end_ns)
        with self._lock:
            if ok:
                self.resolved += 1
            else:
                self.failed += 1

    def _close(self, span: _Span, end_ns: int) -> None:
        token, span.token = span.token, 0
        if token:
            try:
                self._emit_end(token, int(end_ns))
            except Exception:
                pass

    def _forget_after_fork(self) -> None:
        self._lock = threading.Lock()
        self._gate = threading.Lock()
        self._blocked = 0
        self._pending = collections.deque()
        self._thread = None
        self._stopping = threading.Event()
        self._stopping.set()
