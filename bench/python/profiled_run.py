# SPDX-License-Identifier: MIT
"""Runs a Python script under torch.profiler and writes its Kineto trace.

The ground truth of bench/python/gpu_sources.py: the trace of a run, read by
``stallwatch analyze TRACE --json``, gives the data_stall_ratio and
device_idle_ratio that the live device sources are compared against.

    python [-m stallwatch.run --gpu MODE] profiled_run.py --trace OUT.json \\
        [--no-profile] SCRIPT [script args...]

``--no-profile`` runs the script without the profiler (the CUPTI source cannot
share a process with torch.profiler, which is itself a CUPTI client).
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True, help="where to write the Kineto JSON trace")
    parser.add_argument("--no-profile", action="store_true", help="run without the profiler")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(options.script)))  # as `python SCRIPT` does
    sys.argv = [options.script] + options.args
    if options.no_profile:
        runpy.run_path(options.script, run_name="__main__")
        return 0

    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as profiler:
        try:
            runpy.run_path(options.script, run_name="__main__")
        except SystemExit as exit_:
            if exit_.code not in (None, 0):
                raise
    profiler.export_chrome_trace(options.trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
