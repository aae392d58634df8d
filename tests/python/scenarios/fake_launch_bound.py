# SPDX-License-Identifier: MIT
"""A launch-bound loop under the fake CUPTI: the host thread does nothing but
launch tiny kernels.

Run with FAKE_CUPTI_LIBRARY and STALLWATCH_CUPTI_PATH naming the fake libcupti
(tests/unit/gpu/fakes). Every millisecond of the fake's clock holds 25 launch
calls of 40 us back to back on this thread, each kernel starting 5 us after
its call returned and running 10 us: the device is busy a quarter of the time
and idle while the host launches. The loop's rounds alternate between
cudaLaunchKernel calls of `tiny_kernel()` and, as Triton launches,
cuLaunchKernel calls (driver API) of `triton_poi_fused_add_0`. Prints the
source, the number of kernels launched and how many of them through the
driver.
"""

import ctypes
import os
import sys
import time

import stallwatch

US = 1_000


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    fake = ctypes.CDLL(os.environ["FAKE_CUPTI_LIBRARY"])
    ctypes.CDLL("libcuda.so.1").cuInit(0)  # the program initializes CUDA first
    stallwatch.gpu_start("cupti")
    fake.fake_cupti_now.restype = ctypes.c_uint64
    launch_args = [ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                   ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_char_p]
    fake.fake_cupti_launch_kernels.argtypes = launch_args
    fake.fake_cupti_launch_kernels_driver.argtypes = launch_args
    launched = 0
    driver = 0
    rounds = 0
    cursor = fake.fake_cupti_now()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.001)
        now = fake.fake_cupti_now()
        count = (now - cursor) // (40 * US)
        if rounds % 2 == 0:
            fake.fake_cupti_launch_kernels(count, 0, 7, cursor, 40 * US, 5 * US, 10 * US,
                                           b"_Z11tiny_kernelv")
        else:
            fake.fake_cupti_launch_kernels_driver(count, 0, 7, cursor, 40 * US, 5 * US, 10 * US,
                                                  b"triton_poi_fused_add_0")
            driver += count
        rounds += 1
        cursor += count * 40 * US
        launched += count
    time.sleep(0.05)  # the last kernels end on the fake's clock before the stop flushes
    stallwatch.gpu_stop()
    print(stallwatch.gpu_stats()["source"], launched, driver, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
