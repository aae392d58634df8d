# SPDX-License-Identifier: MIT
"""A small training loop on PyTorch's public API only, for both the real PyTorch
and the fake 2.x one (tests/python/fake_torch): the events stallwatch.torch
records from it must not depend on which of its version branches ran.

usage: torch_versions_train.py [--epochs N] [--batches N] [--fetch-ms N] [--compute-ms N]

Per batch: a dataset whose items take --fetch-ms in total, a model whose
forward takes --compute-ms, backward, an optimizer step. With the fake PyTorch
the model is also called once per epoch while torch.compile would be tracing
it (torch._dynamo.tracing(), the fake's): that call is not compute. Prints one JSON line: PyTorch's version and how
stallwatch instrumented the optimizer.
"""

import argparse
import json
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset

BATCH_SIZE = 4


class SlowItems(Dataset):
    def __init__(self, count, seconds_per_item):
        self.count = count
        self.seconds_per_item = seconds_per_item

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        time.sleep(self.seconds_per_item)
        return torch.ones(3)


class Model(torch.nn.Module):
    def __init__(self, seconds):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(3))
        self.seconds = seconds

    def forward(self, batch):
        time.sleep(self.seconds)
        return (batch * self.weight).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--fetch-ms", type=float, default=20.0)
    parser.add_argument("--compute-ms", type=float, default=10.0)
    args = parser.parse_args()

    data = SlowItems(args.batches * BATCH_SIZE, args.fetch_ms / 1000.0 / BATCH_SIZE)
    model = Model(args.compute_ms / 1000.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    tracing = getattr(getattr(torch, "_dynamo", None), "tracing", None)
    for _ in range(args.epochs):
        for batch in DataLoader(data, batch_size=BATCH_SIZE):
            optimizer.zero_grad()
            loss = model(batch)
            loss.backward()
            optimizer.step()
        if tracing is not None:
            with tracing():
                model(torch.ones(1, 3))

    state = sys.modules.get("stallwatch.torch._state")
    print(json.dumps({
        "torch": torch.__version__,
        "optimizer_hooks": len(state.STATE.hook_handles) if state else None,
        "optimizer_step_patched": bool(state and any(
            p.attr == "step" for p in state.STATE.patches)),
    }))


if __name__ == "__main__":
    main()
