# SPDX-License-Identifier: MIT
"""A data-starved training loop (the "before" of Nsight Systems' data-loader exercise).

Every sample is read from its own file and run through an expensive filter on
the training process's main thread (num_workers=0), so the model waits for
every batch. Under stallwatch the collector's verdict is ``data-starved``.

    python -m stallwatch.run examples/slow_loader.py --seconds 45
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import demo_common


class FilesDataset(Dataset):
    """One .npy file per sample, decoded and filtered on every access."""

    def __init__(self, data_dir: str, labels: np.ndarray, filter_passes: int) -> None:
        self.data_dir = data_dir
        self.labels = labels
        self.filter_passes = filter_passes
        window = np.outer(np.hanning(demo_common.IMAGE_SHAPE[1]),
                          np.hanning(demo_common.IMAGE_SHAPE[2]))
        self.kernel = np.fft.rfft2(window).astype(np.complex64)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int):
        image = np.load(demo_common.sample_path(self.data_dir, index)).astype(np.float32) / 255.0
        for _ in range(self.filter_passes):
            image = np.fft.irfft2(np.fft.rfft2(image) * self.kernel, s=image.shape[-2:])
            image = ((image - image.mean()) / (image.std() + 1e-6)).astype(np.float32)
        if index % 2:
            image = image[:, :, ::-1].copy()
        return torch.from_numpy(image), int(self.labels[index])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    demo_common.add_common_args(parser)
    parser.add_argument("--filter-passes", type=int, default=24,
                        help="FFT filter passes per sample (the preprocessing cost)")
    args = parser.parse_args()
    labels = demo_common.ensure_data(args.data_dir, args.samples)
    dataset = FilesDataset(args.data_dir, labels, args.filter_passes)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=0)
    torch.manual_seed(0)
    try:
        demo_common.train(loader, demo_common.make_model(), seconds=args.seconds,
                          epochs=args.epochs, device=args.device, name="slow_loader")
    except KeyboardInterrupt:
        print("slow_loader: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
