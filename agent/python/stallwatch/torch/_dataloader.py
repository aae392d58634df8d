# SPDX-License-Identifier: MIT
"""DataLoader iteration: fetch waits, epochs, batch size, per-item regions.

* Each call of ``DataLoader.__iter__`` on the primary loader (the first one
  iterated in the process) starts an epoch: MARK ``epoch.start`` (0-based);
  its iterator running out, or the next epoch starting, ends it
  (``epoch.end``).
* Each ``__next__`` of a DataLoader iterator is a ``dataloader/fetch.iter``
  region on the calling thread, open while it waits (the collector classes it
  FETCH), followed by COUNTER ``batch_size`` from the batch. The wait that
  ends the loop (StopIteration) is closed with END_LOOP_EXHAUSTED, as
  ``ai.dataloader.fetch.iter`` closes it: it brought no batch.
* With workers, :mod:`._worker` turns the dataset's ``__getitem__`` into
  ``data/item`` regions in each worker, through a picklable ``worker_init_fn``
  wrapper; with ``num_workers=0`` only when asked (``inline_items``), since
  the fetch region already covers that time.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import dataloader as dataloader_mod

from stallwatch.torch._batch import batch_size_of
from stallwatch.torch._state import STATE, TorchState
from stallwatch.torch._worker import WorkerInit, wrap_dataset_items

GROUP = "data"
_EPOCH_ATTR = "_stallwatch_epoch"


def install_dataloader(state: TorchState = STATE, workers: bool = True, items: bool = True,
                       inline_items: bool = False) -> None:
    loader_cls = torch.utils.data.DataLoader
    base_iter_cls = dataloader_mod._BaseDataLoaderIter
    multi_iter_cls = dataloader_mod._MultiProcessingDataLoaderIter
    original_iter = loader_cls.__iter__
    original_next = base_iter_cls.__next__
    original_multi_init = multi_iter_cls.__init__
    fetch = state.fetch

    def __iter__(self: Any) -> Any:
        if inline_items and self.num_workers == 0:
            wrap_dataset_items(self.dataset, state)
        iterator = original_iter(self)
        epoch = state.on_epoch_start() if state.is_primary(self) else None
        try:
            setattr(iterator, _EPOCH_ATTR, epoch)
        except AttributeError:
            pass
        return iterator

    def __next__(self: Any) -> Any:
        # The previous batch was trained: without an optimizer its step mark
        # goes out now, before this fetch, so the collector sees each step
        # mark after the fetch of its own batch and before the next one.
        state.on_batch_done()
        fetch.__enter__()
        try:
            batch = original_next(self)
        except StopIteration:
            fetch._exit_exhausted()
            epoch = getattr(self, _EPOCH_ATTR, None)
            if epoch is not None:
                state.on_epoch_end(epoch)
            raise
        except BaseException:
            fetch.__exit__(None, None, None)
            raise
        fetch.__exit__(None, None, None)
        state.on_batch(batch_size_of(batch))
        return batch

    def multi_init(self: Any, loader: Any, *args: Any, **kwargs: Any) -> None:
        if workers and not isinstance(loader.worker_init_fn, WorkerInit):
            loader.worker_init_fn = WorkerInit(loader.worker_init_fn, items)
        original_multi_init(self, loader, *args, **kwargs)

    state.patch(loader_cls, "__iter__", __iter__, GROUP)
    state.patch(base_iter_cls, "__next__", __next__, GROUP)
    state.patch(multi_iter_cls, "__init__", multi_init, GROUP)
