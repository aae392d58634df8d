# SPDX-License-Identifier: MIT
"""Optimizer step regions (``compute/step``) and the ``step`` mark per optimizer step
(and, with CUDA-event spans, a ``gpu/step`` span around the outermost step).

torch >= 2.0 has global optimizer step hooks; torch 1.13 does not, so there
the ``step`` method of each optimizer class is wrapped once: at instrument()
for the classes that exist, and for later ones when their first instance is
constructed (as torch's own profiler hook does).
"""

from __future__ import annotations

import functools
import importlib
import threading
from typing import Any, Callable, List, Tuple

import torch

from stallwatch.torch._state import STATE, TorchState

GROUP = "compute"
_WRAPPED = "_stallwatch_step_wrapped"


class _Opened(threading.local):
    """Per thread: whether each pending pre-hook opened the step region, and the
    token of the CUDA-event span it started (None without one)."""

    def __init__(self) -> None:
        self.stack: List[Tuple[bool, Any]] = []


def optimizer_device(optimizer: Any) -> Any:
    """The device of an optimizer's first parameter: where its step runs."""
    try:
        return optimizer.param_groups[0]["params"][0].device
    except Exception:
        return None


def _install_global_hooks(state: TorchState) -> bool:
    optimizer_mod = importlib.import_module("torch.optim.optimizer")
    register_pre = getattr(optimizer_mod, "register_optimizer_step_pre_hook", None)
    register_post = getattr(optimizer_mod, "register_optimizer_step_post_hook", None)
    if register_pre is None or register_post is None:
        return False
    region = state.step
    opened = _Opened()

    def pre_hook(optimizer: Any, args: Any, kwargs: Any) -> None:
        first = not region.active()
        token = None
        if first:
            spans = state.gpu_spans
            token = spans.enter(optimizer_device(optimizer)) if spans is not None else None
            region.__enter__()
        opened.stack.append((first, token))

    def post_hook(optimizer: Any, args: Any, kwargs: Any) -> None:
        if opened.stack:
            first, token = opened.stack.pop()
            if first:
                region.__exit__(None, None, None)
                spans = state.gpu_spans
                if spans is not None:
                    spans.exit(token, "step")
        state.on_optimizer_step()

    state.hook_handles.append(register_pre(pre_hook))
    state.hook_handles.append(register_post(post_hook))
    return True


def _wrap_step(step: Callable[..., Any], state: TorchState) -> Callable[..., Any]:
    region = state.step

    @functools.wraps(step)
    def traced_step(self: Any, *args: Any, **kwargs: Any) -> Any:
        spans = state.gpu_spans
        if region.active():
            result = step(self, *args, **kwargs)
        elif spans is None:
            with region:
                result = step(self, *args, **kwargs)
        else:
            token = spans.enter(optimizer_device(self))
            try:
                with region:
                    result = step(self, *args, **kwargs)
            finally:
                spans.exit(token, "step")
        state.on_optimizer_step()
        return result

    setattr(traced_step, _WRAPPED, True)
    return traced_step


def _wrap_class(cls: type, state: TorchState) -> None:
    step = getattr(cls, "step", None)
    if step is not None and not getattr(step, _WRAPPED, False):
        state.patch(cls, "step", _wrap_step(step, state), GROUP)


def _subclasses(cls: type) -> List[type]:
    found: List[type] = []
    pending = list(cls.__subclasses__())
    while pending:
        sub = pending.pop()
        if sub not in found:
            found.append(sub)
            pending.extend(sub.__subclasses__())
    return found


def _install_class_patch(state: TorchState) -> None:
    optimizer_cls = torch.optim.Optimizer
    original_init = optimizer_cls.__init__

    @functools.wraps(original_init)
    def traced_init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        _wrap_class(type(self), state)

    for cls in _subclasses(optimizer_cls):
        if "step" in vars(cls):
            _wrap_class(cls, state)
    state.patch(optimizer_cls, "__init__", traced_init, GROUP)


def install_optimizer(state: TorchState = STATE) -> None:
    if not _install_global_hooks(state):
        _install_class_patch(state)


def remove_hooks(state: TorchState = STATE) -> None:
    for handle in state.hook_handles:
        handle.remove()
    state.hook_handles.clear()
