# SPDX-License-Identifier: MIT
"""A loader busy preprocessing: every sample is a small file already in the page
cache (reading it takes microseconds) followed by heavy CPU decoding, so the
DataLoader workers spend their time computing, not in ``read``.

The model is small, so the loop is data-starved and the cause is
preprocessing. Under ``python -m stallwatch.run --posix`` the POSIX capture
records every read.

    python -m stallwatch.run --posix examples/decode_loader.py --seconds 45
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import demo_common

ITEM_BYTES = int(np.prod(demo_common.IMAGE_SHAPE))


def raw_path(data_dir: str, index: int) -> str:
    return os.path.join(data_dir, "raw", f"{index:05d}.bin")


def ensure_raw(data_dir: str, samples: int) -> None:
    """Writes the raw sample files once, then reads each so that it is in the page cache."""
    os.makedirs(os.path.join(data_dir, "raw"), exist_ok=True)
    payload = bytes((i * 131 + 7) & 0xFF for i in range(ITEM_BYTES))
    for index in range(samples):
        path = raw_path(data_dir, index)
        if not os.path.exists(path) or os.path.getsize(path) != ITEM_BYTES:
            with open(path, "wb") as out:
                out.write(payload)
        with open(path, "rb") as warm:
            warm.read()


class DecodeDataset(Dataset):
    """Reads a cached file, then decodes it with `passes` FFT filter passes."""

    def __init__(self, data_dir: str, samples: int, passes: int) -> None:
        self.data_dir = data_dir
        self.samples = samples
        self.passes = passes
        window = np.outer(np.hanning(demo_common.IMAGE_SHAPE[1]),
                          np.hanning(demo_common.IMAGE_SHAPE[2]))
        self.kernel = np.fft.rfft2(window).astype(np.complex64)

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, index: int):
        with open(raw_path(self.data_dir, index), "rb", buffering=0) as f:
            data = f.read()
        image = np.frombuffer(data, dtype=np.uint8).reshape(demo_common.IMAGE_SHAPE)
        image = image.astype(np.float32) / 255.0
        for _ in range(self.passes):
            image = np.fft.irfft2(np.fft.rfft2(image) * self.kernel, s=image.shape[-2:])
            image = ((image - image.mean()) / (image.std() + 1e-6)).astype(np.float32)
        return torch.from_numpy(image), index % demo_common.NUM_CLASSES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    demo_common.add_common_args(parser)
    parser.set_defaults(samples=256)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers")
    parser.add_argument("--mp-context", default=None,
                        help="worker start method: fork, spawn or forkserver")
    parser.add_argument("--passes", type=int, default=40,
                        help="FFT filter passes per sample (the decoding cost)")
    args = parser.parse_args()
    ensure_raw(args.data_dir, args.samples)
    loader = DataLoader(DecodeDataset(args.data_dir, args.samples, args.passes),
                        batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                        multiprocessing_context=args.mp_context if args.workers else None)
    torch.manual_seed(0)
    try:
        demo_common.train(loader, demo_common.make_model(), seconds=args.seconds,
                          epochs=args.epochs, device=args.device, name="decode_loader")
    except KeyboardInterrupt:
        print("decode_loader: interrupted", file=sys.stderr)
        return 130
    print(f"decode_loader: {ITEM_BYTES} bytes per sample", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
