#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Connection floods against a real stallwatchd, heavier than the FloodTest
integration tests: --ingest idle TCP connections to the ingest port and
--http idle connections to the HTTP port (over http.max_connections the
oldest idle one is closed to admit each new one), optionally with the daemon's descriptor limit set to
--nofile (prlimit) to see what it does at the limit.

Prints, as JSON lines: how long the connections took, the daemon's CPU share
while they piled up and once they were all open (a daemon spinning at the
limit shows here), its open descriptors, the slowest of 20 /healthz
requests during the flood, and its counters afterwards (the ingest handshake
refusals, the HTTP evictions, refusals and timeouts).

usage: flood_bench.py --build BUILD_DIR [--ingest 10000] [--http 10000]
                      [--nofile N] [--hold 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def healthz_ms(base: str) -> float:
    t0 = time.monotonic()
    try:
        urllib.request.urlopen(base + "/healthz", timeout=10).read()
    except (urllib.error.URLError, OSError):
        return float("inf")
    return (time.monotonic() - t0) * 1000


def open_idle(port: int, count: int, threads: int = 16) -> list[socket.socket]:
    """`count` connections that never send a byte, opened by `threads` in parallel."""
    opened: list[socket.socket] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        for _ in range(n):
            s = socket.socket()
            s.settimeout(60)
            try:
                s.connect(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            with lock:
                opened.append(s)

    share = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]
    workers = [threading.Thread(target=worker, args=(n,)) for n in share]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return opened


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True, help="a build directory (default preset)")
    parser.add_argument("--ingest", type=int, default=10000)
    parser.add_argument("--http", type=int, default=10000)
    parser.add_argument("--nofile", type=int, default=0, help="the daemon's descriptor limit")
    parser.add_argument("--hold", type=float, default=5, help="seconds the flood is held")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.ingest + args.http + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))
    if need > hard:  # this process's own limit: fewer HTTP connections
        args.http = max(0, hard - 256 - args.ingest)
    workdir = tempfile.mkdtemp(prefix="stallwatch-flood-")
    http_port, ingest_port = free_port(), free_port()
    command = [os.path.join(args.build, "bin/stallwatchd"), "--ingest",
               f"tcp://127.0.0.1:{ingest_port}", "--http", f"127.0.0.1:{http_port}"]
    if args.nofile:
        command = ["prlimit", f"--nofile={args.nofile}:{args.nofile}"] + command
    log_path = os.path.join(workdir, "stallwatchd.log")
    with open(log_path, "w") as log:
        daemon = subprocess.Popen(command, env=dict(os.environ, XDG_RUNTIME_DIR=workdir),
                                  stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{http_port}"
    for _ in range(100):
        if healthz_ms(base) < float("inf"):
            break
        time.sleep(0.1)
    held: list[socket.socket] = []
    try:
        for name, port, count in (("ingest", ingest_port, args.ingest), ("http", http_port, args.http)):
            if count == 0:
                continue
            c0, t0 = cpu_seconds(daemon.pid), time.monotonic()
            conns = open_idle(port, count)
            took = time.monotonic() - t0
            c1 = cpu_seconds(daemon.pid)
            held += conns
            probes = []
            for _ in range(20):
                probes.append(healthz_ms(base))
                time.sleep(args.hold / 20)
            c2, t2 = cpu_seconds(daemon.pid), time.monotonic()
            print(json.dumps({
                "flood": name, "connections": len(conns), "asked": count,
                "connect_seconds": round(took, 2),
                "daemon_cpu_share_while_connecting": round((c1 - c0) / max(took, 1e-9), 3),
                "daemon_cpu_share_while_held": round((c2 - c1) / max(t2 - t0 - took, 1e-9), 3),
                "daemon_fds": fd_count(daemon.pid),
                "healthz_slowest_ms": round(max(probes), 1),
                "healthz_failed": sum(p == float("inf") for p in probes)}), flush=True)
        for s in held:
            s.close()
        time.sleep(1)
        metrics = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
        wanted = ("stallwatch_http_connections_refused_total",
                  "stallwatch_http_connections_evicted_total", "stallwatch_http_timeouts_total",
                  "stallwatch_ingest_rejected_connections_total")
        counters = {}
        for line in metrics.splitlines():
            if line.startswith(wanted):
                key, value = line.rsplit(" ", 1)
                counters[key] = float(value)
        print(json.dumps({"after": counters, "daemon_fds": fd_count(daemon.pid),
                          "daemon_alive": daemon.poll() is None}), flush=True)
    finally:
        for s in held:
            s.close()
        daemon.terminate()
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
        warnings = [line for line in open(log_path) if "warn" in line or "error" in line]
        print("".join(warnings[-5:]), end="")
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
