# SPDX-License-Identifier: MIT
"""Batch size of a fetched batch, for the ``batch_size`` counter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import torch

_MAX_DEPTH = 4
_Tensor = torch.Tensor


def batch_size_of(batch: Any, depth: int = 0) -> Optional[int]:
    """The leading dimension of the first tensor in `batch`, or None when unknown.

    Follows the shapes ``default_collate`` produces: a tensor, a list/tuple
    or mapping of them (first element or value), nested a few levels. A list of
    plain samples (no tensors) counts its length. Called once per batch: the
    common shapes (a tensor, a list or tuple of tensors) take exact type
    checks before the general ones.
    """
    kind = type(batch)
    if kind is _Tensor or isinstance(batch, _Tensor):
        return int(batch.shape[0]) if batch.dim() > 0 else None
    if depth >= _MAX_DEPTH:
        return None
    if kind is list or kind is tuple or isinstance(batch, (list, tuple)):
        if not batch:
            return None
        first = batch[0]
        if type(first) is _Tensor or isinstance(first, (_Tensor, list, tuple, Mapping)):
            return batch_size_of(first, depth + 1)
        return len(batch)
    if isinstance(batch, Mapping):
        for value in batch.values():
            return batch_size_of(value, depth + 1)
        return None
    return None
