# SPDX-License-Identifier: MIT
"""torch.optim.optimizer as of PyTorch 2.x: global step pre/post hooks, and each
Optimizer subclass's step wrapped once (profile_hook_step) to run them."""

import functools
from collections import OrderedDict
from itertools import chain

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class RemovableHandle:
    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict = hooks_dict
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        self.hooks_dict.pop(self.id, None)


def register_optimizer_step_pre_hook(hook):
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.param_groups = [dict(defaults, params=list(params))]
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._patch_step_function()

    def _patch_step_function(self):
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                                  self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(),
                                   _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def zero_grad(self, set_to_none=True):
        return None

    def step(self, closure=None):
        raise NotImplementedError
