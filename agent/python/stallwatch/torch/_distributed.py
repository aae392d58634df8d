# SPDX-License-Identifier: MIT
"""``torch.distributed`` collectives, point-to-point calls and DDP gradient buckets
as ``comm`` regions.

- Each collective or point-to-point function of ``torch.distributed``
  (:data:`COLLECTIVES`) called synchronously becomes a region ``comm/<function>``
  on the calling thread, from the call to its return; its END carries the
  bytes of the tensors passed (inputs and outputs as the function takes them).
- Called with ``async_op=True``, the returned work is torch's own (so
  ``isinstance`` checks and ``get_future()`` behave as without stallwatch):
  its start is noted, and ``Work.wait`` is patched on the class, so the region
  runs from the call to the end of the first ``wait()``, recorded on the
  thread that waits. Work never waited for (only its future used, or dropped)
  is not recorded; at most :data:`MAX_UNWAITED` starts are kept, the oldest
  forgotten first. Without a ``Work`` class to patch (old releases), the work
  is wrapped in a proxy instead (:class:`TimedWork`).
- A ``DistributedDataParallel`` model without a communication hook of its own
  gets, before its first forward, a hook that does what torch's default
  all-reduce hook does and records ``comm/all_reduce`` from the bucket being
  ready to the reduction's completion (recorded where the future completes).
  Its result is the default hook's, unchanged. A hook the script registers is
  wrapped the same way instead.
- Calls made inside a recorded call (``all_gather_object`` calling
  ``all_gather``) are not recorded again.

A Python hook puts Python objects where the process group's own threads let
go of them, which needs the GIL: the hook's callback (released after the
reduction has completed) and the bucket's tensor (freed with the reduction's
work if that holds the last reference). A process group destroyed meanwhile
(its destructor joins those threads and, in PyTorch before 2.8, keeps the GIL
while it waits: the DDP model dying after ``destroy_process_group``) would
hang the job, and one still busy at interpreter exit would abort it. So
``destroy_process_group`` and the interpreter's end first wait, GIL released,
until every callback has been let go (:class:`PendingCallbacks`), and the
default hook keeps its latest works referenced from Python (:class:`KeptWork`)
so that no process-group thread frees a bucket's tensor.

The functions are replaced on the ``torch.distributed`` namespace (the way
scripts call them); undone by ``uninstrument()``. Nothing here raises into the
training script.
"""

from __future__ import annotations

import atexit
import collections
import functools
import inspect
import threading
import time
import weakref
from typing import Any, Callable, List, Optional, Tuple

import torch

from stallwatch import _agent
from stallwatch.torch._state import STATE, TorchState

GROUP = "comm"
COMM_CAT = "comm"
BUCKET_REGION = "all_reduce"
COLLECTIVES = (
    "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
    "_all_gather_base", "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor",
    "_reduce_scatter_base", "all_to_all", "all_to_all_single", "barrier", "monitored_barrier",
    "send", "recv", "isend", "irecv", "batch_isend_irecv", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list",
)
# Functions that always return work to wait for.
_ALWAYS_ASYNC = frozenset(("isend", "irecv", "batch_isend_irecv"))
_HOOKED = "_stallwatch_comm_hook"
# The longest destroy_process_group or the interpreter's end waits for the
# process group's threads to let bucket callbacks go, and the time they are
# then given, GIL released, to drop their last works.
DRAIN_TIMEOUT_S = 10.0
SETTLE_S = 0.02


class _Inside(threading.local):
    """Per thread: depth of recorded calls in progress."""

    def __init__(self) -> None:
        self.depth = 0


_INSIDE = _Inside()


def tensor_bytes(value: Any) -> int:
    """Bytes of a tensor, or of the tensors in a (nested) list or tuple."""
    if isinstance(value, torch.Tensor):
        return int(value.numel() * value.element_size())
    if isinstance(value, (list, tuple)):
        return sum(tensor_bytes(v) for v in value)
    return 0


def _call_bytes(args: Any, kwargs: Any) -> int:
    total = sum(tensor_bytes(a) for a in args[:2])
    for key in ("tensor", "tensor_list", "output", "input", "output_tensor_list",
                "input_tensor_list", "output_tensor", "input_tensor"):
        if key in kwargs:
            total += tensor_bytes(kwargs[key])
    return total


class TimedWork:
    """Asynchronous work whose first completed ``wait()`` records its region.

    Everything else is the wrapped work's (attribute access is delegated).
    """

    def __init__(self, work: Any, cat_id: int, name_id: int, start_ns: int) -> None:
        self._work = work
        self._ids = (cat_id, name_id)
        self._start_ns: Optional[int] = start_ns

    def wait(self, *args: Any, **kwargs: Any) -> Any:
        result = self._work.wait(*args, **kwargs)
        start = self._start_ns
        if start is not None:
            self._start_ns = None
            _agent.complete(self._ids[0], self._ids[1], start, _agent.now_ns() - start)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._work, name)


class StartedWork:
    """Async work handed back unwrapped, by identity, with its region's ids and
    start, until its first ``wait()`` returns (the patched ``Work.wait`` then
    records the region). Keeps a reference to each work so that its identity
    stays its own; at most `limit`, the oldest forgotten first. Any thread."""

    def __init__(self, limit: int) -> None:
        self._lock = threading.Lock()
        self._started: "collections.OrderedDict[int, Tuple[Any, int, int, int]]" = (
            collections.OrderedDict())
        self._limit = limit

    def add(self, work: Any, cat_id: int, name_id: int, start_ns: int) -> None:
        with self._lock:
            self._started[id(work)] = (work, cat_id, name_id, start_ns)
            while len(self._started) > self._limit:
                self._started.popitem(last=False)

    def pop(self, work: Any) -> Optional[Tuple[int, int, int]]:
        with self._lock:
            entry = self._started.get(id(work))
            if entry is None or entry[0] is not work:
                return None
            del self._started[id(work)]
        return entry[1], entry[2], entry[3]

    def __len__(self) -> int:
        with self._lock:
            return len(self._started)


MAX_UNWAITED = 4096
STARTED = StartedWork(MAX_UNWAITED)
_WORK_CLASS: List[Any] = []  # the Work class whose wait is patched, when it is


def _recording_wait(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def wait(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        started = STARTED.pop(self)
        if started is not None:
            cat_id, name_id, start = started
            _agent.complete(cat_id, name_id, start, _agent.now_ns() - start)
        return result

    return wait


def _note_work(result: Any, cat_id: int, name_id: int, start_ns: int) -> Any:
    if result is None:
        return None
    if isinstance(result, list):
        return [_note_work(w, cat_id, name_id, start_ns) for w in result]
    if _WORK_CLASS and isinstance(result, _WORK_CLASS[0]):
        STARTED.add(result, cat_id, name_id, start_ns)
        return result
    return TimedWork(result, cat_id, name_id, start_ns)


def _wrap_collective(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    always_async = name in _ALWAYS_ASYNC

    @functools.wraps(fn)
    def traced(*args: Any, **kwargs: Any) -> Any:
        if _INSIDE.depth:
            return fn(*args, **kwargs)
        cat_id = _agent.name_id(COMM_CAT)
        name_id = _agent.name_id(name)
        if always_async or kwargs.get("async_op", False):
            start = _agent.now_ns()
            _INSIDE.depth += 1
            try:
                result = fn(*args, **kwargs)
            finally:
                _INSIDE.depth -= 1
            return _note_work(result, cat_id, name_id, start)
        nbytes = _call_bytes(args, kwargs)
        token = _agent.begin(cat_id, name_id)
        _INSIDE.depth += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _INSIDE.depth -= 1
            _agent.end_value(token, nbytes)

    setattr(traced, "_stallwatch_wrapped", True)
    return traced


class PendingCallbacks:
    """Counts the bucket callbacks handed to torch futures that torch has not
    yet let go of (the count drops when the callback object is freed, on
    whichever thread frees it), and lets a thread wait until there are none.
    Any thread may call it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._count = 0

    def track(self, callback: Callable[..., Any]) -> None:
        with self._cond:
            self._count += 1
        weakref.finalize(callback, self._released)

    def _released(self) -> None:
        with self._cond:
            self._count -= 1
            if self._count == 0:
                self._cond.notify_all()

    def pending(self) -> int:
        with self._cond:
            return self._count

    def drain(self, timeout_s: float = DRAIN_TIMEOUT_S) -> bool:
        """Waits (GIL released) until no callback is pending; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._count == 0, timeout_s)


PENDING = PendingCallbacks()


class KeptWork:
    """The default hook's all-reduce works, referenced until a later bucket
    finds them completed twice, so that the process group's thread never holds
    a work's last reference (and frees its tensor) while a DDP model dies:
    the latest round stays until the next one or the interpreter's end, with the
    bucket tensors it refers to. Any thread may call it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._works: List[List[Any]] = []  # [work, seen completed]

    def keep(self, work: Any) -> None:
        with self._lock:
            kept = []
            for entry in self._works:
                if not entry[1]:
                    entry[1] = bool(entry[0].is_completed())
                    kept.append(entry)
            kept.append([work, False])
            dropped, self._works = self._works, kept
        del dropped

    def clear(self) -> None:
        with self._lock:
            dropped, self._works = self._works, []
        del dropped

    def __len__(self) -> int:
        with self._lock:
            return len(self._works)


KEPT = KeptWork()


def allreduce_hook(process_group: Any, bucket: Any) -> Any:
    """torch's default DDP hook (``default_hooks.allreduce_hook``: divide by the
    group's size, then sum) with the future of the all-reduce itself and no
    callback of its own: the recording callback below is the only one."""
    import torch.distributed as dist

    group = process_group if process_group is not None else dist.group.WORLD
    tensor = bucket.buffer() if hasattr(bucket, "buffer") else bucket.get_tensor()
    tensor.div_(group.size())
    all_reduce = getattr(dist.all_reduce, "__wrapped__", dist.all_reduce)
    work = all_reduce(tensor, group=group, async_op=True)
    KEPT.keep(work)
    return work.get_future()


# DDP checks a hook's annotations against its own types; this module's are
# strings (postponed evaluation), so the hook shows none.
setattr(allreduce_hook, "__signature__", inspect.Signature([
    inspect.Parameter("process_group", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("bucket", inspect.Parameter.POSITIONAL_OR_KEYWORD)]))


def recording_hook(hook: Callable[..., Any], unwrap: bool = False) -> Callable[..., Any]:
    """A DDP communication hook that runs `hook` and records each bucket's
    reduction as ``comm/all_reduce`` until its future completes. `unwrap`:
    `hook`'s future holds a list of one tensor (the all-reduce's own), which the
    result replaces by the tensor, as torch's default hook does."""

    @functools.wraps(hook)
    def traced(state: Any, bucket: Any) -> Any:
        start = _agent.now_ns()
        fut = hook(state, bucket)
        cat_id = _agent.name_id(COMM_CAT)
        name_id = _agent.name_id(BUCKET_REGION)

        def done(f: Any) -> Any:
            _agent.complete(cat_id, name_id, start, _agent.now_ns() - start)
            return f.value()[0] if unwrap else f.value()

        PENDING.track(done)
        return fut.then(done)

    return traced


def settle() -> None:
    """Lets the process groups' threads finish with every bucket: waits for the
    callbacks, then sleeps briefly (GIL released) for their last works."""
    PENDING.drain()
    time.sleep(SETTLE_S)


def _at_exit() -> None:
    settle()
    KEPT.clear()


def _drain_then(destroy: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(destroy)
    def destroy_process_group(*args: Any, **kwargs: Any) -> Any:
        settle()
        return destroy(*args, **kwargs)

    return destroy_process_group


def _install_ddp(state: TorchState) -> None:
    parallel = getattr(torch.nn, "parallel", None)
    ddp_cls = getattr(parallel, "DistributedDataParallel", None)
    if ddp_cls is None:
        return
    original_register = ddp_cls.register_comm_hook
    original_forward = ddp_cls.forward

    @functools.wraps(original_register)
    def register_comm_hook(self: Any, hook_state: Any, hook: Callable[..., Any]) -> Any:
        setattr(self, _HOOKED, True)
        return original_register(self, hook_state, recording_hook(hook))

    @functools.wraps(original_forward)
    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not getattr(self, _HOOKED, False):
            setattr(self, _HOOKED, True)
            try:
                original_register(self, None, recording_hook(allreduce_hook, unwrap=True))
            except Exception:
                pass
        return original_forward(self, *args, **kwargs)

    state.patch(ddp_cls, "register_comm_hook", register_comm_hook, GROUP)
    state.patch(ddp_cls, "forward", forward, GROUP)


def install_distributed(state: TorchState = STATE) -> None:
    dist = getattr(torch, "distributed", None)
    if dist is None or not dist.is_available():
        return
    for name in COLLECTIVES:
        fn = getattr(dist, name, None)
        if fn is None or getattr(fn, "_stallwatch_wrapped", False):
            continue
        state.patch(dist, name, _wrap_collective(fn, name), GROUP)
    work_cls = getattr(dist, "Work", None)
    if isinstance(work_cls, type) and callable(getattr(work_cls, "wait", None)):
        try:
            state.patch(work_cls, "wait", _recording_wait(getattr(work_cls, "wait")), GROUP)
            _WORK_CLASS[:] = [work_cls]
        except (AttributeError, TypeError):
            _WORK_CLASS.clear()
    destroy = getattr(dist, "destroy_process_group", None)
    if destroy is not None and not getattr(destroy, "_stallwatch_wrapped", False):
        drained = _drain_then(destroy)
        setattr(drained, "_stallwatch_wrapped", True)
        state.patch(dist, "destroy_process_group", drained, GROUP)
    _install_ddp(state)
    _register_exit_drain()


_EXIT_DRAIN: List[bool] = []


def _register_exit_drain() -> None:
    # Registered after torch's own exit handlers, so it runs before them.
    if not _EXIT_DRAIN:
        _EXIT_DRAIN.append(True)
        atexit.register(_at_exit)
