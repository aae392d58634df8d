# SPDX-License-Identifier: MIT
"""Shared parts of the data-loader examples: generated data files, the model and
the training loop. Plain PyTorch and NumPy; nothing here knows about stallwatch.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from typing import Iterable, Tuple

import numpy as np
import torch
from torch import nn

IMAGE_SHAPE = (3, 64, 64)
NUM_CLASSES = 10


def default_data_dir() -> str:
    return os.path.join(tempfile.gettempdir(), f"stallwatch-demo-{os.getuid()}")


def add_common_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", default=default_data_dir(),
                        help="where the generated sample files live (created if missing)")
    parser.add_argument("--samples", type=int, default=2048, help="number of sample files")
    parser.add_argument("--seconds", type=float, default=45.0,
                        help="stop training after this many seconds (0: no limit)")
    parser.add_argument("--epochs", type=int, default=1000, help="stop after this many epochs")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda when available")


def sample_path(data_dir: str, index: int) -> str:
    return os.path.join(data_dir, "samples", f"{index:05d}.npy")


def ensure_data(data_dir: str, samples: int) -> np.ndarray:
    """Writes `samples` uint8 images (one .npy file each) and labels.npy once; returns labels."""
    labels_path = os.path.join(data_dir, "labels.npy")
    if os.path.exists(labels_path) and os.path.exists(sample_path(data_dir, samples - 1)):
        labels = np.load(labels_path)
        if len(labels) >= samples:
            return labels[:samples]
    os.makedirs(os.path.join(data_dir, "samples"), exist_ok=True)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, NUM_CLASSES, size=samples)
    yy, xx = np.mgrid[0:IMAGE_SHAPE[1], 0:IMAGE_SHAPE[2]]
    for i, label in enumerate(labels):
        pattern = np.sin((xx * (label + 1) + yy * (i % 7)) / 9.0)
        noise = rng.normal(0.0, 0.3, size=IMAGE_SHAPE)
        image = np.clip((pattern[None] + noise) * 60 + 128, 0, 255).astype(np.uint8)
        np.save(sample_path(data_dir, i), image)
    np.save(labels_path, labels)
    return labels


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 16 * 16, NUM_CLASSES))


def train(loader: Iterable[Tuple[torch.Tensor, torch.Tensor]], model: nn.Module, *,
          seconds: float, epochs: int, device: str, name: str) -> None:
    """Trains until `epochs` or `seconds` run out, printing one line per epoch."""
    model.to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    started = time.monotonic()
    deadline = started + seconds if seconds > 0 else float("inf")
    for epoch in range(epochs):
        epoch_start = time.monotonic()
        seen = 0
        loss = torch.zeros(())
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            seen += len(labels)
            if time.monotonic() >= deadline:
                break
        elapsed = time.monotonic() - epoch_start
        print(f"{name}: epoch {epoch} {seen} samples in {elapsed:.1f}s "
              f"({seen / max(elapsed, 1e-9):.0f} samples/s), loss {loss.item():.3f}", flush=True)
        if time.monotonic() >= deadline:
            break
    print(f"{name}: done after {time.monotonic() - started:.1f}s", flush=True)
