# SPDX-License-Identifier: MIT
"""An ``ai`` API loop with no epoch marker at all: only the fetch iterator and
``ai.update(step=...)``, over LOOPS passes of BATCHES batches. With
``--generator`` the batches come from a generator function decorated with
``@ai.dataloader.fetch`` (as in pydftracer's own AI test), whose call is a
region of its own. With ``--epochs-only`` each pass is an epoch marked by
``ai.pipeline.epoch.start/stop(metadata=True)`` and no step is marked at all.

usage: ai_fetch_loop.py LOOPS BATCHES [--generator] [--epochs-only]
"""

import sys
import time

import stallwatch
from stallwatch import ai


@ai.compute
def train_step(batch):
    time.sleep(0.002)
    return sum(batch)


@ai.dataloader.fetch
def batch_generator(batches):
    for i in range(batches):
        yield [i, i + 1]


def main():
    loops, batches = int(sys.argv[1]), int(sys.argv[2])
    generator = "--generator" in sys.argv[3:]
    epochs_only = "--epochs-only" in sys.argv[3:]
    for _ in range(loops):
        if epochs_only:
            ai.pipeline.epoch.start(metadata=True)
        source = batch_generator(batches) if generator else ([i, i + 1] for i in range(batches))
        for step, batch in ai.dataloader.fetch.iter(enumerate(source)):
            train_step(batch)
            if not epochs_only:
                ai.update(step=step)
        if epochs_only:
            ai.pipeline.epoch.stop(metadata=True)
    stallwatch.flush(2000)


if __name__ == "__main__":
    main()
