# SPDX-License-Identifier: MIT
"""Zero-code PyTorch instrumentation: ``instrument()`` or ``python -m stallwatch.run``.

What it records, with no change to the training script:

===========================================  ====================================
where                                        what (category / name)
===========================================  ====================================
``next()`` on a DataLoader iterator          region ``dataloader/fetch.iter`` on
                                             the iterating thread (FETCH), then
                                             COUNTER ``pipeline/batch_size``
each ``iter(loader)`` of the first loader    MARK ``pipeline/epoch.start`` and,
iterated in the process                      when it runs out, ``epoch.end``
the outermost ``nn.Module`` call             region ``compute/forward``
``Tensor.backward`` / ``autograd.backward``  region ``compute/backward``
``optimizer.step()``                         region ``compute/step`` and MARK
                                             ``pipeline/step`` (1, 2, ...); with
                                             no optimizer, one step per batch
dataset ``__getitem__``                      region ``data/item`` in workers
                                             (in-process with num_workers=0 only
                                             with ``inline_items=True``)
``torch.distributed`` collectives and      region ``comm/<function>`` on the
point-to-point calls                         calling thread (async work: on the
                                             thread that waits), bytes on END
DDP gradient buckets                         region ``comm/all_reduce`` from
                                             bucket ready to reduced (a comm
                                             hook around torch's default one)
``Tensor.to(other device)`` (opt-in)         region ``device/transfer``
the GPU (``gpu=``, default ``auto``)         CUPTI: every kernel, memcpy and
                                             memset as ``gpu`` complete events
                                             per stream; else CUDA-event spans
                                             ``gpu/forward``, ``gpu/backward``,
                                             ``gpu/step``; NVML counters
                                             ``gpu_counters/nvml.*`` alongside
===========================================  ====================================

The regions are nodes of :data:`stallwatch.ai`, so ``ai.compute.disable()``
silences the zero-code forward too, and an explicit ``with ai.compute.forward:``
around a model call is not recorded twice. Workers (fork, spawn, forkserver)
report as role ``worker`` of the same (job, rank). Nothing here raises into
the training script: a failure to instrument leaves that part uninstrumented.
"""

from __future__ import annotations

import warnings

from typing import Optional

from stallwatch import _agent
from stallwatch.torch._state import STATE

__all__ = ["device_source", "instrument", "instrumented", "uninstrument"]


def instrument(*, dataloader: bool = True, forward: bool = True, backward: bool = True,
               optimizer: bool = True, workers: bool = True, items: bool = True,
               inline_items: bool = False, transfer: bool = False,
               gpu: Optional[str] = None, distributed: bool = True) -> bool:
    """Instruments PyTorch in this process (idempotent); True when anything was installed.

    `workers`: instrument data-loader worker processes; `items`: there, record
    the dataset's ``__getitem__`` as ``data/item`` regions; `inline_items`:
    record them in this process too when num_workers=0 (they then nest inside
    the fetch wait, which already counts that time; about 0.3 us per item).
    `distributed`: record torch.distributed calls and DDP buckets as ``comm``
    regions (torch/_distributed.py).
    `gpu`: the device-busy source -- ``auto`` (CUPTI, else CUDA-event spans
    when PyTorch has a CUDA device, else none), ``cupti``, ``cuda-events``,
    ``nvml``, ``none``, or a comma-separated preference list; None reads
    ``STALLWATCH_GPU``, default ``auto`` (agent/gpu/README.md). A source that
    cannot start falls back, with one line on stderr saying why.
    Does nothing when ``STALLWATCH_ENABLE=0`` or the native agent is missing.
    """
    if _agent.switched_off():
        return False
    try:
        from stallwatch.torch import _dataloader, _distributed, _modules, _optim
    except Exception as exc:
        warnings.warn(f"stallwatch: PyTorch instrumentation unavailable: {exc}", stacklevel=2)
        return False
    steps = (
        (dataloader, "data",
         lambda: _dataloader.install_dataloader(STATE, workers=workers, items=items,
                                                inline_items=inline_items)),
        (forward, "forward", lambda: _modules.install_forward(STATE)),
        (backward, "backward", lambda: _modules.install_backward(STATE)),
        (optimizer, "optimizer", lambda: _optim.install_optimizer(STATE)),
        (transfer, "transfer", lambda: _modules.install_transfer(STATE)),
        (distributed, "distributed", lambda: _distributed.install_distributed(STATE)),
    )
    installed = False
    for wanted, what, install in steps:
        if not wanted or what in STATE.installed:
            continue
        try:
            install()
            STATE.installed.add(what)
            installed = True
        except Exception as exc:
            warnings.warn(f"stallwatch: could not instrument {what}: {exc}", stacklevel=2)
    if not STATE.gpu_started:
        try:
            from stallwatch.torch import _cuda

            STATE.gpu_started = True
            _cuda.start_gpu(STATE, gpu)
        except Exception as exc:
            warnings.warn(f"stallwatch: GPU activity unavailable: {exc}", stacklevel=2)
    return installed


def device_source() -> str:
    """The device-busy source in force: ``cupti``, ``cuda-events``, ``nvml`` or ``none``."""
    return str(_agent.gpu_stats().get("source", "none"))


def instrumented() -> frozenset:
    """What is instrumented now: a subset of data, forward, backward, optimizer, transfer,
    distributed."""
    return frozenset(STATE.installed)


def uninstrument() -> None:
    """Undoes :func:`instrument`, including dataset classes patched for item regions."""
    from stallwatch.torch import _cuda, _optim

    if STATE.gpu_started:
        STATE.gpu_started = False
        _cuda.stop_gpu(STATE)
    _optim.remove_hooks(STATE)
    STATE.undo(("compute", "data", "items", "comm"))
    STATE.installed.clear()
    STATE.reset_counters()
