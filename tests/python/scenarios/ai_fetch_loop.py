# SPDX-License-Identifier: MIT
"""An ``ai`` API loop with no epoch marker at all: only the fetch iterator and
``ai.update(step=...)``, over LOOPS passes of BATCHES batches.

usage: ai_fetch_loop.py LOOPS BATCHES
"""

import sys
import time

import stallwatch
from stallwatch import ai


@ai.compute
def train_step(batch):
    time.sleep(0.002)
    return sum(batch)


def main():
    loops, batches = int(sys.argv[1]), int(sys.argv[2])
    for _ in range(loops):
        for step, batch in ai.dataloader.fetch.iter(enumerate([i, i + 1] for i in range(batches))):
            train_step(batch)
            ai.update(step=step)
    stallwatch.flush(2000)


if __name__ == "__main__":
    main()
