# SPDX-License-Identifier: MIT
"""A fake PyTorch 2.x: just the APIs stallwatch.torch uses, with 2.x's behaviour.

The tests put this folder first on PYTHONPATH to run stallwatch.torch's
branches for PyTorch >= 2.0 (global optimizer step hooks, torch.compiler) where
the installed PyTorch is 1.13, and on Python versions that have no PyTorch.
FAKE_TORCH_VERSION=2.0 leaves out torch.compiler (2.1+), so the compile probe
falls back to torch._dynamo.is_compiling as on 2.0. Tensors hold Python floats;
there is no autograd: backward() only calls torch.autograd.backward as the
real one does.
"""

import os

__version__ = os.environ.get("FAKE_TORCH_VERSION", "2.4") + ".0+fake"


class device:  # noqa: N801 - PyTorch's name
    def __init__(self, spec="cpu"):
        self.type = spec.type if isinstance(spec, device) else str(spec).split(":")[0]
        self.index = None

    def __repr__(self):
        return f"device(type='{self.type}')"


class Tensor:
    def __init__(self, values, shape=None, on="cpu"):
        self.values = [float(v) for v in values]
        self.shape = tuple(shape) if shape is not None else (len(self.values),)
        self.device = device(on)
        self.grad = None

    def dim(self):
        return len(self.shape)

    def sum(self):
        return Tensor([sum(self.values)], shape=())

    def __mul__(self, other):
        factor = other.values[0] if isinstance(other, Tensor) else float(other)
        return Tensor([v * factor for v in self.values], self.shape, self.device)

    def item(self):
        return self.values[0]

    def backward(self, gradient=None):
        autograd.backward(self, gradient)

    def to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if isinstance(target, (str, device)):
            return Tensor(self.values, self.shape, device(target))
        return self


def ones(*shape):
    count = 1
    for size in shape:
        count *= size
    return Tensor([1.0] * count, shape)


def stack(tensors):
    values = [v for t in tensors for v in t.values]
    return Tensor(values, (len(tensors),) + tensors[0].shape)


from torch import _dynamo, autograd, cuda, nn, optim, utils  # noqa: E402,F401

if not __version__.startswith("2.0"):
    from torch import compiler  # noqa: E402,F401
