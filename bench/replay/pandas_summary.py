#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""DFAnalyzer's exact summary of dftracer traces, written the straightforward
way with Python's json module and pandas: the baseline the C++ analyze path is
benchmarked against (bench/replay/run_bench.py). Same metrics and the same
event-class rules as `stallwatch analyze --mapping default|dlio`.

Prints one JSON line with its timing, peak RSS and the summary values.
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import json
import re
import resource
import time
from typing import Iterable

import numpy as np
import pandas as pd

COMPUTE, DEVICE_BUSY, FETCH, APP_IO, IO, COMM, PIPELINE = (1 << i for i in range(7))

# (cats, names, main_thread_only, classes), first match wins; [] matches anything.
DEFAULT_RULES = [
    ([], ["fetch.iter", "loop.iter"], False, FETCH | APP_IO),
    (["dataloader"], ["fetch"], True, FETCH | APP_IO),
    (["gpu"], [], False, DEVICE_BUSY),
    (["compute", "ai_framework"], [], False, COMPUTE),
    (["dataloader", "data", "checkpoint", "reader"], [], False, APP_IO),
    (["POSIX", "STDIO"], [], False, IO),
    (["comm"], [], False, COMM),
    (["pipeline"], [], False, PIPELINE),
]
DLIO_RULES = [
    (["ai_framework"], ["*Framework.compute"], False, COMPUTE),
    (["ai_framework"], [], False, 0),
    ([], ["loop.iter", "fetch.iter", "fetch-data.iter", "<module>.iter"], False, FETCH | APP_IO),
    ([], ["loop.yield"], False, 0),
    (["data_loader", "reader", "checkpoint"], [], False, APP_IO),
    (["POSIX", "STDIO", "posix", "stdio"], [], False, IO),
    ([], ["DLIOBenchmark.run", "DLIOBenchmark._train", "DLIOBenchmark._eval"], False, PIPELINE),
] + DEFAULT_RULES


def read_file(path: str) -> tuple[pd.DataFrame, int]:
    """Complete events of one dftracer file, with the fork quirk resolved."""
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    nbytes = 0
    children: dict[int, set[int]] = {}
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            nbytes += len(line)
            line = line.strip().rstrip(",")
            if not line or line in ("[", "]"):
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("ph") not in ("X", 1) or "ts" not in e:
                continue
            pid, tid = int(e["pid"]), int(e["tid"])
            name = e.get("name", "")
            if name in ("fork", "vfork"):
                ret = int(e.get("args", {}).get("ret", -1))
                if tid != pid and ret == 0:
                    children.setdefault(pid, set()).add(tid)
                elif tid == pid and ret > 0:
                    children.setdefault(pid, set()).add(ret)
            os_pid = tid if tid != pid and tid in children.get(pid, ()) else pid
            rows.append((pid, tid, os_pid, e.get("cat", ""), name, int(e["ts"]), int(e.get("dur", 0))))
    df = pd.DataFrame(rows, columns=["pid", "tid", "os_pid", "cat", "name", "ts", "dur"])
    return df, nbytes


def glob_mask(series: pd.Series, patterns: list[str]) -> pd.Series:
    if not patterns:
        return pd.Series(True, index=series.index)
    regex = "|".join("(?:" + fnmatch.translate(p) + ")" for p in patterns)
    return series.str.match(regex)


def classify(df: pd.DataFrame, rules, main_pid: int) -> pd.Series:
    main = (df["os_pid"] == main_pid) & (df["tid"] == df["os_pid"])
    classes = pd.Series(-1, index=df.index)
    for cats, names, main_only, bits in rules:
        cond = glob_mask(df["cat"], cats) & glob_mask(df["name"], names)
        if main_only:
            cond &= main
        classes[(classes == -1) & cond] = bits
    classes[classes == -1] = 0
    classes[(classes & FETCH) != 0] |= APP_IO
    return classes


def union(intervals: pd.DataFrame) -> pd.DataFrame:
    """Merged, disjoint intervals (sort by start, group while overlapping)."""
    if intervals.empty:
        return pd.DataFrame({"ts": [], "end": []})
    iv = intervals.sort_values("ts")
    iv = iv[iv["end"] > iv["ts"]]
    group = (iv["ts"] > iv["end"].cummax().shift()).cumsum()
    return iv.groupby(group).agg(ts=("ts", "min"), end=("end", "max"))


def length(merged: pd.DataFrame) -> int:
    return int((merged["end"] - merged["ts"]).sum())


def both(a: pd.DataFrame, b: pd.DataFrame) -> int:
    """|A ∩ B| of two merged sets by a sweep over their boundaries."""
    if a.empty or b.empty:
        return 0
    t = np.concatenate([a["ts"], a["end"], b["ts"], b["end"]])
    d = np.concatenate([np.ones(len(a)), -np.ones(len(a)), 2 * np.ones(len(b)), -2 * np.ones(len(b))])
    order = np.lexsort((d, t))
    t, d = t[order], d[order]
    running = np.cumsum(d)
    span = np.diff(t, append=t[-1])
    return int(span[running == 3].sum())


def summarize(paths: Iterable[str], rules) -> tuple[dict, int, int]:
    frames = []
    total_bytes = 0
    for path in paths:
        df, nbytes = read_file(path)
        total_bytes += nbytes
        m = re.search(r"(\d+)-of-(\d+)", path.rsplit("/", 1)[-1])
        df["rank"] = int(m.group(1)) if m else len(frames)
        main_pid = int(df["pid"].iloc[0]) if len(df) else -1
        df["classes"] = classify(df, rules, main_pid)
        frames.append(df)
    events = pd.concat(frames, ignore_index=True)
    events["end"] = events["ts"] + events["dur"]
    out = {k: 0 for k in ("compute", "app_io", "io", "fetch", "unoverlapped_app_io",
                          "unoverlapped_io", "unoverlapped_compute")}
    for _, rank in events.groupby("rank"):
        sets = {name: union(rank.loc[(rank["classes"] & bit) != 0, ["ts", "end"]])
                for name, bit in (("compute", COMPUTE), ("app_io", APP_IO), ("io", IO), ("fetch", FETCH))}
        c, a, i, f = (length(sets[k]) for k in ("compute", "app_io", "io", "fetch"))
        out["compute"] += c
        out["app_io"] += a
        out["io"] += i
        out["fetch"] += f
        out["unoverlapped_app_io"] += a - both(sets["app_io"], sets["compute"])
        out["unoverlapped_io"] += i - both(sets["io"], sets["compute"])
        out["unoverlapped_compute"] += c - both(sets["compute"], sets["io"])
    summary = {k + "_seconds": v / 1e6 for k, v in out.items()}
    summary["job_time_seconds"] = int(events["end"].max() - events["ts"].min()) / 1e6
    return summary, total_bytes, len(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mapping", choices=["default", "dlio"], default="default")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    start = time.perf_counter()
    cpu_start = time.process_time()
    summary, nbytes, events = summarize(args.files, DLIO_RULES if args.mapping == "dlio" else DEFAULT_RULES)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(json.dumps({
        "bench": "replay_pandas_one",
        "seconds": seconds,
        "cpu_seconds": cpu,
        "mb": nbytes / 1e6,
        "mb_per_s": nbytes / 1e6 / seconds,
        "mb_per_cpu_s": nbytes / 1e6 / cpu,
        "events": events,
        "events_per_s": events / seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "summary": summary,
    }))


if __name__ == "__main__":
    main()
