# SPDX-License-Identifier: MIT
"""Data-loader worker processes: role, per-item regions, flush at exit.

``WorkerInit`` wraps the user's ``worker_init_fn``. It is a module-level class,
so it pickles by reference and also runs in workers started with spawn or
forkserver (which import this module afresh). In the worker it:

1. starts the agent with role ``worker`` (a spawned worker has none yet; in a
   forked one the agent itself restarts as a worker of its parent);
2. removes the compute patches (a forked worker inherited them; modules used as
   transforms in a worker are data work, not compute);
3. turns the dataset's ``__getitem__`` into ``data/item`` regions;
4. registers a multiprocessing finalizer that flushes the agent, because
   workers leave through ``os._exit`` and skip ``atexit``.

Any failure in 1-4 is swallowed: instrumentation never affects training.
Then the user's function runs.
"""

from __future__ import annotations

import functools
import multiprocessing.util
from typing import Any, Callable, Optional

from stallwatch import _agent
from stallwatch.torch._state import STATE, TorchState

_ITEM_WRAPPED = "_stallwatch_item_wrapped"
_FLUSH_PRIORITY = 10


def _traced(method: Any, region: Any) -> Any:
    @functools.wraps(method)
    def traced(self: Any, index: Any) -> Any:
        if region.active():
            return method(self, index)
        with region:
            return method(self, index)

    setattr(traced, _ITEM_WRAPPED, True)
    return traced


def wrap_dataset_items(dataset: Any, state: TorchState = STATE) -> None:
    """Makes the dataset class's ``__getitem__`` (and batched ``__getitems__``) record
    ``data/item`` regions, once per class; nested item calls are not recorded twice."""
    from torch.utils.data import IterableDataset

    if isinstance(dataset, IterableDataset):
        return
    cls = type(dataset)
    for attr in ("__getitem__", "__getitems__"):
        method = getattr(cls, attr, None)
        if method is None or getattr(method, _ITEM_WRAPPED, False):
            continue
        try:
            state.patch(cls, attr, _traced(method, state.item), "items")
        except (AttributeError, TypeError):
            pass


def _flush_at_exit() -> None:
    _agent.stop()


def setup_worker(state: TorchState = STATE, items: bool = True) -> None:
    """Turns this process into an instrumented data-loader worker (idempotent)."""
    if state.in_worker:
        return
    state.in_worker = True
    if _agent.switched_off():
        return
    from torch.utils.data import get_worker_info

    _agent.start(role="worker")
    state.gpu_spans = None  # the parent's span resolver has no thread here
    state.undo(("compute",))
    from stallwatch.torch import _optim

    _optim.remove_hooks(state)
    info = get_worker_info()
    if items and info is not None:
        wrap_dataset_items(info.dataset, state)
    multiprocessing.util.Finalize(None, _flush_at_exit, exitpriority=_FLUSH_PRIORITY)


class WorkerInit:
    """Picklable ``worker_init_fn`` wrapper: instruments the worker, then calls `fn`."""

    def __init__(self, fn: Optional[Callable[[int], Any]], items: bool = True) -> None:
        self.fn = fn
        self.items = items

    def __call__(self, worker_id: int) -> None:
        try:
            setup_worker(items=self.items)
        except Exception:
            pass
        if self.fn is not None:
            self.fn(worker_id)
