# SPDX-License-Identifier: MIT
"""GPU activity for the zero-code PyTorch instrumentation (``instrument(gpu=...)``).

:func:`start_gpu` picks the device-busy source (agent/gpu/README.md):

* ``auto``: CUPTI when it loads and no other CUPTI client holds it, else
  CUDA-event spans when PyTorch has a CUDA device, else none (compute regions
  stand in for device-busy time);
* ``cupti``, ``cuda-events``, ``nvml``, ``none``, or a comma-separated list.

NVML counters run alongside every mode but ``none``. When the first choice
cannot start, exactly one line on stderr says why.

CUDA-event spans: each instrumented phase of a step -- the outermost forward,
backward and optimizer step -- records a ``torch.cuda.Event`` before and after
it on the current stream of the device the work runs on (the module's, the
tensor's, the optimizer's parameters'; not the current device's, which a
model moved with ``.to("cuda:1")`` does not change); a
:class:`~stallwatch._device_spans.SpanResolver` turns each pair into a
``gpu/<phase>`` region on the stream's lane from its own thread, never
synchronizing the training stream and always with the events' device current.
While a stream is being captured into a CUDA graph no span is recorded (its
events would belong to the graph) and the resolver queries nothing (a query
from any thread would invalidate a capture in the default mode): captures
through ``torch.cuda.CUDAGraph`` (``torch.cuda.graph``, ``make_graphed_callables``,
``torch.compile``'s CUDA graphs) are bracketed, and a capture met otherwise
is noticed at the next phase and stops the queries until it is over.
:func:`spans_status` counts what was skipped.
Recording an event is asynchronous (a few microseconds of launch overhead);
events are reused from a small pool. Nothing here raises into the training
script.
"""

from __future__ import annotations

import atexit
import functools
import os
import sys
import threading
from typing import Any, Dict, List, Optional, Tuple

import torch

from stallwatch import _agent
from stallwatch._device_spans import SpanResolver

_POOL_LIMIT = 256
ERR_BAD_VALUE = -3
_NO_CUDA = "cuda-events: PyTorch has no CUDA device"
GROUP = "gpu"


def _device_index(device: Any) -> Optional[int]:
    """The CUDA device index of a ``torch.device`` (or index); None for other devices."""
    if device is None:
        return None
    if isinstance(device, int):
        return device
    if getattr(device, "type", None) != "cuda":
        return None
    return getattr(device, "index", None)


class CudaEventSpans:
    """Records event pairs around device work and hands them to a resolver.

    `cuda` is the ``torch.cuda`` module (tests give a model of it that keeps
    the runtime's rules)."""

    def __init__(self, cuda: Any = None) -> None:
        self._cuda = cuda if cuda is not None else torch.cuda
        self._free: List[Any] = []
        self._side_streams: dict = {}
        self.failures = 0
        self.skipped_capture = 0
        self._captures: List[Any] = []  # streams seen capturing, not through CUDAGraph
        self._captures_lock = threading.Lock()
        self.resolver = SpanResolver(anchor_factory=self._anchor, recycle=self._recycle,
                                     device_guard=self._cuda.device,
                                     capture_probe=self._capture_running)
        self.resolver.start()

    def enter(self, device: Any = None) -> Optional[Tuple[Any, Any]]:
        """Records the start event on the current stream of `device` (a ``torch.device``
        the phase's work runs on; None or a CPU device: the current device); a token for
        :meth:`exit`."""
        cuda = self._cuda
        try:
            if not cuda.is_initialized():
                return None
            if self._capturing():
                self.skipped_capture += 1
                return None
            index = _device_index(device)
            stream = cuda.current_stream(index) if index is not None else cuda.current_stream()
            start = self._event()
            start.record(stream)
            return start, stream
        except Exception:
            self.failures += 1
            return None

    def exit(self, token: Optional[Tuple[Any, Any]], name: str) -> None:
        """Records the end event and queues the pair as span `name`."""
        if token is None:
            return
        start, stream = token
        try:
            if self._capturing():
                self.skipped_capture += 1
                self._recycle(start)
                return
            end = self._event()
            end.record(stream)
            device = stream.device.index if stream.device.index is not None else 0
            lane = _agent.device_lane(device, getattr(stream, "stream_id", 0))
            if not self.resolver.submit(name, device, lane, start, end):
                self._recycle(start)
                self._recycle(end)
        except Exception:
            self.failures += 1

    def capture_begins(self) -> None:
        """A CUDA graph capture is about to start: returns once no event is queried."""
        self.resolver.block_queries()

    def capture_ended(self) -> None:
        self.resolver.unblock_queries()

    def stats(self) -> Dict[str, int]:
        out = self.resolver.stats()
        out["skipped_during_capture"] = self.skipped_capture
        out["record_failures"] = self.failures
        return out

    def stop(self) -> None:
        self.resolver.stop()

    def _capturing(self) -> bool:
        """Whether the current stream is being captured; such a stream is remembered so
        that the resolver queries nothing until its capture is over."""
        probe = getattr(self._cuda, "is_current_stream_capturing", None)
        if probe is None or not probe():
            return False
        stream = self._cuda.current_stream()
        with self._captures_lock:
            if all(s is not stream for s in self._captures):
                self._captures.append(stream)
        return True

    def _capture_running(self) -> bool:
        """Resolver thread: whether a remembered stream still captures (asking CUDA
        whether a stream captures is allowed during a capture)."""
        with self._captures_lock:
            streams = list(self._captures)
        if not streams:
            return False
        running = []
        for stream in streams:
            with self._cuda.stream(stream):
                if self._cuda.is_current_stream_capturing():
                    running.append(stream)
        with self._captures_lock:
            self._captures = [s for s in self._captures
                              if any(s is r for r in running) or all(s is not t for t in streams)]
        return bool(running)

    def _event(self) -> Any:
        try:
            return self._free.pop()
        except IndexError:
            return self._cuda.Event(enable_timing=True)

    def _recycle(self, event: Any) -> None:
        if len(self._free) < _POOL_LIMIT:
            self._free.append(event)

    def _anchor(self, device: int) -> Any:
        stream = self._side_streams.get(device)
        if stream is None:
            stream = self._cuda.Stream(device=device)
            self._side_streams[device] = stream
        event = self._cuda.Event(enable_timing=True)
        event.record(stream)
        return event


def guard_captures(state: Any, graph_cls: Any) -> None:
    """Brackets ``graph_cls.capture_begin`` / ``capture_end`` (``torch.cuda.CUDAGraph``) so
    that the span resolver queries no event while a graph is captured."""

    def wrap(method: Any, before: bool) -> Any:
        @functools.wraps(method)
        def bracketed(self: Any, *args: Any, **kwargs: Any) -> Any:
            spans = state.gpu_spans
            if spans is not None and before:
                spans.capture_begins()
            try:
                return method(self, *args, **kwargs)
            except BaseException:
                if spans is not None and before:
                    spans.capture_ended()
                raise
            finally:
                if spans is not None and not before:
                    spans.capture_ended()

        return bracketed

    for attr, before in (("capture_begin", True), ("capture_end", False)):
        method = getattr(graph_cls, attr, None)
        if method is not None:
            state.patch(graph_cls, attr, wrap(method, before), GROUP)


def spans_status(state: Any) -> Optional[Dict[str, int]]:
    """The CUDA-event spans' counters, or None when they are not running."""
    spans = state.gpu_spans
    return spans.stats() if spans is not None else None


def _cuda_usable() -> bool:
    try:
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def _notice(message: str) -> None:
    if os.environ.get("STALLWATCH_LOG", "1").strip() != "0":
        print(f"stallwatch: {message}", file=sys.stderr)


def _chain(mode: str, cuda: bool) -> Tuple[List[str], bool]:
    """The preference list for the C agent -- ``auto`` is cupti then, with a CUDA device,
    cuda-events -- and whether an explicit cuda-events was left out because PyTorch has
    no CUDA device."""
    chain: List[str] = []
    dropped = False
    for entry in (e.strip() for e in mode.split(",")):
        for choice in (["cupti", "cuda-events"] if entry == "auto" else [entry]):
            if choice == "cuda-events" and not cuda:
                dropped = dropped or entry == "cuda-events"
            elif choice not in chain:
                chain.append(choice)
    return chain, dropped


def _forget_in_child(state: Any) -> None:
    """A forked child has no resolver thread: no spans there."""
    state.gpu_spans = None


def start_gpu(state: Any, mode: Optional[str] = None) -> str:
    """Starts the GPU sources for `mode` (None: STALLWATCH_GPU, else ``auto``); returns
    the device source in force (``cupti``, ``cuda-events``, ``nvml`` or ``none``).

    Exactly one line on stderr when the first choice cannot start: the C agent's, or,
    when what could not start is cuda-events (PyTorch has no CUDA device), this one."""
    if mode is None:
        mode = os.environ.get("STALLWATCH_GPU", "").strip() or "auto"
    if mode.strip() == "none":
        return "none"
    chain, events_dropped = _chain(mode, _cuda_usable())
    if not chain:
        _notice(f"GPU activity from compute-proxy ({_NO_CUDA})")
        return "none"
    status = _agent.gpu_start(",".join(chain))
    if status == ERR_BAD_VALUE:
        _notice(f"ignoring GPU mode {mode!r}: expected auto, cupti, cuda-events, nvml or none")
        return "none"
    if status < 0:
        return "none"
    stats = _agent.gpu_stats()
    source = stats.get("source", "none")
    if events_dropped and not stats.get("fell_back"):
        shown = "compute-proxy" if source == "none" else source
        _notice(f"GPU activity from {shown} ({_NO_CUDA})")
    if source == "cuda-events" and state.gpu_spans is None:
        state.gpu_spans = CudaEventSpans()
        if not state.patched(GROUP):
            graph_cls = getattr(torch.cuda, "CUDAGraph", None)
            if graph_cls is not None:
                guard_captures(state, graph_cls)
        _agent.set_gpu_stats_extra(lambda: spans_status(state))
    if not state.gpu_stop_registered:
        state.gpu_stop_registered = True
        atexit.register(stop_gpu, state)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=lambda: _forget_in_child(state))
    return source


def stop_gpu(state: Any) -> None:
    """Resolves the spans still pending and stops the GPU sources."""
    spans, state.gpu_spans = state.gpu_spans, None
    if spans is not None:
        try:
            spans.stop()
        except Exception:
            pass
    _agent.set_gpu_stats_extra(None)
    state.undo((GROUP,))
    _agent.gpu_stop()
