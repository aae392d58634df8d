# SPDX-License-Identifier: MIT
"""Forward and backward regions: ``torch.nn.Module.__call__`` and ``Tensor.backward``.

Only the outermost module call on a thread becomes a ``compute/forward``
region (the model, and a loss module called on its own); submodule calls pass
straight through after one C-level check. Module calls made while the thread
waits in a DataLoader fetch (transforms written as modules) are not compute
and are not recorded. Under ``torch.compile`` tracing the wrapper is
transparent, so it never causes a graph break. While the device source is
CUDA events (``state.gpu_spans``), the outermost forward and backward also
record ``gpu/forward`` and ``gpu/backward`` spans (torch/_cuda.py) on the
device of the module's parameters or of the tensor backward starts from.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

from stallwatch.torch._state import STATE, TorchState

GROUP = "compute"


def _compiling_probe() -> Optional[Callable[[], bool]]:
    compiler = getattr(torch, "compiler", None)
    probe = getattr(compiler, "is_compiling", None)
    if probe is None:
        dynamo = getattr(torch, "_dynamo", None)
        probe = getattr(dynamo, "is_compiling", None) if dynamo is not None else None
    return probe


def module_device(module: Any) -> Any:
    """The device of a module's first parameter (or buffer): where its forward runs."""
    try:
        for tensor in module.parameters():
            return tensor.device
        for tensor in module.buffers():
            return tensor.device
    except Exception:
        pass
    return None


def tensors_device(tensors: Any) -> Any:
    """The device of a tensor, or of the first tensor of a sequence."""
    if isinstance(tensors, torch.Tensor):
        return tensors.device
    if isinstance(tensors, (list, tuple)) and tensors and isinstance(tensors[0], torch.Tensor):
        return tensors[0].device
    return None


def install_forward(state: TorchState = STATE) -> None:
    module_cls = torch.nn.Module
    original = module_cls.__call__
    forward = state.forward
    fetch = state.fetch
    is_compiling = _compiling_probe()

    def outermost(self: torch.nn.Module, args: Any, kwargs: Any) -> Any:
        spans = state.gpu_spans
        if spans is None:
            with forward:
                return original(self, *args, **kwargs)
        token = spans.enter(module_device(self))
        try:
            with forward:
                return original(self, *args, **kwargs)
        finally:
            spans.exit(token, "forward")

    if is_compiling is None:

        def __call__(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
            if forward.active() or fetch.active():
                return original(self, *args, **kwargs)
            return outermost(self, args, kwargs)

    else:
        compiling: Callable[[], bool] = is_compiling

        def __call__(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
            # Submodule calls (the common case) stop at the first native check.
            if forward.active() or fetch.active() or compiling():
                return original(self, *args, **kwargs)
            return outermost(self, args, kwargs)

    state.patch(module_cls, "__call__", __call__, GROUP)


def install_backward(state: TorchState = STATE) -> None:
    backward = state.backward
    tensor_backward = torch.Tensor.backward
    autograd_backward = torch.autograd.backward

    def outermost(run: Any, args: Any, kwargs: Any) -> Any:
        spans = state.gpu_spans
        if spans is None:
            with backward:
                return run(*args, **kwargs)
        token = spans.enter(tensors_device(args[0]) if args else None)
        try:
            with backward:
                return run(*args, **kwargs)
        finally:
            spans.exit(token, "backward")

    def traced_tensor_backward(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if backward.active():
            return tensor_backward(self, *args, **kwargs)
        return outermost(tensor_backward, (self,) + args, kwargs)

    def traced_autograd_backward(*args: Any, **kwargs: Any) -> Any:
        if backward.active():
            return autograd_backward(*args, **kwargs)
        return outermost(autograd_backward, args, kwargs)

    traced_tensor_backward.__doc__ = tensor_backward.__doc__
    traced_autograd_backward.__doc__ = autograd_backward.__doc__
    state.patch(torch.Tensor, "backward", traced_tensor_backward, GROUP)
    state.patch(torch.autograd, "backward", traced_autograd_backward, GROUP)


def install_transfer(state: TorchState = STATE) -> None:
    """Opt-in: ``Tensor.to(device)`` to another device becomes ``device/transfer``."""
    transfer = state.transfer
    tensor_to = torch.Tensor.to

    def traced_to(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        target = kwargs.get("device", args[0] if args else None)
        if not isinstance(target, (torch.device, str)) or transfer.active():
            return tensor_to(self, *args, **kwargs)
        if torch.device(target).type == self.device.type:
            return tensor_to(self, *args, **kwargs)
        with transfer:
            return tensor_to(self, *args, **kwargs)

    traced_to.__doc__ = tensor_to.__doc__
    state.patch(torch.Tensor, "to", traced_to, GROUP)
