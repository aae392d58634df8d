# SPDX-License-Identifier: MIT
"""DataLoader with PyTorch's iterator classes: __iter__ returns a
_SingleProcessDataLoaderIter (num_workers=0 only), whose __next__ is
_BaseDataLoaderIter's; batches are collated by stacking tensors."""

import torch


def get_worker_info():
    return None


def default_collate(samples):
    return torch.stack(samples)


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._batch_size = loader.batch_size
        self._index = 0

    def __iter__(self):
        return self

    def __next__(self):
        return self._next_data()

    def _next_data(self):
        if self._index >= len(self._dataset):
            raise StopIteration
        end = min(self._index + self._batch_size, len(self._dataset))
        samples = [self._dataset[i] for i in range(self._index, end)]
        self._index = end
        return default_collate(samples)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    pass


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        raise NotImplementedError("the fake PyTorch has no worker processes")


class DataLoader:
    def __init__(self, dataset, batch_size=1, num_workers=0, worker_init_fn=None):
        self.dataset = dataset
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.worker_init_fn = worker_init_fn

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return (len(self.dataset) + self.batch_size - 1) // self.batch_size
