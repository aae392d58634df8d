# SPDX-License-Identifier: MIT
"""Cost of one region from Python: stallwatch's `with ai.compute.forward:` side by side
with a bare __slots__ context manager taking two perf_counter_ns timestamps, plus
the raw extension calls.

Regions are recorded in bursts that fit the agent's per-thread buffer, with a
flush between bursts (not timed), so every region measured is really recorded
and not refused by a full buffer. Each figure is the median over rounds of
the per-iteration time, minus the cost of an empty loop iteration (printed).

    PYTHONPATH=build/python-rel/python /usr/bin/python3 bench/python/region_cost.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from time import perf_counter_ns

os.environ.setdefault("STALLWATCH_COLLECTOR", "tcp://127.0.0.1:9")
os.environ.setdefault("STALLWATCH_LOG", "0")

import stallwatch  # noqa: E402
from stallwatch import _native, ai  # noqa: E402


class BareTimer:
    """The baseline: what any Python-level timer context manager costs."""

    __slots__ = ("start", "elapsed")

    def __enter__(self):
        self.start = perf_counter_ns()
        return self

    def __exit__(self, *exc):
        self.elapsed = perf_counter_ns() - self.start


def loop_empty(n):
    for _ in range(n):
        pass


def loop_bare(n):
    timer = BareTimer()
    for _ in range(n):
        with timer:
            pass


def loop_ai_with(n):
    forward = ai.compute.forward
    for _ in range(n):
        with forward:
            pass


def loop_ai_with_nested_path(n):
    for _ in range(n):
        with ai.compute.forward:
            pass


def loop_ai_decorator(n):
    @ai.compute.forward
    def body():
        return None

    for _ in range(n):
        body()


def loop_native_pair(n):
    begin = _native.region_begin
    end = _native.region_end
    cat, name = ai.compute.backward._ids()
    for _ in range(n):
        end(begin(cat, name))


def loop_native_now(n):
    now = _native.now_ns
    for _ in range(n):
        now()


def measure(fn, burst, rounds):
    samples = []
    for _ in range(rounds):
        stallwatch.flush(1000)
        start = time.perf_counter_ns()
        fn(burst)
        samples.append((time.perf_counter_ns() - start) / burst)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--burst", type=int, default=4000, help="regions per burst (<= buffer/2)")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    for _ in ai.dataloader.fetch.iter(range(1)):
        pass
    stallwatch.start()
    with ai.compute.forward:
        pass

    before = stallwatch.stats()
    empty = measure(loop_empty, args.burst, args.rounds)
    rows = [
        ("bare __slots__ ctx + 2x perf_counter_ns", measure(loop_bare, args.burst, args.rounds)),
        ("with ai.compute.forward (node in a local)", measure(loop_ai_with, args.burst,
                                                              args.rounds)),
        ("with ai.compute.forward (attribute path)", measure(loop_ai_with_nested_path,
                                                             args.burst, args.rounds)),
        ("@ai.compute.forward decorated call", measure(loop_ai_decorator, args.burst,
                                                       args.rounds)),
        ("_native.region_begin + region_end", measure(loop_native_pair, args.burst, args.rounds)),
        ("_native.now_ns", measure(loop_native_now, args.burst, args.rounds)),
    ]
    after = stallwatch.stats()
    print(f"empty loop iteration: {empty:.1f} ns (subtracted below)")
    for label, value in rows:
        print(f"{label:45s} {value - empty:8.1f} ns")
    recorded = after["events_recorded"] - before["events_recorded"]
    dropped = after["events_dropped"] - before["events_dropped"] - (
        after["events_lost_in_send"] - before["events_lost_in_send"])
    print(f"events recorded {recorded}, refused by a full buffer {dropped}")
    figures = dict(zip(["bare", "with_local", "with_path", "decorator", "native_pair", "now"],
                       [round(v - empty, 1) for _, v in rows]))
    print(json.dumps({
        "bench": "python_region",
        "ns_per_region_bare_ctx": figures["bare"],
        "ns_per_region_ai_with": figures["with_path"],
        "ns_per_region_ai_with_local": figures["with_local"],
        "ns_per_region_ai_decorator": figures["decorator"],
        "ns_per_native_call": round(figures["native_pair"] / 2, 1),
        "ns_per_native_now": figures["now"],
        "ratio_ai_with_to_bare": round(figures["with_path"] / figures["bare"], 2),
    }))


if __name__ == "__main__":
    main()
