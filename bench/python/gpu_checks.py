# SPDX-License-Identifier: MIT
"""The GPU sources' behaviour on a real GPU, in one run of a few minutes: what
the GPU-free tests check against models of CUDA, CUPTI and NVML (tests/unit/gpu,
tests/python), checked against the real ones. Prints each measurement, then
one JSON line with ``passed`` per check; exits 1 when a check fails. Without a
CUDA device it says so in that line and exits 0.

Checks (each in a fresh process; agent/gpu/README.md says why each matters):

* ``context``: with two GPUs, a rank that trains on GPU 1 (``set_device(1)``,
  and a model moved with ``.to("cuda:1")`` alone) under CUDA-event spans must
  have no CUDA context on GPU 0 (``nvidia-smi --query-compute-apps``), compared
  with the same run under ``--gpu none``;
* ``graph``: ``torch.cuda.graph`` capture and replay under CUDA-event spans:
  the capture must succeed, spans during it are skipped (counted), none is
  left unresolvable;
* ``profiler``: torch.profiler started while the CUPTI source runs must still
  have kernels in its trace;
* ``long_step``: two 5 s forwards (``torch.cuda._sleep``) under CUDA-event
  spans, into a local stallwatchd: no late event, device busy >= 98 % of the
  sleeps' own length (CUDA events around them: it depends on the clock boost);
  and the same under CUPTI: both kernels must arrive whole (each a COMPLETE
  of at least 98 % of its share of the sleeps, none untimed by a forced
  flush), though late, when they end, and clipped by the collector (a known
  limit). ``--only long_step_sync`` ends each step with
  ``torch.cuda.synchronize()`` instead of ``.item()``;
* ``fsdp``: a model wrapped in ``FullyShardedDataParallel`` (one rank, NCCL)
  trains 5 steps under ``stallwatch.torch.instrument()`` into a local
  stallwatchd: FSDP's own collectives (``_all_gather_base`` /
  ``all_gather_into_tensor``, ``_reduce_scatter_base`` /
  ``reduce_scatter_tensor``, or ``all_reduce`` where one rank makes it
  switch to no sharding) must be ``comm`` regions of the rank's timeline;
* ``launch``: tiny kernels (``torch.cuda._sleep(1)``) launched back to back
  on one stream for 15 s under the CUPTI source, into a local stallwatchd:
  the collector's ``launches`` must equal the kernels launched, and the
  rank's verdict must be host-bound with the cause launch-bound;
* ``agreement`` (skip with --quick): bench/python/gpu_sources.py for 20 s
  (--seconds), one round: data-stall and device-busy seconds within 0.02 of
  the trace's wall time of torch.profiler's for CUPTI, 0.05 for CUDA events,
  and each source's overhead.

    PYTHONPATH=build/gpu-rel/python python3 bench/python/gpu_checks.py --build build/gpu-rel
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpu_sources import Daemon, get_json, python_env  # noqa: E402


def child(check: str, options, **env: str) -> Dict:
    """Runs this file's `check` in a fresh process; its last stdout line is JSON."""
    proc = subprocess.run([sys.executable, __file__, "--child", check, "--build", options.build],
                          env=python_env(options.build, **env), capture_output=True, text=True,
                          timeout=300)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"error": f"exit {proc.returncode}: {proc.stderr[-2000:]}"}


def gpus_with_context(pid: int) -> List[int]:
    index_of = {}
    for line in subprocess.run(["nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"],
                               capture_output=True, text=True).stdout.splitlines():
        index, uuid = [x.strip() for x in line.split(",")]
        index_of[uuid] = int(index)
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_uuid",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) == 2 and parts[0] == str(pid):
            found.add(index_of.get(parts[1], -1))
    return sorted(found)


def small_model(device):
    import torch

    return torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                               torch.nn.Linear(1024, 1024)).to(device)


def train(model, device, steps: int) -> None:
    import torch

    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        model(torch.randn(256, 1024, device=device)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()


def child_context(variant: str) -> Dict:
    import torch

    import stallwatch.torch

    stallwatch.torch.instrument()
    if variant == "set_device":
        torch.cuda.set_device(1)
    model = small_model("cuda:1")
    train(model, "cuda:1", 50)
    torch.cuda.synchronize(1)
    time.sleep(1.0)  # the span resolver and the anchors have run
    return {"gpus_with_context": gpus_with_context(os.getpid()),
            "source": stallwatch.torch.device_source()}


def child_graph() -> Dict:
    import torch

    import stallwatch
    import stallwatch.torch

    stallwatch.torch.instrument(gpu="cuda-events")
    model = small_model("cuda")
    static_in = torch.randn(256, 1024, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    error = None
    try:
        with torch.cuda.graph(graph):
            static_out = model(static_in)
        for _ in range(20):
            graph.replay()
        static_out.sum().item()
    except Exception as exc:
        error = repr(exc)
    train(model, "cuda", 20)
    torch.cuda.synchronize()
    time.sleep(0.5)
    stats = stallwatch.gpu_stats()
    return {"capture_error": error, "cuda_events": stats.get("cuda_events"),
            "description": stats.get("description")}


def child_profiler() -> Dict:
    import torch
    from torch.profiler import ProfilerActivity, profile

    import stallwatch
    import stallwatch.torch

    stallwatch.torch.instrument(gpu="cupti")
    model = small_model("cuda")
    train(model, "cuda", 10)
    before = stallwatch.gpu_stats()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        train(model, "cuda", 5)
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    train(model, "cuda", 10)
    torch.cuda.synchronize()
    time.sleep(0.5)
    after = stallwatch.gpu_stats()
    return {"profiler_kernel_events": kernels, "cupti_records_before": before["activity_records"],
            "cupti_records_after": after["activity_records"],
            "description": after.get("description")}


def child_long_step(seconds: float) -> Dict:
    import torch

    import stallwatch
    import stallwatch.torch

    stallwatch.torch.instrument()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(100_000_000)
    end.record()
    end.synchronize()
    cycles = int(100_000_000 * seconds * 1000 / start.elapsed_time(end))

    class Sleeper(torch.nn.Module):
        def forward(self, x):
            torch.cuda._sleep(cycles)
            return x

    sleeper = Sleeper()
    x = torch.ones(1, device="cuda")
    measured = 0.0  # the sleeps' own length: the GPU's clock boost makes it differ from `seconds`
    for _ in range(2):
        before, after = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        before.record()
        if os.environ.get("GPU_CHECKS_SYNC") == "synchronize":
            sleeper(x)
            after.record()
            torch.cuda.synchronize()
        else:
            y = sleeper(x)
            after.record()
            y.sum().item()
        after.synchronize()
        measured += before.elapsed_time(after) / 1000
    time.sleep(3.0)
    return {"source": stallwatch.torch.device_source(), "stats": stallwatch.gpu_stats(),
            "measured_seconds": measured}


def child_fsdp() -> Dict:
    import torch
    import torch.distributed as dist

    import stallwatch
    import stallwatch.torch

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29561")
    stallwatch.torch.instrument()
    dist.init_process_group("nccl", rank=0, world_size=1)
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel
    except Exception as e:  # e.g. Debian's torch 1.13 under Python 3.11
        dist.destroy_process_group()
        return {"skipped": f"FSDP does not import: {e!r}"}
    torch.cuda.set_device(0)
    model = FullyShardedDataParallel(small_model("cuda"), device_id=0)
    train(model, "cuda", 5)
    torch.cuda.synchronize()
    dist.destroy_process_group()
    time.sleep(1.0)
    return {"torch": torch.__version__}


def fsdp(options) -> Dict:
    daemon = Daemon(os.path.join(options.build, "bin", "stallwatchd"))
    try:
        job = "gpu-checks-fsdp"
        run = child("fsdp", options, STALLWATCH_COLLECTOR=daemon.ingest, STALLWATCH_JOB=job)
        if "skipped" in run or "error" in run:
            return run
        daemon.rank_totals(job)  # waits until the rank finished
        timeline = get_json(f"{daemon.http}/api/v1/jobs/{job}/ranks/0/timeline?seconds=60")
        comm = sorted({r.get("name") for r in timeline.get("regions", [])
                       if r.get("cat") == "comm"})
        return {"comm_regions": comm, "child": run}
    finally:
        daemon.close()


def long_step(options, gpu: str, **env: str) -> Dict:
    daemon = Daemon(os.path.join(options.build, "bin", "stallwatchd"))
    try:
        job = f"gpu-checks-long-{gpu}"
        run = child("long_step", options, STALLWATCH_GPU=gpu, STALLWATCH_COLLECTOR=daemon.ingest,
                    STALLWATCH_JOB=job, **env)
        daemon.rank_totals(job)  # waits until the rank finished
        rank = get_json(f"{daemon.http}/api/v1/jobs/{job}")["ranks"][0]
        total = rank["windows"]["total"]
        timeline = get_json(f"{daemon.http}/api/v1/jobs/{job}/ranks/0/timeline?seconds=300")
        first = min((r["start_ns"] for r in timeline.get("regions", [])), default=0)
        device = [(r.get("name"), round((r["start_ns"] - first) / 1e9, 3),
                   round((r["end_ns"] - r["start_ns"]) / 1e9, 3))
                  for r in timeline.get("regions", []) if r.get("cat") == "gpu"
                  and r["end_ns"] - r["start_ns"] > 100_000_000]
        return {"source": run.get("source"), "late_events": rank.get("late_events"),
                "device_regions_over_100ms": device,
                "unpaired_events": rank.get("unpaired_events"),
                "device_busy_seconds": total.get("device_busy_seconds"),
                "expected_busy_seconds": run.get("measured_seconds"), "child": run}
    finally:
        daemon.close()


def child_launch(seconds: float) -> Dict:
    import torch

    import stallwatch

    torch.ones(1, device="cuda").sum().item()  # the program initializes CUDA first
    stallwatch.gpu_start("cupti")
    time.sleep(0.5)  # the CUPTI source arms within 100 ms of CUDA's initialization
    launched = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(1000):
            torch.cuda._sleep(1)
        launched += 1000
    torch.cuda.synchronize()
    stallwatch.gpu_stop()
    return {"launched": launched, "stats": stallwatch.gpu_stats()}


def launch(options) -> Dict:
    daemon = Daemon(os.path.join(options.build, "bin", "stallwatchd"))
    try:
        job = "gpu-checks-launch"
        run = child("launch", options, STALLWATCH_COLLECTOR=daemon.ingest, STALLWATCH_JOB=job)
        if "error" in run:
            return run
        totals = daemon.rank_totals(job)  # waits until the rank finished
        rank = get_json(f"{daemon.http}/api/v1/jobs/{job}")["ranks"][0]
        keys = ("wall_seconds", "device_busy_seconds", "device_idle_ratio", "launches",
                "launch_seconds", "launch_delay_seconds", "short_kernels", "long_launches",
                "late_launch_starts", "launch_idle_ratio", "verdict", "cause")
        return {"launched": run.get("launched"), **{k: totals.get(k) for k in keys},
                "agent_dropped": rank.get("agent_dropped"), "child": run}
    finally:
        daemon.close()


def agreement(options) -> Dict:
    proc = subprocess.run([sys.executable, os.path.join(HERE, "gpu_sources.py"), "--build",
                           options.build, "--seconds", str(options.seconds), "--rounds", "1"],
                          env=python_env(options.build), capture_output=True, text=True,
                          timeout=480)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"error": f"exit {proc.returncode}: {proc.stderr[-2000:]}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                       "build", "gpu-rel"))
    parser.add_argument("--quick", action="store_true", help="skip the agreement check")
    parser.add_argument("--seconds", type=int, default=20,
                        help="length of each agreement run (gpu_sources.py --seconds)")
    parser.add_argument("--only", default="",
                        help="comma-separated checks to run (long_step, long_step_sync, graph, "
                             "profiler, fsdp, launch)")
    parser.add_argument("--child", default="")
    options = parser.parse_args()
    if options.child:
        name, _, variant = options.child.partition(":")
        result = {"context": lambda: child_context(variant), "graph": child_graph,
                  "profiler": child_profiler, "long_step": lambda: child_long_step(5.0),
                  "fsdp": child_fsdp, "launch": lambda: child_launch(15.0)}[name]()
        print(json.dumps(result, default=str))
        return 0
    try:
        import torch

        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    except Exception:
        gpus = 0
    if gpus == 0:
        print(json.dumps({"bench": "gpu_checks", "skipped": "no CUDA device"}))
        return 0
    results: Dict[str, Dict] = {"device": {"name": torch.cuda.get_device_name(0), "gpus": gpus}}
    began = time.monotonic()
    if gpus >= 2:
        results["context"] = {
            f"{variant}/{gpu}": child(f"context:{variant}", options, STALLWATCH_GPU=gpu)
            for variant in ("set_device", "to_only") for gpu in ("cuda-events", "none")}
    else:
        results["context"] = {"skipped": "needs two GPUs"}
    print("context", json.dumps(results["context"]), flush=True)
    only = set(filter(None, options.only.split(",")))
    if only:
        for name in only:
            results[name] = {"long_step": lambda: {gpu: long_step(options, gpu)
                                                   for gpu in ("cuda-events", "cupti")},
                             "long_step_sync": lambda: long_step(options, "cuda-events",
                                                                 GPU_CHECKS_SYNC="synchronize"),
                             "graph": lambda: child("graph", options),
                             "profiler": lambda: child("profiler", options),
                             "fsdp": lambda: fsdp(options),
                             "launch": lambda: launch(options)}[name]()
            print(name, json.dumps(results[name], default=str), flush=True)
        print(json.dumps({"bench": "gpu_checks", **results}, default=str))
        return 0
    results["graph"] = child("graph", options)
    print("graph", json.dumps(results["graph"]), flush=True)
    results["profiler"] = child("profiler", options)
    print("profiler", json.dumps(results["profiler"]), flush=True)
    results["long_step"] = {gpu: long_step(options, gpu) for gpu in ("cuda-events", "cupti")}
    print("long_step", json.dumps(results["long_step"]), flush=True)
    results["fsdp"] = fsdp(options)
    print("fsdp", json.dumps(results["fsdp"]), flush=True)
    results["launch"] = launch(options)
    print("launch", json.dumps(results["launch"]), flush=True)
    if not options.quick:
        results["agreement"] = agreement(options)
        print("agreement", json.dumps(results["agreement"]), flush=True)
    results["seconds"] = round(time.monotonic() - began, 1)
    results["passed"] = verdicts(results)
    print(json.dumps({"bench": "gpu_checks", **results}, default=str))
    return 0 if all(results["passed"].values()) else 1


def verdicts(results: Dict) -> Dict[str, bool]:
    """Each check against the condition the module docstring states for it."""
    out: Dict[str, bool] = {}
    context = results["context"]
    if "skipped" not in context:
        out["context"] = all(
            "error" not in context[f"{v}/cuda-events"]
            and set(context[f"{v}/cuda-events"].get("gpus_with_context", [0]))
            <= set(context[f"{v}/none"].get("gpus_with_context", []))
            for v in ("set_device", "to_only"))
    graph = results["graph"]
    spans = graph.get("cuda_events") or {}
    out["graph"] = (not graph.get("error") and graph.get("capture_error") is None
                    and spans.get("unresolvable", 1) == 0)
    out["profiler"] = (results["profiler"].get("profiler_kernel_events") or 0) > 0
    events = results["long_step"]["cuda-events"]
    out["long_step_cuda_events"] = (events.get("late_events") == 0
                                    and (events.get("device_busy_seconds") or 0)
                                    >= 0.98 * (events.get("expected_busy_seconds") or 10.0))
    cupti = results["long_step"]["cupti"]
    share = (cupti.get("expected_busy_seconds") or 10.0) / 2
    whole = [r for r in cupti.get("device_regions_over_100ms") or [] if r[2] >= 0.98 * share]
    out["long_step_cupti"] = (len(whole) == 2 and
                              ((cupti.get("child") or {}).get("stats") or {}).get(
                                  "activity_untimed", 1) == 0)
    if "skipped" not in results["fsdp"]:
        out["fsdp"] = bool(results["fsdp"].get("comm_regions"))
    launched = results["launch"]
    out["launch"] = (not launched.get("error")
                     and launched.get("launches") == launched.get("launched")
                     and launched.get("verdict") == "host-bound"
                     and launched.get("cause") == "launch-bound")
    agreement_result = results.get("agreement")
    if agreement_result is not None:
        goals = agreement_result.get("meets_agreement_goal") or {}
        out["agreement"] = bool(goals) and all(goals.values())
    return out


if __name__ == "__main__":
    sys.exit(main())
