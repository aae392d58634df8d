# SPDX-License-Identifier: MIT
"""Writes execution_graph.json: PyTorch 1.13's ExecutionGraphObserver (the
older name of ExecutionTraceObserver) over two SGD steps of a tiny MLP on the
CPU, as Debian 12's python3-torch records it. Run with Debian's interpreter:

    /usr/bin/python3 make_execution_graph.py && gzip -9 -n execution_graph.json

Debian's torch is built without Kineto: its profiler exports the legacy
Chrome trace (no "cat", no "External id"), so no Kineto trace from it can be
joined to this graph; the file tests the reader on the 1.13 schema.
"""

import torch
from torch.profiler import ExecutionGraphObserver

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16)
y = torch.randn(8, 4)


def step():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


step()
observer = ExecutionGraphObserver()
observer.register_callback("execution_graph.json")
observer.start()
for _ in range(2):
    step()
observer.stop()
observer.unregister_callback()
