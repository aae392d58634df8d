# SPDX-License-Identifier: MIT
from torch.optim.optimizer import Optimizer
from torch.optim.sgd import SGD

__all__ = ["Optimizer", "SGD"]
