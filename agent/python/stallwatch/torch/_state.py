# SPDX-License-Identifier: MIT
"""Process-wide state of the zero-code PyTorch instrumentation.

One TorchState per process (``STATE``). It holds the regions used (nodes of
the ``ai`` tree, so ``ai.compute.disable()`` also silences the zero-code
forward), the step/epoch counters that become marks, and the patches applied,
so that they can be undone -- all of them by ``uninstrument()``, or only the
compute ones in a data-loader worker. Mutated under the GIL only.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, List, Optional, Set, Tuple

from stallwatch import _agent
from stallwatch._ai import BATCH_SIZE_COUNTER, PIPELINE_CAT, STEP_MARK, ai

EPOCH_START_MARK = "epoch.start"
EPOCH_END_MARK = "epoch.end"
# Batches between two batch-size samples when the size does not change.
BATCH_SIZE_REPEAT = 64


class Patch:
    """One attribute replaced on a class or module, and how to put it back."""

    __slots__ = ("owner", "attr", "original", "had_own", "group")

    def __init__(self, owner: Any, attr: str, original: Any, had_own: bool, group: str) -> None:
        self.owner = owner
        self.attr = attr
        self.original = original
        self.had_own = had_own
        self.group = group

    def undo(self) -> None:
        if self.had_own:
            setattr(self.owner, self.attr, self.original)
        else:
            try:
                delattr(self.owner, self.attr)
            except AttributeError:
                pass


class TorchState:
    """Regions, counters and patches of the zero-code instrumentation."""

    def __init__(self) -> None:
        self.fetch = ai.dataloader.fetch.derive("iter")
        self.forward = ai.compute.forward
        self.backward = ai.compute.backward
        self.step = ai.compute.step
        self.item = ai.data.item
        self.transfer = ai.device.transfer
        self.patches: List[Patch] = []
        self.hook_handles: List[Any] = []
        self.installed: Set[str] = set()
        self.in_worker = False
        # The GPU session (torch/_cuda.py), and its CUDA-event spans while the
        # device source is cuda-events.
        self.gpu_started = False
        self.gpu_spans: Optional[Any] = None
        self.gpu_stop_registered = False
        self.reset_counters()

    def reset_counters(self) -> None:
        self.steps = 0
        self.optimizer_steps = 0
        self.batches = 0
        self.batch_pending = False
        self.batch_size: Optional[int] = None
        self.batches_since_size = 0
        self.epoch = -1
        self.epoch_open = False
        self.primary_loader: Optional[Callable[[], Any]] = None

    def patch(self, owner: Any, attr: str, new: Any, group: str) -> None:
        had_own = attr in vars(owner)
        original = vars(owner)[attr] if had_own else getattr(owner, attr)
        setattr(owner, attr, new)
        self.patches.append(Patch(owner, attr, original, had_own, group))

    def undo(self, groups: Tuple[str, ...]) -> None:
        for patch in reversed([p for p in self.patches if p.group in groups]):
            patch.undo()
        self.patches = [p for p in self.patches if p.group not in groups]

    def patched(self, group: str) -> bool:
        return any(p.group == group for p in self.patches)

    def count_step(self) -> None:
        self.steps += 1
        _agent.mark(PIPELINE_CAT, STEP_MARK, self.steps)

    def on_optimizer_step(self) -> None:
        self.optimizer_steps += 1
        self.count_step()

    def on_batch_done(self) -> None:
        """A batch was consumed (next fetch or end of epoch): a step if no optimizer runs."""
        if self.batch_pending and self.optimizer_steps == 0:
            self.count_step()
        self.batch_pending = False

    def on_batch(self, batch_size: Optional[int]) -> None:
        self.on_batch_done()
        self.batches += 1
        self.batch_pending = True
        # The collector keeps the latest sample, so one per change is exact;
        # the periodic repeat lets a restarted collector learn it again.
        self.batches_since_size += 1
        if batch_size is not None and (batch_size != self.batch_size or
                                       self.batches_since_size >= BATCH_SIZE_REPEAT):
            self.batch_size = batch_size
            self.batches_since_size = 0
            _agent.counter(PIPELINE_CAT, BATCH_SIZE_COUNTER, batch_size)

    def is_primary(self, loader: Any) -> bool:
        primary = self.primary_loader
        if primary is None or primary() is None:
            primary = weakref.ref(loader)
            self.primary_loader = primary
        return primary() is loader

    def on_epoch_start(self) -> int:
        if self.epoch_open:
            _agent.mark(PIPELINE_CAT, EPOCH_END_MARK, self.epoch)
        self.epoch += 1
        self.epoch_open = True
        _agent.mark(PIPELINE_CAT, EPOCH_START_MARK, self.epoch)
        return self.epoch

    def on_epoch_end(self, epoch: int) -> None:
        if self.epoch_open and epoch == self.epoch:
            self.epoch_open = False
            _agent.mark(PIPELINE_CAT, EPOCH_END_MARK, epoch)


STATE = TorchState()
