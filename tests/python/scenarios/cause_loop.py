# SPDX-License-Identifier: MIT
"""A training loop without PyTorch whose main thread loads every item itself
(``dataloader/fetch`` around ``data/item``), then computes briefly: the loop is
data-starved, and where the item's time goes is the cause.

  storage:       each item is read from a named pipe that a writer process
                 (outside the job) fills slowly: the time is spent in ``read``.
  preprocessing: each item is a small page-cached file read at once, then
                 decoded by a CPU loop: the time is spent outside I/O calls.

Prints the bytes it read through ``read`` ("bytes_read N").

usage: cause_loop.py {storage,preprocessing} DATA_DIR [--items N] [--item-ms MS]
"""

import argparse
import os
import subprocess
import sys
import time

from stallwatch import ai

ITEM_BYTES = 64 * 1024
CHUNKS = 4


def feed(fifo: str, items: int, item_ms: float) -> None:
    """The slow storage: writes every item into one pipe in chunks, sleeping between them."""
    payload = bytes(ITEM_BYTES // CHUNKS)
    fd = os.open(fifo, os.O_WRONLY)
    try:
        for _ in range(items * CHUNKS):
            time.sleep(item_ms / 1000.0 / CHUNKS)
            os.write(fd, payload)
    finally:
        os.close(fd)


def read_item(fd: int) -> int:
    got = 0
    while got < ITEM_BYTES:
        piece = os.read(fd, ITEM_BYTES - got)
        if not piece:
            break
        got += len(piece)
    return got


def decode(rounds: int) -> int:
    acc = 0
    for i in range(rounds):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return acc


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["storage", "preprocessing", "feed"])
    parser.add_argument("data_dir")
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--item-ms", type=float, default=40.0)
    args = parser.parse_args()
    fifo = os.path.join(args.data_dir, "item.fifo")
    if args.mode == "feed":
        feed(fifo, args.items, args.item_ms)
        return 0

    writer = None
    fd = -1
    if args.mode == "storage":
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        env["STALLWATCH_ENABLE"] = "0"  # the storage is not part of the job
        writer = subprocess.Popen([sys.executable, os.path.abspath(__file__), "feed",
                                   args.data_dir, "--items", str(args.items), "--item-ms",
                                   str(args.item_ms)], env=env)
        fd = os.open(fifo, os.O_RDONLY)
    else:
        path = os.path.join(args.data_dir, "item.bin")
        with open(path, "wb") as out:
            out.write(bytes(ITEM_BYTES))

    total = 0
    for _ in range(args.items):
        with ai.dataloader.fetch:
            with ai.data.item:
                if args.mode == "storage":
                    total += read_item(fd)
                else:
                    item = os.open(path, os.O_RDONLY)  # page-cached: written just above
                    total += read_item(item)
                    os.close(item)
                    decode(200_000)
        with ai.compute.forward:
            decode(2_000)
    if writer is not None:
        os.close(fd)
        writer.wait(timeout=30)
    print(f"bytes_read {total}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
