# SPDX-License-Identifier: MIT
"""torch._dynamo.is_compiling (PyTorch 2.0; later versions keep it). `tracing()` makes
it true, as while torch.compile traces a model."""

import contextlib

_state = {"compiling": False}


def is_compiling():
    return _state["compiling"]


@contextlib.contextmanager
def tracing():
    _state["compiling"] = True
    try:
        yield
    finally:
        _state["compiling"] = False
