# SPDX-License-Identifier: MIT
"""Test support: receive what agents send and decode it.

``Capture`` binds a ZeroMQ PULL socket on a free loopback port (the agents
under test get it as STALLWATCH_COLLECTOR) and decodes every frame with the
FlatBuffers Python code flatc generated from schema/stallwatch.fbs at build
time (namespace renamed to ``swtest.wire``). Decoded batches are plain
dataclasses, so tests compare names and kinds, not buffers.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Dict, List, Optional

import zmq
from swtest.wire.Batch import Batch

KINDS = {0: "begin", 1: "end", 2: "complete", 3: "mark", 4: "counter"}
ROLES = {0: "main", 1: "worker"}
DEVICE_SOURCES = {0: "none", 1: "cupti", 2: "cuda-events", 3: "nvml"}


@dataclasses.dataclass
class Event:
    kind: str
    cat: str
    name: str
    ts_ns: int
    dur_ns: int
    value: int
    flags: int
    tid: int
    region_id: int
    pid: int
    role: str


@dataclasses.dataclass
class Decoded:
    job: str
    rank: int
    host: str
    pid: int
    ppid: int
    role: str
    device_source: str
    seq: int
    final: bool
    dropped_since_last: int
    events: List[Event]


def decode(frame: bytes) -> Decoded:
    batch = Batch.GetRootAs(frame, 0)
    assert Batch.BatchBufferHasIdentifier(frame, 0), "frame without the SWTC identifier"
    source = batch.Source()
    strings = [batch.Strings(i).decode() for i in range(batch.StringsLength())]
    role = ROLES[source.Role()]
    events = []
    for i in range(batch.EventsLength()):
        e = batch.Events(i)
        events.append(Event(kind=KINDS[e.Kind()], cat=strings[e.Cat()], name=strings[e.Name()],
                            ts_ns=e.TsNs(), dur_ns=e.DurNs(), value=e.Value(), flags=e.Flags(),
                            tid=e.Tid(),
                            region_id=e.RegionId(), pid=source.Pid(), role=role))
    return Decoded(job=source.Job().decode(), rank=source.Rank(), host=source.Host().decode(),
                   pid=source.Pid(), ppid=source.Ppid(), role=role,
                   device_source=DEVICE_SOURCES.get(source.DeviceSource(), "unknown"),
                   seq=batch.Seq(),
                   final=bool(batch.Final()), dropped_since_last=batch.DroppedSinceLast(),
                   events=events)


class Capture:
    """A PULL socket that keeps every decoded batch it received."""

    def __init__(self) -> None:
        self._context = zmq.Context.instance()
        self._socket = self._context.socket(zmq.PULL)
        self._socket.setsockopt(zmq.LINGER, 0)
        port = self._socket.bind_to_random_port("tcp://127.0.0.1")
        self.endpoint = f"tcp://127.0.0.1:{port}"
        self.batches: List[Decoded] = []

    def close(self) -> None:
        self._socket.close(0)

    def drain(self, seconds: float) -> None:
        """Receives for `seconds`."""
        self.wait_until(lambda: False, seconds)

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Receives until `done()` holds (checked after each frame) or `timeout`."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self._socket.poll(int(min(left, 0.1) * 1000)):
                self.batches.append(decode(self._socket.recv()))
        return True

    def finished_pids(self) -> set:
        return {b.pid for b in self.batches if b.final}

    def events(self, pid: Optional[int] = None, role: Optional[str] = None) -> List[Event]:
        out = []
        for b in sorted(self.batches, key=lambda b: (b.pid, b.seq)):
            if (pid is None or b.pid == pid) and (role is None or b.role == role):
                out.extend(b.events)
        return out

    def by_pid(self) -> Dict[int, Decoded]:
        return {b.pid: b for b in self.batches}
