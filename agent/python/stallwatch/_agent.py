# SPDX-License-Identifier: MIT
"""The native agent as the rest of the package sees it.

Loads :mod:`stallwatch._native` (the binding of the C agent). When it cannot be
loaded -- a broken install, a foreign platform -- everything degrades to a
no-op :class:`Region` and the lifecycle calls return ``DISABLED``: instrumented
code keeps running, nothing raises. ``load_error`` says why.

Names are interned once per process and cached here (interning takes a lock
in the agent; ids stay valid in forked children).
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

OK = 0
DROPPED = 1
DISABLED = 2
ERR_ALREADY_STARTED = -4

load_error: Optional[str] = None


class _NoOpRegion:
    """No-op stand-in for ``stallwatch._native.Region`` (agent not loaded)."""

    def __init__(self, cat: str, name: Optional[str] = None, enabled: bool = True) -> None:
        self._cat = cat
        self._name = name if name is not None else cat
        self.enabled = bool(enabled)

    @property
    def cat(self) -> str:
        return self._cat

    @property
    def name(self) -> str:
        return self._name

    def __enter__(self) -> "_NoOpRegion":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def _exit_exhausted(self) -> None:
        return None

    def active(self) -> bool:
        return False

    def _ids(self) -> Tuple[int, int]:
        return (0, 0)


if TYPE_CHECKING:
    from stallwatch import _native
    from stallwatch._native import Region
else:
    try:
        from stallwatch import _native
    except (ImportError, OSError) as exc:
        _native = None
        load_error = f"stallwatch._native could not be loaded: {exc}"
    Region = _native.Region if _native is not None else _NoOpRegion


def switched_off() -> bool:
    """True when STALLWATCH_ENABLE=0 (or the agent could not be loaded)."""
    return _native is None or os.environ.get("STALLWATCH_ENABLE", "1").strip() == "0"


_names: Dict[str, int] = {}
_names_lock = threading.Lock()


def name_id(name: str) -> int:
    """The agent's id for `name` (0: not recorded), interned once per process."""
    found = _names.get(name)
    if found is not None:
        return found
    if _native is None:
        return 0
    with _names_lock:
        found = _names.get(name)
        if found is None:
            found = _native.intern(name)
            if found:
                _names[name] = found
    return found


def begin(cat_id: int, name_id_: int) -> int:
    """Opens a region now; returns its token (0: not recorded)."""
    if _native is None or not name_id_:
        return 0
    return _native.region_begin(cat_id, name_id_)


def end(token: int) -> None:
    """Closes a region opened by :func:`begin`."""
    if token and _native is not None:
        _native.region_end(token)


def end_value(token: int, value: int) -> None:
    """Closes a region opened by :func:`begin` with an integer payload on its END."""
    if token and _native is not None:
        _native.region_end_value(token, int(value))


# END payload marking the wait that ended a loop (SW_END_LOOP_EXHAUSTED).
END_LOOP_EXHAUSTED = 1
# END payload marking a call that returned a generator, before any item (SW_END_NO_ITEM).
END_NO_ITEM = 2


def end_exhausted(token: int) -> None:
    """Closes a wait region that ended its loop (StopIteration): the time is real
    waiting, but pydftracer-style tools record no event for it."""
    if token and _native is not None:
        _native.region_end_value(token, END_LOOP_EXHAUSTED)


def complete(cat_id: int, name_id_: int, start_ns: int, dur_ns: int) -> None:
    """Records a finished region."""
    if _native is not None and name_id_:
        _native.complete(cat_id, name_id_, start_ns, max(dur_ns, 0))


def mark(cat: str, name: str, value: int) -> None:
    """Records an instant now with an integer payload."""
    if _native is None:
        return
    n = name_id(name)
    if n:
        _native.mark(name_id(cat), n, int(value))


def counter(cat: str, name: str, value: float) -> None:
    """Records a counter sample now (int or float)."""
    if _native is None:
        return
    n = name_id(name)
    if n:
        _native.counter(name_id(cat), n, value)


def now_ns() -> int:
    """The agent's clock: Unix epoch nanoseconds, monotonic in this process."""
    if _native is None:
        import time

        return time.time_ns()
    return _native.now_ns()


def start(**options: Any) -> int:
    """Starts the agent with sw_config keys (collector=, role=, ...); returns a status."""
    if _native is None:
        return DISABLED
    return _native.start({k: str(v) for k, v in options.items()} if options else None)


def stop() -> int:
    """Flushes (bounded by linger_ms) and stops the agent; returns a status."""
    return DISABLED if _native is None else _native.stop()


def flush(timeout_ms: int = 1000) -> int:
    """Waits up to `timeout_ms` until everything recorded was sent; returns a status."""
    return DISABLED if _native is None else _native.flush(int(timeout_ms))


def is_enabled() -> bool:
    """Whether recording calls record now."""
    return False if _native is None else bool(_native.is_enabled())


def stats() -> Dict[str, int]:
    """The agent's counters (events recorded/dropped/sent, ...)."""
    return {} if _native is None else _native.stats()


DEVICE_SOURCES = {0: "none", 1: "cupti", 2: "cuda-events", 3: "nvml"}


def device_lane(device: int, stream: int) -> int:
    """The lane (synthetic thread id) of `stream` on `device` (sw_device_lane)."""
    if _native is None:
        return 0
    return _native.device_lane(int(device) & 0x7F, int(stream) & 0xFFFFFF)


def complete_on(lane: int, cat_id: int, name_id_: int, start_ns: int, dur_ns: int) -> int:
    """Records finished device work on a lane; returns a status."""
    if _native is None or not lane or not name_id_:
        return DISABLED
    return _native.complete_on(lane, cat_id, name_id_, start_ns, max(dur_ns, 0))


def begin_on(lane: int, cat_id: int, name_id_: int, start_ns: int) -> int:
    """Opens a region on a device lane that started at `start_ns`; its token (0: none)."""
    if _native is None or not lane or not name_id_:
        return 0
    return _native.region_begin_on(lane, cat_id, name_id_, int(start_ns))


def end_on(token: int, end_ns: int) -> int:
    """Closes a lane region opened by :func:`begin_on` at `end_ns`; returns a status."""
    if _native is None or not token:
        return DISABLED
    return _native.region_end_on(token, int(end_ns))


def gpu_start(mode: Optional[str] = None) -> int:
    """Starts the GPU activity sources (sw_gpu_start): ``auto``, ``cupti``,
    ``cuda-events``, ``nvml``, ``none`` or a comma-separated preference list;
    None reads STALLWATCH_GPU. Returns a status; never raises for a source that
    is missing (it falls back, and says so in one line on stderr)."""
    if _native is None:
        return DISABLED
    return _native.gpu_start(mode)


def gpu_stop() -> int:
    """Delivers the device records still buffered and stops the GPU sources."""
    return DISABLED if _native is None else _native.gpu_stop()


_gpu_stats_extra: Optional[Callable[[], Optional[Dict[str, int]]]] = None


def set_gpu_stats_extra(fn: Optional[Callable[[], Optional[Dict[str, int]]]]) -> None:
    """Registers the CUDA-event spans' counters for :func:`gpu_stats` (None: none)."""
    global _gpu_stats_extra
    _gpu_stats_extra = fn


def gpu_stats() -> Dict[str, Any]:
    """The GPU sources' counters; ``source`` names the device source in force
    and ``description`` says what was chosen and why. With CUDA-event spans,
    ``cuda_events`` holds their counters, and the description says what they
    could not measure (spans skipped during CUDA graph capture, spans whose
    events could never be queried)."""
    if _native is None:
        return {"source": "none", "running": 0, "description": "stallwatch agent not loaded"}
    out: Dict[str, Any] = dict(_native.gpu_stats())
    out["source"] = DEVICE_SOURCES.get(out.get("device_source", 0), "none")
    extra = _gpu_stats_extra() if _gpu_stats_extra is not None else None
    if extra is not None:
        out["cuda_events"] = extra
        notes = []
        if extra.get("skipped_during_capture"):
            notes.append(f"{extra['skipped_during_capture']} spans skipped during CUDA graph "
                         "capture")
        if extra.get("unresolvable"):
            notes.append(f"{extra['unresolvable']} spans whose events could not be queried")
        if notes:
            out["description"] = f"{out.get('description', '')} [cuda-events: {'; '.join(notes)}]"
    return out


def strerror(status: int) -> str:
    """What a status code means."""
    if _native is None:
        return "stallwatch agent not loaded" if status == DISABLED else f"status {status}"
    return _native.strerror(int(status))
