// SPDX-License-Identifier: MIT
/*
 * A stand-in CUDA runtime (libcudart.so.12) for the GPU-free tests: only its
 * file name matters, which tells the agent which CUDA the process runs when
 * the program loaded it before the agent looked for a libcupti.
 */

#define FAKE_API __attribute__((visibility("default")))

FAKE_API int cudaRuntimeGetVersion(int* version) {
  *version = 12040;
  return 0;
}
