# SPDX-License-Identifier: MIT
"""The workload of overhead.py: a PyTorch CPU training loop with no stallwatch code.

An MLP on in-memory data through a DataLoader (num_workers=0), SGD. Prints one
JSON line: the median and mean step time over the timed steps (after warm-up).

With --toggle N it instead switches stallwatch's zero-code instrumentation on
and off every N steps inside this one process (stallwatch.torch.instrument /
uninstrument) and reports the median step time of each half, which cancels
the machine's slow drifts that separate runs suffer from, and the median CPU
time per step of the whole process (all threads, so the agent's sender thread
counts; median), which other processes on a shared machine disturb less.
"""

import argparse
import json
import statistics
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--toggle", type=int, default=0)
    args = parser.parse_args()
    toggler = None
    if args.toggle:
        import stallwatch.torch as toggler
    torch.manual_seed(0)
    torch.set_num_threads(1)
    n = (args.steps + args.warmup) * args.batch_size
    data = TensorDataset(torch.randn(n, 256), torch.randint(0, 10, (n,)))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, num_workers=0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, args.width), torch.nn.ReLU(),
        torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
        torch.nn.Linear(args.width, args.width), torch.nn.ReLU(),
        torch.nn.Linear(args.width, 10))
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    times = {False: [], True: []}
    cpu = {False: [], True: []}
    instrumented = False
    last = time.perf_counter_ns()
    last_cpu = time.process_time_ns()
    for index, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
        now = time.perf_counter_ns()
        now_cpu = time.process_time_ns()
        if index >= args.warmup:
            times[instrumented].append(now - last)
            cpu[instrumented].append(now_cpu - last_cpu)
        if toggler is not None and (index + 1) % args.toggle == 0:
            if instrumented:
                toggler.uninstrument()
            else:
                toggler.instrument()
            instrumented = not instrumented
            now = time.perf_counter_ns()
            now_cpu = time.process_time_ns()
        last = now
        last_cpu = now_cpu
    result = {"median_step_ns": statistics.median(times[False]),
              "mean_step_ns": statistics.fmean(times[False]),
              "median_cpu_step_ns": statistics.median(cpu[False]), "steps": len(times[False])}
    if toggler is not None:
        result["instrumented_median_step_ns"] = statistics.median(times[True])
        result["instrumented_median_cpu_step_ns"] = statistics.median(cpu[True])
        result["instrumented_steps"] = len(times[True])
    print(json.dumps(result))


if __name__ == "__main__":
    main()
