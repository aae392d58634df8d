#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Churn soak: a real stallwatchd fed by real agents (integration_agent, the
agent library in a scripted training loop) that start and end all the time,
some of them killed with SIGKILL half-way (a rank that crashes and restarts),
with a new job every few agents. Finished and killed ranks are forgotten after
--forget seconds, so the daemon's memory and descriptors must stay flat.

Every --sample seconds it prints the daemon's RSS, open descriptors, CPU used
since the last sample, the ranks it holds and has forgotten, its tick p99 and the
/healthz latency. At the end it prints a
JSON line with the figures at the start of the steady state (after the first
forget period), the middle and the end, and fails (exit 1) when RSS grew by
more than 25 % + 16 MiB or the descriptors by more than 16 between the start
of the steady state and the end, or when the daemon died.

usage: churn_soak.py --build BUILD_DIR [--minutes 60] [--agents 6]
                     [--life 10:40] [--ranks-per-job 4] [--kill-share 0.2]
                     [--forget 60] [--sample 30]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return dict(json.loads(response.read()))


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Agent:
    def __init__(self, binary: str, endpoint: str, job: str, rank: int, seconds: float,
                 kill_after: float | None) -> None:
        env = dict(os.environ, STALLWATCH_COLLECTOR=endpoint)
        schedule = random.choice(["starved", "overlapped"])
        self.proc = subprocess.Popen(
            [binary, "--schedule", schedule, "--seconds", f"{seconds:.1f}", "--job", job,
             "--rank", str(rank)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kill_at = time.monotonic() + kill_after if kill_after is not None else None

    def done(self) -> bool:
        if self.kill_at is not None and time.monotonic() >= self.kill_at and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        return self.proc.poll() is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True, help="a build directory (default preset)")
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--agents", type=int, default=6, help="agents running at any time")
    parser.add_argument("--life", default="10:40", help="an agent's life in seconds, MIN:MAX")
    parser.add_argument("--ranks-per-job", type=int, default=4)
    parser.add_argument("--kill-share", type=float, default=0.2, help="share of agents SIGKILLed")
    parser.add_argument("--forget", type=int, default=60, help="engine.forget_after in seconds")
    parser.add_argument("--sample", type=float, default=30)
    args = parser.parse_args()
    daemon_bin = os.path.join(args.build, "bin/stallwatchd")
    agent_bin = os.path.join(args.build, "tests/integration/integration_agent")
    life_min, life_max = (float(x) for x in args.life.split(":"))

    workdir = tempfile.mkdtemp(prefix="stallwatch-soak-")
    config = os.path.join(workdir, "stallwatchd.toml")
    with open(config, "w") as f:
        f.write(f'[engine]\nforget_after = "{args.forget}s"\nsilent_after = "5s"\n')
    http = f"127.0.0.1:{free_port()}"
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    log = open(os.path.join(workdir, "stallwatchd.log"), "w")
    daemon = subprocess.Popen([daemon_bin, "--config", config, "--ingest", endpoint, "--http", http],
                              env=dict(os.environ, XDG_RUNTIME_DIR=workdir), stdout=log,
                              stderr=subprocess.STDOUT)
    base = f"http://{http}"
    for _ in range(100):
        try:
            get_json(base + "/healthz")
            break
        except OSError:
            time.sleep(0.2)

    agents: list[Agent] = []
    started = killed = 0
    samples: list[dict] = []
    begin = time.monotonic()
    end = begin + args.minutes * 60
    next_sample = begin
    last_cpu = cpu_seconds(daemon.pid)
    last_cpu_at = begin
    ok = True
    try:
        while time.monotonic() < end:
            if daemon.poll() is not None:
                print(f"stallwatchd exited with {daemon.returncode}", flush=True)
                ok = False
                break
            agents = [a for a in agents if not a.done()]
            while len(agents) < args.agents:
                job = f"soak-{started // args.ranks_per_job}"
                life = random.uniform(life_min, life_max)
                kill_after = random.uniform(1, life) if random.random() < args.kill_share else None
                killed += kill_after is not None
                agents.append(Agent(agent_bin, endpoint, job, started % args.ranks_per_job, life,
                                    kill_after))
                started += 1
            now = time.monotonic()
            if now >= next_sample:
                cpu = cpu_seconds(daemon.pid)
                status = get_json(base + "/api/v1/status")
                engine = status.get("engine", {})
                t0 = time.monotonic()
                get_json(base + "/healthz")
                healthz_ms = (time.monotonic() - t0) * 1000
                sample = {"t_s": round(now - begin), "rss_mib": round(rss_bytes(daemon.pid) / 2**20, 1),
                          "fds": fd_count(daemon.pid),
                          "cpu_share": round((cpu - last_cpu) / max(1e-9, now - last_cpu_at), 3),
                          "ranks": engine.get("ranks"), "forgotten_ranks": engine.get("forgotten_ranks"),
                          "engine_mib": round(engine.get("approx_memory_bytes", 0) / 2**20, 1),
                          "events_received": status.get("ingest", {}).get("events_received"),
                          "tick_p99_ms": round(1000 * status.get("tick_seconds_p99", 0), 2),
                          "healthz_ms": round(healthz_ms, 1), "agents_started": started,
                          "agents_killed": killed}
                last_cpu, last_cpu_at = cpu, now
                samples.append(sample)
                print(json.dumps(sample), flush=True)
                next_sample = now + args.sample
            time.sleep(0.2)
    finally:
        for a in agents:
            a.proc.kill()
            a.proc.wait()
        alive = daemon.poll() is None
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
        if not alive:
            print(open(os.path.join(workdir, "stallwatchd.log")).read()[-4000:])
        shutil.rmtree(workdir, ignore_errors=True)

    steady = [s for s in samples if s["t_s"] >= 2 * args.forget] or samples
    if not steady:
        print("no samples")
        return 1
    first, middle, last = steady[0], steady[len(steady) // 2], steady[-1]
    rss_ok = last["rss_mib"] <= first["rss_mib"] * 1.25 + 16
    fds_ok = last["fds"] <= first["fds"] + 16
    ok = ok and rss_ok and fds_ok
    print(json.dumps({"minutes": round((time.monotonic() - begin) / 60, 1), "agents_started": started,
                      "agents_killed": killed, "start": first, "middle": middle, "end": last,
                      "max_rss_mib": max(s["rss_mib"] for s in samples),
                      "max_fds": max(s["fds"] for s in samples), "rss_flat": rss_ok,
                      "fds_flat": fds_ok, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
