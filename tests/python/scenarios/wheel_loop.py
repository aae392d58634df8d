# SPDX-License-Identifier: MIT
"""A training-shaped loop written with the ``ai`` API only (no PyTorch, no NumPy),
for the wheel's tests on every Python version.

usage: wheel_loop.py STEPS FETCH_MS COMPUTE_MS

Each step is announced (``ai.update(step=...)``), waits FETCH_MS for its batch
(``ai.dataloader.fetch.iter``) and computes for COMPUTE_MS
(``ai.compute.forward``). Announcing before the wait makes the collector count
exactly STEPS steps: it counts step marks, and a fetch that ends before the
first mark as a step of its own. Prints the agent's counters as one JSON line.
"""

import json
import sys
import time

import stallwatch
from stallwatch import ai


def batches(count, seconds):
    for index in range(count):
        time.sleep(seconds)
        yield index


def main():
    steps, fetch_ms, compute_ms = (float(arg) for arg in sys.argv[1:4])
    ai.pipeline.epoch.start(metadata=True)
    loader = iter(ai.dataloader.fetch.iter(batches(int(steps), fetch_ms / 1000.0),
                                           include_block=False))
    for step in range(1, int(steps) + 1):
        ai.update(step=step)
        next(loader)
        with ai.compute.forward:
            time.sleep(compute_ms / 1000.0)
    for _ in loader:
        pass
    ai.pipeline.epoch.stop(metadata=True)
    stallwatch.flush(2000)
    print(json.dumps(stallwatch.stats()))


if __name__ == "__main__":
    main()
