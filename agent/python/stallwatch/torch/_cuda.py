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
it on the current stream; a :class:`~stallwatch._device_spans.SpanResolver`
turns each pair into a ``gpu/<phase>`` complete event on the stream's lane
once both completed, from its own thread, never synchronizing the training
stream. Recording an event is asynchronous (a few microseconds of launch
overhead); events are reused from a small pool. Nothing here raises into the
training script.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import Any, List, Optional, Tuple

import torch

from stallwatch import _agent
from stallwatch._device_spans import SpanResolver

_POOL_LIMIT = 256
ERR_BAD_VALUE = -3
_NO_CUDA = "cuda-events: PyTorch has no CUDA device"


class CudaEventSpans:
    """Records event pairs around device work and hands them to a resolver."""

    def __init__(self) -> None:
        self._free: List[Any] = []
        self._side_streams: dict = {}
        self.failures = 0
        self.resolver = SpanResolver(anchor_factory=self._anchor, recycle=self._recycle)
        self.resolver.start()

    def enter(self) -> Optional[Tuple[Any, Any]]:
        """Records the start event on the current stream; a token for :meth:`exit`."""
        try:
            if not torch.cuda.is_initialized():
                return None
            stream = torch.cuda.current_stream()
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
            end = self._event()
            end.record(stream)
            device = stream.device.index if stream.device.index is not None else 0
            lane = _agent.device_lane(device, getattr(stream, "stream_id", 0))
            if not self.resolver.submit(name, device, lane, start, end):
                self._recycle(start)
                self._recycle(end)
        except Exception:
            self.failures += 1

    def stop(self) -> None:
        self.resolver.stop()

    def _event(self) -> Any:
        try:
            return self._free.pop()
        except IndexError:
            return torch.cuda.Event(enable_timing=True)

    def _recycle(self, event: Any) -> None:
        if len(self._free) < _POOL_LIMIT:
            self._free.append(event)

    def _anchor(self, device: int) -> Any:
        stream = self._side_streams.get(device)
        if stream is None:
            stream = torch.cuda.Stream(device=device)
            self._side_streams[device] = stream
        event = torch.cuda.Event(enable_timing=True)
        event.record(stream)
        return event


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
    if not state.gpu_stop_registered:
        state.gpu_stop_registered = True
        atexit.register(stop_gpu, state)
    return source


def stop_gpu(state: Any) -> None:
    """Resolves the spans still pending and stops the GPU sources."""
    spans, state.gpu_spans = state.gpu_spans, None
    if spans is not None:
        try:
            spans.stop()
        except Exception:
            pass
    _agent.gpu_stop()
