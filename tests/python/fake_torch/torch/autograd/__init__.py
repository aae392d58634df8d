# SPDX-License-Identifier: MIT
"""torch.autograd.backward: what Tensor.backward calls (through this module's attribute)."""


def backward(tensors, grad_tensors=None):
    return None
