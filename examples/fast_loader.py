# SPDX-License-Identifier: MIT
"""A well-overlapped training loop (the "after" of Nsight Systems' data-loader exercise).

The samples are decoded once into an in-memory cache; worker processes do the
light per-sample work and keep several batches prefetched (persistent workers,
pinned memory when a GPU is present), so the model never waits for data.
Under stallwatch the collector's verdict is ``well-overlapped``.

    python -m stallwatch.run examples/fast_loader.py --seconds 45
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import demo_common


class CachedDataset(Dataset):
    """All samples decoded and normalised once, at construction."""

    def __init__(self, data_dir: str, labels: np.ndarray) -> None:
        images = np.stack([np.load(demo_common.sample_path(data_dir, i))
                           for i in range(len(labels))])
        images = images.astype(np.float32) / 255.0
        self.images = torch.from_numpy((images - images.mean()) / images.std())
        self.labels = torch.from_numpy(labels.astype(np.int64))

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int):
        image = self.images[index]
        if index % 2:
            image = image.flip(-1)
        return image, self.labels[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    demo_common.add_common_args(parser)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--prefetch", type=int, default=4, help="batches prefetched per worker")
    args = parser.parse_args()
    labels = demo_common.ensure_data(args.data_dir, args.samples)
    dataset = CachedDataset(args.data_dir, labels)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                        num_workers=args.workers, prefetch_factor=args.prefetch,
                        persistent_workers=args.workers > 0,
                        pin_memory=torch.cuda.is_available())
    torch.manual_seed(0)
    try:
        demo_common.train(loader, demo_common.make_model(), seconds=args.seconds,
                          epochs=args.epochs, device=args.device, name="fast_loader")
    except KeyboardInterrupt:
        print("fast_loader: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
