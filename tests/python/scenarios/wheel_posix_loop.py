# SPDX-License-Identifier: MIT
"""A loop whose data items read a file, for the wheel's test of ``--posix``.

usage: wheel_posix_loop.py FILE STEPS

Each step fetches one batch (``ai.dataloader.fetch``) whose one item
(``ai.data.item``) reads FILE in 64 KiB ``os.read`` calls; run under
``python -m stallwatch.run --posix`` those reads are captured as POSIX regions.
Prints the bytes read and the agent's counters as one JSON line.
"""

import json
import os
import sys

import stallwatch
from stallwatch import ai


def main():
    path, steps = sys.argv[1], int(sys.argv[2])
    total = 0
    for step in range(1, steps + 1):
        ai.update(step=step)
        with ai.dataloader.fetch, ai.data.item:
            fd = os.open(path, os.O_RDONLY)
            try:
                while True:
                    piece = os.read(fd, 64 * 1024)
                    if not piece:
                        break
                    total += len(piece)
            finally:
                os.close(fd)
        with ai.compute.forward:
            sum(range(10000))
    stallwatch.flush(2000)
    print(json.dumps({"bytes_read": total, "stats": stallwatch.stats()}))


if __name__ == "__main__":
    main()
