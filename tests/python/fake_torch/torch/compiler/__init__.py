# SPDX-License-Identifier: MIT
"""torch.compiler.is_compiling (PyTorch >= 2.1)."""

from torch._dynamo import is_compiling, tracing

__all__ = ["is_compiling", "tracing"]
