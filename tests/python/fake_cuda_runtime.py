# SPDX-License-Identifier: MIT
"""A model of ``torch.cuda`` that keeps the CUDA runtime's rules, for the
CUDA-event span tests on machines without a GPU.

What it enforces, as the real runtime does:

* every call acts on the calling thread's current device; a new thread starts
  on device 0, and the first call on a device creates that device's context
  (``contexts`` shows which devices got one: hundreds of MiB each on a GPU);
* work runs on streams in order: :meth:`FakeCuda.launch` queues device time
  on a stream, and an event completes once the work recorded before it did;
* a stream captured into a graph in the default (global) mode makes any
  event query from any other thread invalidate the capture
  (``invalidated_captures``) and raise; an event recorded during a capture
  belongs to the graph, and querying it raises ever after;
* ``elapsed_time`` raises unless both events completed, and between events
  of different devices.

Time is the `clock` given (host nanoseconds); device work advances with it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, Iterator, List, Optional, Set


class Device:
    def __init__(self, index: int) -> None:
        self.type = "cuda"
        self.index = index

    def __repr__(self) -> str:
        return f"cuda:{self.index}"


class Stream:
    def __init__(self, cuda: "FakeCuda", device: Optional[int] = None, stream_id: int = 0) -> None:
        index = cuda.current_device() if device is None else int(device)
        self._cuda = cuda
        self.device = Device(index)
        cuda._next_stream += 1
        self.stream_id = stream_id if stream_id else cuda._next_stream
        self.busy_until = 0
        self.capturing = False


class Event:
    def __init__(self, cuda: "FakeCuda", enable_timing: bool = False) -> None:
        self._cuda = cuda
        self.device: Optional[int] = None
        self.done_at: Optional[int] = None
        self.captured = False

    def record(self, stream: Optional[Stream] = None) -> None:
        cuda = self._cuda
        stream = stream if stream is not None else cuda.current_stream()
        with cuda.device(stream.device.index):  # as CUDAEvent::record does
            cuda._touch()
            self.device = stream.device.index
            self.captured = stream.capturing
            self.done_at = max(stream.busy_until, cuda.clock())

    def query(self) -> bool:
        cuda = self._cuda
        cuda.queries += 1
        cuda._touch()
        cuda._check_capture()
        if self.captured:
            raise RuntimeError("CUDA error: operation not permitted on an event last recorded "
                               "in a capturing stream")
        if self.done_at is None:
            return True
        return cuda.clock() >= self.done_at

    def elapsed_time(self, end: "Event") -> float:
        cuda = self._cuda
        cuda._touch()
        cuda._check_capture()
        if self.captured or end.captured:
            raise RuntimeError("CUDA error: invalid resource handle")
        if self.device != end.device:
            raise RuntimeError("CUDA error: invalid resource handle (events of two devices)")
        if not (self.query() and end.query()):
            raise RuntimeError("CUDA error: device not ready")
        return (end.done_at - self.done_at) / 1e6


class FakeCuda:
    """The ``torch.cuda`` functions CudaEventSpans and the resolver use."""

    def __init__(self, clock: Callable[[], int], devices: int = 2) -> None:
        self.clock = clock
        self.devices = devices
        self.contexts: Set[int] = set()
        self.invalidated_captures = 0
        self.queries_during_capture = 0
        self.queries = 0
        self._local = threading.local()
        self._next_stream = 0
        self._default: List[Stream] = []
        self._default = [Stream(self, d, stream_id=7) for d in range(devices)]
        self._capture_owner: Optional[int] = None
        self.CUDAGraph = self._graph_class()

    # torch.cuda API
    def is_initialized(self) -> bool:
        return True

    def is_available(self) -> bool:
        return True

    def device_count(self) -> int:
        return self.devices

    def current_device(self) -> int:
        return getattr(self._local, "device", 0)

    def set_device(self, index: int) -> None:
        self._local.device = int(index)

    @contextlib.contextmanager
    def device(self, index: int) -> Iterator[None]:
        previous = self.current_device()
        self._local.device = int(index)
        try:
            yield
        finally:
            self._local.device = previous

    def current_stream(self, device: Optional[int] = None) -> Stream:
        index = self.current_device() if device is None else int(device)
        current = getattr(self._local, "streams", {})
        return current.get(index, self._default[index])

    @contextlib.contextmanager
    def stream(self, stream: Stream) -> Iterator[None]:
        streams = dict(getattr(self._local, "streams", {}))
        previous = streams.get(stream.device.index)
        streams[stream.device.index] = stream
        self._local.streams = streams
        try:
            with self.device(stream.device.index):
                yield
        finally:
            if previous is None:
                streams.pop(stream.device.index, None)
            else:
                streams[stream.device.index] = previous

    def Stream(self, device: Optional[int] = None) -> Stream:  # noqa: N802 (torch's name)
        return Stream(self, device)

    def Event(self, enable_timing: bool = False) -> Event:  # noqa: N802 (torch's name)
        return Event(self, enable_timing)

    def is_current_stream_capturing(self) -> bool:
        return self.current_stream().capturing

    # the model's own controls
    def launch(self, stream: Stream, duration_ns: int) -> None:
        """Queues `duration_ns` of device work on `stream` (from the calling thread)."""
        with self.device(stream.device.index):
            self._touch()
        stream.busy_until = max(stream.busy_until, self.clock()) + duration_ns

    @contextlib.contextmanager
    def capture(self, stream: Stream) -> Iterator[None]:
        """A global-mode capture of `stream` by the calling thread, without CUDAGraph."""
        self._begin_capture(stream)
        try:
            with self.stream(stream):
                yield
        finally:
            self._end_capture(stream)

    def _begin_capture(self, stream: Stream) -> None:
        stream.capturing = True
        self._capture_owner = threading.get_ident()

    def _end_capture(self, stream: Stream) -> None:
        stream.capturing = False
        self._capture_owner = None

    def _graph_class(self) -> type:
        cuda = self

        class CUDAGraph:
            def __init__(self) -> None:
                self.stream: Optional[Stream] = None

            def capture_begin(self) -> None:
                self.stream = cuda.current_stream()
                cuda._begin_capture(self.stream)

            def capture_end(self) -> None:
                assert self.stream is not None
                cuda._end_capture(self.stream)

        return CUDAGraph

    def _touch(self) -> None:
        self.contexts.add(self.current_device())

    def _check_capture(self) -> None:
        owner = self._capture_owner
        if owner is not None and owner != threading.get_ident():
            self.queries_during_capture += 1
            self.invalidated_captures += 1
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
