# SPDX-License-Identifier: MIT
"""A CPU training loop that pretends to run on a GPU, for the GPU-source tests.

Run under ``python -m stallwatch.run --gpu MODE`` with FAKE_CUPTI_LIBRARY
naming the fake libcupti (tests/unit/gpu/fakes; the agent loads it when
STALLWATCH_CUPTI_PATH names it too). After each step it queues a
fake CUPTI kernel record spanning the step on device 0, stream 7, in the fake
CUPTI's clock, as a real GPU would have produced one. Like a training script
it initializes CUDA (the fake driver the fake libcupti loads) before its first
step; stallwatch arms CUPTI only then. Prints the device source stallwatch
chose and the number of steps.
"""

import ctypes
import os
import sys
import time

import torch

import stallwatch
import stallwatch.torch


def main() -> int:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    fake = ctypes.CDLL(os.environ["FAKE_CUPTI_LIBRARY"])
    fake.fake_cupti_now.restype = ctypes.c_uint64
    fake.fake_cupti_add_kernel.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                           ctypes.c_uint64, ctypes.c_char_p]
    ctypes.CDLL("libcuda.so.1").cuInit(0)
    deadline = time.monotonic() + 10
    while "waiting" in stallwatch.gpu_stats()["description"] and time.monotonic() < deadline:
        time.sleep(0.01)
    model = torch.nn.Linear(8, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        begin = fake.fake_cupti_now()
        loss = model(torch.randn(16, 8)).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        fake.fake_cupti_add_kernel(0, 7, begin, fake.fake_cupti_now(), b"_Z12fake_forwardv")
    print(stallwatch.torch.device_source(), steps, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
