# SPDX-License-Identifier: MIT
"""torch.nn.Module and Parameter: __call__ runs forward (PyTorch's _call_impl, without hooks)."""

from torch import Tensor


class Parameter(Tensor):
    def __init__(self, data):
        super().__init__(data.values, data.shape)


class Module:
    def __init__(self):
        self._parameters = {}
        self._modules = {}

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self.__dict__.setdefault("_parameters", {})[name] = value
        elif isinstance(value, Module):
            self.__dict__.setdefault("_modules", {})[name] = value
        object.__setattr__(self, name, value)

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def parameters(self):
        for parameter in self._parameters.values():
            yield parameter
        for module in self._modules.values():
            yield from module.parameters()
