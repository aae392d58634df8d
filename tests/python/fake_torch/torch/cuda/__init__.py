# SPDX-License-Identifier: MIT
"""No CUDA device, as on a CPU machine."""


def is_available():
    return False


def is_initialized():
    return False
