# SPDX-License-Identifier: MIT
"""GPU-bound training steps, for the device sources' overhead on step time.

A small conv net trains on synthetic batches that already live on the GPU (no
data loading), so the step time is device and launch work only. Steps are
timed in chunks between two torch.cuda.synchronize() calls -- never inside a
chunk, so the sources under test see an undisturbed stream. Prints one JSON
line: {"median_step_ms": ..., "steps": ...}.

    python [-m stallwatch.run --gpu MODE] gpu_train_loop.py [--steps 400]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
from torch import nn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    options = parser.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"error": "no CUDA device"}))
        return 2
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(128 * 16 * 16, 10)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    images = torch.randn(options.batch_size, 3, 64, 64, device="cuda")
    labels = torch.randint(0, 10, (options.batch_size,), device="cuda")

    def step() -> None:
        optimizer.zero_grad()
        criterion(model(images), labels).backward()
        optimizer.step()

    for _ in range(options.warmup):
        step()
    torch.cuda.synchronize()
    chunk_ms = []
    for _ in range(max(1, options.steps // options.chunk)):
        started = time.perf_counter()
        for _ in range(options.chunk):
            step()
        torch.cuda.synchronize()
        chunk_ms.append((time.perf_counter() - started) * 1e3 / options.chunk)
    print(json.dumps({"median_step_ms": statistics.median(chunk_ms),
                      "steps": len(chunk_ms) * options.chunk}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
