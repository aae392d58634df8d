# SPDX-License-Identifier: MIT
"""A data-parallel job with one straggler: who holds the job back?

Launches ``--ranks`` processes of a ``torch.distributed`` DDP job over gloo
(CPU) on this machine, each under ``python -m stallwatch.run`` (zero-code:
the DataLoader, forward/backward/step and DDP's gradient all-reduce are
recorded with no change to the training code below). One rank can be made
slow in its data loading (``--slow-loader RANK``: each batch takes
``--delay`` seconds more to load) or in host-side work outside the model
(``--slow-host RANK``: ``--delay`` seconds of Python work per step). Every
rank then trains at the pace of the slowest, and stallwatchd names it:

    stallwatchd &
    python examples/ddp_straggler.py --job ddp-demo --slow-loader 3
    curl -s localhost:8787/api/v1/jobs/ddp-demo | python3 -m json.tool

Needs PyTorch with torch.distributed (gloo); no GPU.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from typing import List


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--delay", type=float, default=0.1,
                   help="extra seconds per step of the slow rank")
    p.add_argument("--fetch", type=float, default=0.01,
                   help="seconds every rank takes to load a batch")
    p.add_argument("--slow-loader", type=int, default=-1, metavar="RANK")
    p.add_argument("--slow-host", type=int, default=-1, metavar="RANK")
    p.add_argument("--job", default="ddp-straggler")
    p.add_argument("--rank", type=int, default=-1, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(args: argparse.Namespace, argv: List[str]) -> int:
    port = free_port()
    procs = []
    for rank in range(args.ranks):
        env = dict(os.environ, STALLWATCH_JOB=args.job, RANK=str(rank),
                   WORLD_SIZE=str(args.ranks), OMP_NUM_THREADS="1")
        cmd = [sys.executable, "-m", "stallwatch.run", os.path.abspath(__file__), *argv,
               "--rank", str(rank), "--port", str(port)]
        procs.append(subprocess.Popen(cmd, env=env))
    return max(p.wait() for p in procs)


def train(args: argparse.Namespace) -> None:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}",
                            rank=args.rank, world_size=args.ranks)
    fetch = args.fetch + (args.delay if args.rank == args.slow_loader else 0.0)

    class Samples(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return args.steps * args.batch_size

        def __getitem__(self, i: int):
            time.sleep(fetch / args.batch_size)  # reading and decoding the sample
            return torch.full((32,), float(i % 7)), torch.tensor(float(i % 3))

    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Samples(), batch_size=args.batch_size)
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x).squeeze(1), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if args.rank == args.slow_host:
            end = time.perf_counter() + args.delay  # host-side work outside the model
            while time.perf_counter() < end:
                pass
    dist.barrier()
    dist.destroy_process_group()


def main() -> int:
    argv = sys.argv[1:]
    args = parse_args(argv)
    if args.rank < 0:
        return launch(args, argv)
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
