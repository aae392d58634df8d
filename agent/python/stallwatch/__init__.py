# SPDX-License-Identifier: MIT
"""stallwatch: is the accelerator waiting for data, and why? -- the Python agent.

Mark regions in a training process; the C agent (libstallwatch) records them
and streams them to ``stallwatchd``. Three ways in:

* ``from stallwatch import ai`` -- pydftracer's AI logging API with the same
  tree and names (``ai.compute.forward``, ``ai.dataloader.fetch.iter(...)``,
  ``ai.pipeline.epoch.start(metadata=True)``, ``ai.update(step=...)``, ...),
  but thread-safe and re-entrant.
* ``stallwatch.dft_fn`` / ``stallwatch.dftracer`` -- pydftracer's function-level
  API; :func:`install_dftracer_alias` (or ``STALLWATCH_DFTRACER_ALIAS=1``) makes
  ``from dftracer.python import ai, dft_fn`` resolve here when dftracer itself
  is not installed.
* ``python -m stallwatch.run script.py args...`` or
  ``stallwatch.torch.instrument()`` -- zero-code PyTorch instrumentation.

How pydftracer events map to the stallwatch wire (which has regions, marks
and counters but no per-event arguments):

=====================================  =========================================
pydftracer                             stallwatch
=====================================  =========================================
complete event of a context manager,   one region (BEGIN/END pair, open while it
decorator, ``start()``/``stop()``,     runs), same ``cat`` and ``name``
``<name>.block`` of ``iter()``
``<name>.iter`` wait of ``iter()``     one region, open while the loop waits (a
                                       stuck loader shows as stuck); the wait
                                       that ends the loop is a region too, its
                                       END marked END_LOOP_EXHAUSTED (value 1),
                                       since pydftracer records no event for it
metadata event of ``start/stop(        MARK ``<name>.start`` / ``<name>.end``
metadata=True)``                       (value: 0-based count of the node's
                                       metadata starts, i.e. the epoch index for
                                       ``pipeline.epoch``)
``step`` argument set by ``update(     MARK ``pipeline/step`` with the step, once
step=)``                               per ``update`` call (the collector counts
                                       steps with it)
``args={"batch_size": n}`` of          COUNTER ``pipeline/batch_size`` = n
``update``                             (samples per step)
other arguments (epoch, image_idx,     kept on the node (``node.arguments``) for
image_size, count, args)               API compatibility; not sent
=====================================  =========================================

Hence a pydftracer trace with N AI events corresponds to exactly N regions and
``.start``/``.end`` marks here (not counting loop-ending waits), plus one
``step`` mark per ``update(step=)``.
A decorator given ``enable=False`` never records; otherwise the node's enabled
state is read at each call (pydftracer freezes it when decorating).

GPU activity: :func:`gpu_start` picks a device-busy source (CUPTI, CUDA
events, NVML counters; ``stallwatch.torch.instrument(gpu=...)`` does it for
PyTorch), :func:`gpu_stats` says which one runs and why.

Environment: ``STALLWATCH_COLLECTOR`` (endpoint), ``STALLWATCH_JOB``,
``STALLWATCH_RANK`` (fixed at import, see :mod:`stallwatch._identity`, and
inherited by child processes), ``STALLWATCH_ENABLE=0`` (everything becomes a
no-op; nothing raises).
"""

from __future__ import annotations

from stallwatch import _identity

_identity.ensure_identity()

from stallwatch import _agent  # noqa: E402
from stallwatch._agent import (  # noqa: E402
    DISABLED,
    DROPPED,
    OK,
    Region,
    flush,
    gpu_start,
    gpu_stats,
    gpu_stop,
    is_enabled,
    load_error,
    now_ns,
    start,
    stats,
    stop,
    strerror,
)
from stallwatch._ai import (  # noqa: E402
    AI,
    CheckpointEvent,
    CommunicationEvent,
    ComputeEvent,
    DataEvent,
    DataLoaderEvent,
    DeviceEvent,
    DFTracerAI,
    PipelineEvent,
    ProfileCategory,
    ai,
    checkpoint,
    comm,
    compute,
    data,
    dataloader,
    device,
    pipeline,
)
from stallwatch.dftracer_alias import install as install_dftracer_alias  # noqa: E402
from stallwatch.dftracer_compat import DFTRACER_ENABLE, dft_fn, dftracer  # noqa: E402

__version__ = "0.1.0"


def mark(cat: str, name: str, value: int) -> None:
    """Records an instant now, e.g. ``mark("pipeline", "epoch.start", 3)``."""
    _agent.mark(cat, name, value)


def counter(cat: str, name: str, value: float) -> None:
    """Records a counter sample now, e.g. ``counter("pipeline", "batch_size", 256)``."""
    _agent.counter(cat, name, value)


__all__ = [
    "AI", "CheckpointEvent", "CommunicationEvent", "ComputeEvent", "DFTRACER_ENABLE",
    "DFTracerAI", "DISABLED", "DROPPED", "DataEvent", "DataLoaderEvent", "DeviceEvent", "OK",
    "PipelineEvent", "ProfileCategory", "Region", "ai", "checkpoint", "comm", "compute",
    "counter", "data", "dataloader", "device", "dft_fn", "dftracer", "flush", "gpu_start",
    "gpu_stats", "gpu_stop", "install_dftracer_alias", "is_enabled", "load_error", "mark",
    "now_ns", "pipeline", "start", "stats", "stop", "strerror",
]
