# SPDX-License-Identifier: MIT
"""Job and rank identity (docs/design.md, "Identity and time"), fixed once per process tree.

The job id is ``STALLWATCH_JOB``, else ``TORCHELASTIC_RUN_ID``, else
``SLURM_JOB_ID``, else ``<host>-<pid>`` of the first process that imports
stallwatch (the rank-0 training process when nothing else set it). The rank is
``STALLWATCH_RANK``, else ``RANK``, else 0. Both are written back to the
environment so that data-loader workers and any other child process, forked or
spawned, report under the same (job, rank).
"""

from __future__ import annotations

import os
import socket
from typing import MutableMapping, Tuple

_JOB_SOURCES = ("STALLWATCH_JOB", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID")
_RANK_SOURCES = ("STALLWATCH_RANK", "RANK")


def choose_job(environ: MutableMapping[str, str]) -> str:
    """Returns the job id the environment names, or ``<host>-<pid>``."""
    for key in _JOB_SOURCES:
        value = environ.get(key, "").strip()
        if value:
            return value
    return f"{socket.gethostname()}-{os.getpid()}"


def choose_rank(environ: MutableMapping[str, str]) -> int:
    """Returns the rank the environment names, or 0."""
    for key in _RANK_SOURCES:
        value = environ.get(key, "").strip()
        if value:
            try:
                return int(value)
            except ValueError:
                continue
    return 0


def ensure_identity(environ: MutableMapping[str, str] = os.environ) -> Tuple[str, int]:
    """Fixes STALLWATCH_JOB and STALLWATCH_RANK in `environ` and returns them."""
    job = choose_job(environ)
    rank = choose_rank(environ)
    environ["STALLWATCH_JOB"] = job
    environ["STALLWATCH_RANK"] = str(rank)
    return job, rank
