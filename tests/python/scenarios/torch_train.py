# SPDX-License-Identifier: MIT
"""A small PyTorch CPU training script with no stallwatch code in it.

Run under ``python -m stallwatch.run`` by the zero-code tests. Prints its
sys.argv as JSON, trains, and exits with --exit-code.
"""

import argparse
import json
import multiprocessing
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, n, transform=None):
        self.n = n
        self.transform = transform

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        x = torch.full((8,), float(index))
        if self.transform is not None:
            x = self.transform(x)
        return x, index % 4


def record_worker(worker_id):
    torch.manual_seed(worker_id)


def main():
    print(json.dumps(sys.argv), flush=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--start-method", default=None)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--no-optimizer", action="store_true")
    parser.add_argument("--loss-module", action="store_true")
    parser.add_argument("--transform-module", action="store_true")
    parser.add_argument("--eval-loader", action="store_true")
    parser.add_argument("--user-worker-init", action="store_true")
    parser.add_argument("--exit-code", type=int, default=0)
    args = parser.parse_args()

    transform = torch.nn.Identity() if args.transform_module else None
    dataset = Squares(args.batches * args.batch_size, transform)
    context = multiprocessing.get_context(args.start_method) if args.start_method else None
    loader = DataLoader(dataset, batch_size=args.batch_size, num_workers=args.workers,
                        multiprocessing_context=context if args.workers else None,
                        worker_init_fn=record_worker if args.user_worker_init else None)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = None if args.no_optimizer else torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss() if args.loss_module else None
    for _ in range(args.epochs):
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y) if criterion is not None else F.cross_entropy(out, y)
            if optimizer is not None:
                optimizer.zero_grad()
            loss.backward()
            if optimizer is not None:
                optimizer.step()
        if args.eval_loader:
            with torch.no_grad():
                for x, _ in DataLoader(dataset, batch_size=args.batch_size):
                    model(x)
    sys.exit(args.exit_code)


if __name__ == "__main__":
    main()
