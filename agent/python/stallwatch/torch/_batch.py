"""Batch size of a fetched batch, for the ``batch_size`` counter."""

from __future__ import annotations

from typing import Any, Mapping, Optional

import torch

_MAX_DEPTH = 4


def batch_size_of(batch: Any, depth: int = 0) -> Optional[int]:
    """The leading dimension of the first tensor in `batch`, or None when unknown.

    Follows the shapes ``default_collate`` produces: a tensor, a list/tuple
    or mapping of them (first element or value), nested a few levels. A list of
    plain samples (no tensors) counts its length.
    """
    if isinstance(batch, torch.Tensor):
        return int(batch.shape[0]) if batch.dim() > 0 else None
    if depth >= _MAX_DEPTH:
        return None
    if isinstance(batch, Mapping):
        for value in batch.values():
            return batch_size_of(value, depth + 1)
        return None
    if isinstance(batch, (list, tuple)) and batch:
        first = batch[0]
        if isinstance(first, (torch.Tensor, Mapping, list, tuple)):
            return batch_size_of(first, depth + 1)
        return len(batch)
    return None
