# SPDX-License-Identifier: MIT
from torch.utils.data.dataloader import DataLoader, get_worker_info
from torch.utils.data.dataset import Dataset, IterableDataset

__all__ = ["DataLoader", "Dataset", "IterableDataset", "get_worker_info"]
