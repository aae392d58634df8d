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

With --feeders K (the issue's rate: --feeders 8 --feeder-ranks 32 --rate 10000
is 256 ranks x 10 k events/s), K soak_feeder processes run alongside the
agents, each playing --feeder-ranks ranks of a job of its own at --rate events/s
per rank for --feeder-life seconds; then a new one starts with a new job (a
share, --feeder-stop-share, is stopped early with SIGTERM, a job restarted).
When a feeder has ended, every rank it played is checked against the daemon:
the batches it numbered (sent, or refused by ZeroMQ) must equal what the API
shows for that rank, received plus lost in sequence gaps, event for event.
Each check prints one line; the final JSON line holds the totals, and any
unexplained event fails the run.

usage: churn_soak.py --build BUILD_DIR [--minutes 60] [--agents 6]
                     [--life 10:40] [--ranks-per-job 4] [--kill-share 0.2]
                     [--forget 60] [--sample 30]
                     [--feeders 0] [--feeder-ranks 32] [--rate 10000]
                     [--feeder-life 60:180] [--feeder-stop-share 0.25]
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


class Feeder:
    """A soak_feeder process and, once it has ended, its per-rank loss check."""

    def __init__(self, binary: str, endpoint: str, job: str, ranks: int, rate: int,
                 seconds: float, stop_after: float | None, workdir: str) -> None:
        self.job = job
        self.report = os.path.join(workdir, f"{job}.json")
        self.proc = subprocess.Popen(
            [binary, "--endpoint", endpoint, "--job", job, "--ranks", str(ranks), "--rate",
             str(rate), "--seconds", f"{seconds:.1f}", "--report", self.report],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.stop_at = time.monotonic() + stop_after if stop_after is not None else None
        self.check_until = 0.0

    def running(self) -> bool:
        if self.stop_at is not None and time.monotonic() >= self.stop_at and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.stop_at = None
        return self.proc.poll() is None


def rank_loss(report: dict, detail: dict) -> list[dict]:
    """Per rank: what the feeder numbered against what the API shows."""
    per_batch = int(report["events_per_batch"])
    rows = {int(r.get("rank", -1)): r for r in detail.get("ranks", [])}
    out = []
    for sent in report["ranks"]:
        row = rows.get(int(sent["rank"]), {})
        numbered = int(sent["batches"]) * per_batch
        received = int(row.get("events_received", 0))
        gaps = int(row.get("lost_batches", 0)) * per_batch
        dropped = int(row.get("agent_dropped", 0))
        out.append({"rank": sent["rank"], "numbered": numbered, "sent": int(sent["events_sent"]),
                    "refused_by_zmq": int(sent["events_failed"]), "received": received,
                    "lost_in_gaps": gaps, "agent_dropped": dropped,
                    "unexplained": numbered - received - gaps - dropped})
    return out


def check_feeder(feeder: Feeder, base: str, totals: dict) -> bool:
    """True when the check is final (every rank balances, or time is up)."""
    try:
        with open(feeder.report) as f:
            report = json.load(f)
        detail = get_json(base + "/api/v1/jobs/" + feeder.job)
    except (OSError, ValueError):
        report, detail = None, {}
    ranks = rank_loss(report, detail) if report else []
    balanced = bool(ranks) and all(r["unexplained"] == 0 for r in ranks)
    if not balanced and time.monotonic() < feeder.check_until:
        return False
    unexplained = sum(r["unexplained"] for r in ranks) if report else None
    line = {"check": feeder.job, "exit": feeder.proc.returncode, "ranks": len(ranks),
            "seconds": report.get("seconds") if report else None,
            "numbered": sum(r["numbered"] for r in ranks),
            "received": sum(r["received"] for r in ranks),
            "lost_in_gaps": sum(r["lost_in_gaps"] for r in ranks),
            "refused_by_zmq": sum(r["refused_by_zmq"] for r in ranks),
            "agent_dropped": sum(r["agent_dropped"] for r in ranks),
            "unexplained": unexplained,
            "ranks_unbalanced": [r for r in ranks if r["unexplained"] != 0][:4]}
    print(json.dumps(line), flush=True)
    totals["jobs_checked"] += 1
    totals["ranks_checked"] += len(ranks)
    for key in ("numbered", "received", "lost_in_gaps", "refused_by_zmq", "agent_dropped"):
        totals[key] += line[key]
    if unexplained is None:
        totals["jobs_without_report"] += 1
    else:
        totals["unexplained"] += abs(unexplained)
        totals["ranks_unbalanced"] += sum(1 for r in ranks if r["unexplained"] != 0)
    return True


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
    parser.add_argument("--feeders", type=int, default=0, help="soak_feeder processes at any time")
    parser.add_argument("--feeder-ranks", type=int, default=32, help="ranks per feeder")
    parser.add_argument("--rate", type=int, default=10000, help="events/s per feeder rank")
    parser.add_argument("--feeder-life", default="60:180", help="a feeder's life in s, MIN:MAX")
    parser.add_argument("--feeder-stop-share", type=float, default=0.25,
                        help="share of feeders stopped early with SIGTERM")
    args = parser.parse_args()
    feeder_bin = os.path.join(args.build, "bench/e2e/soak_feeder")
    feeder_min, feeder_max = (float(x) for x in args.feeder_life.split(":"))
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
    feeders: list[Feeder] = []
    checking: list[Feeder] = []
    feeders_started = feeders_stopped = 0
    totals = {"jobs_checked": 0, "ranks_checked": 0, "jobs_without_report": 0, "numbered": 0,
              "received": 0, "lost_in_gaps": 0, "refused_by_zmq": 0, "agent_dropped": 0,
              "unexplained": 0, "ranks_unbalanced": 0}
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
            for feeder in [f for f in feeders if not f.running()]:
                feeders.remove(feeder)
                feeder.check_until = time.monotonic() + 15
                checking.append(feeder)
            checking = [f for f in checking if not check_feeder(f, base, totals)]
            while len(feeders) < args.feeders:
                life = random.uniform(feeder_min, feeder_max)
                stop_after = (random.uniform(1, life) if random.random() < args.feeder_stop_share
                              else None)
                feeders_stopped += stop_after is not None
                feeders.append(Feeder(feeder_bin, endpoint, f"feed-{feeders_started}",
                                      args.feeder_ranks, args.rate, life, stop_after, workdir))
                feeders_started += 1
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
                          "agents_killed": killed, "feeders_started": feeders_started,
                          "events_per_s": None}
                if samples and sample["events_received"] is not None:
                    before = samples[-1]
                    sample["events_per_s"] = round(
                        (sample["events_received"] - (before["events_received"] or 0))
                        / max(1e-9, sample["t_s"] - before["t_s"]))
                last_cpu, last_cpu_at = cpu, now
                samples.append(sample)
                print(json.dumps(sample), flush=True)
                next_sample = now + args.sample
            time.sleep(0.2)
        # The feeders still running end cleanly and are checked too.
        for feeder in feeders:
            feeder.proc.send_signal(signal.SIGTERM)
        for feeder in feeders:
            feeder.proc.wait()
            feeder.check_until = time.monotonic() + 15
            checking.append(feeder)
        feeders = []
        while checking and daemon.poll() is None:
            checking = [f for f in checking if not check_feeder(f, base, totals)]
            time.sleep(0.5)
    finally:
        for a in agents:
            a.proc.kill()
            a.proc.wait()
        for feeder in feeders:
            feeder.proc.kill()
            feeder.proc.wait()
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
    loss_ok = totals["unexplained"] == 0 and totals["jobs_without_report"] == 0
    ok = ok and rss_ok and fds_ok and loss_ok
    rates = [s["events_per_s"] for s in samples if s.get("events_per_s") is not None]
    print(json.dumps({"minutes": round((time.monotonic() - begin) / 60, 1), "agents_started": started,
                      "agents_killed": killed, "feeders_started": feeders_started,
                      "feeders_stopped_early": feeders_stopped,
                      "events_per_s_mean": round(sum(rates) / len(rates)) if rates else None,
                      "cpu_share_mean": round(sum(s["cpu_share"] for s in steady) / len(steady), 3),
                      "loss": totals, "loss_ok": loss_ok,
                      "start": first, "middle": middle, "end": last,
                      "max_rss_mib": max(s["rss_mib"] for s in samples),
                      "max_fds": max(s["fds"] for s in samples), "rss_flat": rss_ok,
                      "fds_flat": fds_ok, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
