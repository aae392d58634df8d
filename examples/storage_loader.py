# SPDX-License-Identifier: MIT
"""A loader blocked in storage: every sample is read from "remote storage" that
delivers it slowly, so the DataLoader workers spend their time inside ``read``.

The storage is a separate server process (started here, outside the job) that
writes each sample into its own named pipe at a throttled rate: a reader's
``read`` really waits in the kernel, as on a slow network file system. The
model is small, so the loop is data-starved and the cause is storage. Under
``python -m stallwatch.run --posix`` the POSIX capture records every read.

    python -m stallwatch.run --posix examples/storage_loader.py --seconds 45
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import demo_common

ITEM_BYTES = int(np.prod(demo_common.IMAGE_SHAPE))
CHUNKS = 4


def pipe_path(data_dir: str, index: int) -> str:
    return os.path.join(data_dir, "pipes", f"{index:05d}.fifo")


def serve(data_dir: str, samples: int, item_ms: float) -> None:
    """The storage server: one thread per pipe writes its sample, throttled, forever."""
    payload = bytes((i * 131 + 7) & 0xFF for i in range(ITEM_BYTES))
    chunk = ITEM_BYTES // CHUNKS

    def feed(index: int) -> None:
        while True:
            fd = os.open(pipe_path(data_dir, index), os.O_WRONLY)
            try:
                for start in range(0, ITEM_BYTES, chunk):
                    time.sleep(item_ms / 1000.0 / CHUNKS)
                    os.write(fd, payload[start:start + chunk])
            except BrokenPipeError:
                pass
            finally:
                os.close(fd)

    for index in range(samples):
        threading.Thread(target=feed, args=(index,), daemon=True).start()
    sys.stdin.read()  # until the training process closes the pipe (or exits)


def start_storage(data_dir: str, samples: int, item_ms: float) -> subprocess.Popen:
    os.makedirs(os.path.join(data_dir, "pipes"), exist_ok=True)
    for index in range(samples):
        if not os.path.exists(pipe_path(data_dir, index)):
            os.mkfifo(pipe_path(data_dir, index))
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["STALLWATCH_ENABLE"] = "0"  # the storage is not part of the job
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", data_dir,
                             "--samples", str(samples), "--item-ms", str(item_ms)],
                            stdin=subprocess.PIPE, env=env)


class RemoteDataset(Dataset):
    """One sample per pipe, read with plain unbuffered reads until complete."""

    def __init__(self, data_dir: str, samples: int) -> None:
        self.data_dir = data_dir
        self.samples = samples

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, index: int):
        data = bytearray()
        with open(pipe_path(self.data_dir, index), "rb", buffering=0) as pipe:
            while len(data) < ITEM_BYTES:
                piece = pipe.read(ITEM_BYTES - len(data))
                if not piece:
                    break
                data += piece
        data += bytes(ITEM_BYTES - len(data))
        image = np.frombuffer(bytes(data), dtype=np.uint8).reshape(demo_common.IMAGE_SHAPE)
        return torch.from_numpy(image.astype(np.float32) / 255.0), index % demo_common.NUM_CLASSES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    demo_common.add_common_args(parser)
    parser.set_defaults(samples=256)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers")
    parser.add_argument("--mp-context", default=None,
                        help="worker start method: fork, spawn or forkserver")
    parser.add_argument("--item-ms", type=float, default=40.0,
                        help="how long the storage takes to deliver one sample")
    parser.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.samples, args.item_ms)
        return 0
    storage = start_storage(args.data_dir, args.samples, args.item_ms)
    try:
        loader = DataLoader(RemoteDataset(args.data_dir, args.samples), batch_size=args.batch_size,
                            shuffle=True, num_workers=args.workers,
                            multiprocessing_context=args.mp_context if args.workers else None)
        torch.manual_seed(0)
        demo_common.train(loader, demo_common.make_model(), seconds=args.seconds,
                          epochs=args.epochs, device=args.device, name="storage_loader")
    except KeyboardInterrupt:
        print("storage_loader: interrupted", file=sys.stderr)
        return 130
    finally:
        storage.stdin.close()
        storage.kill()
        storage.wait()
    print(f"storage_loader: {ITEM_BYTES} bytes per sample", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
