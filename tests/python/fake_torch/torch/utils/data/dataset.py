# SPDX-License-Identifier: MIT
class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError


class IterableDataset(Dataset):
    def __iter__(self):
        raise NotImplementedError
