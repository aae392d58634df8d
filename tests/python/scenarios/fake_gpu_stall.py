# SPDX-License-Identifier: MIT
"""A training loop whose device-busy time comes from fake CUPTI kernels.

Run with FAKE_CUPTI_LIBRARY and STALLWATCH_CUPTI_PATH naming the fake libcupti
(tests/unit/gpu/fakes). Each iteration: a 100 ms fetch wait
(``dataloader/fetch.iter`` on the main thread) during whose first 50 ms the
device is still busy with the previous step's kernels, then 100 ms of compute
(``compute/forward``) with the device busy throughout. So the data stall
(FETCH \\ DEVICE_BUSY) is half the fetch time with CUPTI as the device source;
with compute regions standing in for the device it would be all of it.
"""

import ctypes
import os
import sys
import time

import stallwatch

MS = 1_000_000


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
    fake = ctypes.CDLL(os.environ["FAKE_CUPTI_LIBRARY"])
    ctypes.CDLL("libcuda.so.1").cuInit(0)  # the program initializes CUDA first
    stallwatch.gpu_start("cupti")
    fake.fake_cupti_now.restype = ctypes.c_uint64
    fake.fake_cupti_add_kernel.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                           ctypes.c_uint64, ctypes.c_char_p]
    fetch = stallwatch.Region("dataloader", "fetch.iter")
    forward = stallwatch.Region("compute", "forward")
    step = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        fetch_start = fake.fake_cupti_now()
        with fetch:
            time.sleep(0.1)
        fake.fake_cupti_add_kernel(0, 7, fetch_start, fetch_start + 50 * MS, b"previous_step")
        compute_start = fake.fake_cupti_now()
        with forward:
            time.sleep(0.1)
        fake.fake_cupti_add_kernel(0, 7, compute_start, fake.fake_cupti_now(), b"step_kernels")
        step += 1
        stallwatch.mark("pipeline", "step", step)
    stallwatch.gpu_stop()
    print(stallwatch.gpu_stats()["source"], step, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
