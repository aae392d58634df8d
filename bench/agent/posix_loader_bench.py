# SPDX-License-Identifier: MIT
"""Throughput of a read-heavy data loader with and without the POSIX capture.

The loader (this script with --child) reads a set of page-cached files in 64 KiB
`os.read` calls, one `data/item` region per file inside a `dataloader/fetch`
per batch, for a fixed time, and reports the bytes it read per second. The
bench runs it alternately under `python -m stallwatch.run` and
`python -m stallwatch.run --posix` (interleaved, so machine noise hits both
alike), each sending to a real stallwatchd, and prints the median throughput
of each variant and their ratio (goal: --posix at most 2 % slower). It also
prints the loader thread's own CPU time per MiB read (time.thread_time): on a
machine shared with other work, wall-clock throughput mostly measures the
neighbours, while the loader's CPU time per byte is what the capture adds to
the loading thread itself (the agent's sender thread runs beside it, as the
collector does). With --baseline PYTHONPATH (another build's stallwatch
package, e.g. one copied before a change), a third variant runs --posix from
that package in the same rotation: before and after side by side. Ends with
one JSON line.

    cmake --build <build> --target bench_agent_posix_loader
    PYTHONPATH=<build>/python python3 bench/agent/posix_loader_bench.py --stallwatchd <build>/bin/stallwatchd
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

CHUNK = 64 * 1024
FILE_BYTES = 1 << 20
FILES = 64
BATCH = 8


def child(data_dir: str, seconds: float) -> None:
    from stallwatch import ai

    paths = [os.path.join(data_dir, f"{i:03d}.bin") for i in range(FILES)]
    total = 0
    cpu_start = time.thread_time()
    start = time.perf_counter()
    deadline = start + seconds
    i = 0
    while time.perf_counter() < deadline:
        with ai.dataloader.fetch:
            for _ in range(BATCH):
                with ai.data.item:
                    fd = os.open(paths[i % FILES], os.O_RDONLY)
                    try:
                        while True:
                            piece = os.read(fd, CHUNK)
                            if not piece:
                                break
                            total += len(piece)
                    finally:
                        os.close(fd)
                i += 1
    elapsed = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    print(json.dumps({"bytes_per_second": total / elapsed,
                      "cpu_us_per_mib": cpu * 1e6 / (total / (1 << 20))}), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daemon(binary: str, workdir: str):
    http = f"127.0.0.1:{free_port()}"
    ingest = f"tcp://127.0.0.1:{free_port()}"
    proc = subprocess.Popen([binary, "--ingest", ingest, "--http", http],
                            env=dict(os.environ, XDG_RUNTIME_DIR=workdir),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(f"http://{http}/healthz", timeout=2).read()
            return proc, ingest
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("posix_loader_bench: stallwatchd did not start")
            time.sleep(0.1)


def run_once(posix: bool, data_dir: str, seconds: float, ingest: str, run: int,
             pythonpath: str = ""):
    cmd = [sys.executable, "-m", "stallwatch.run"] + (["--posix"] if posix else [])
    cmd += [os.path.abspath(__file__), "--child", data_dir, "--seconds", str(seconds)]
    env = dict(os.environ, STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=f"bench-{run}",
               STALLWATCH_LOG="0", STALLWATCH_GPU="none")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds + 60)
    if out.returncode != 0:
        raise SystemExit(f"posix_loader_bench: the loader failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return float(result["bytes_per_second"]), float(result["cpu_us_per_mib"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", metavar="DATA_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=8, help="runs of each variant")
    parser.add_argument("--stallwatchd", default=os.environ.get("STALLWATCH_STALLWATCHD", ""))
    parser.add_argument("--baseline", default="", metavar="PYTHONPATH",
                        help="also run --posix from this stallwatch package, interleaved")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.seconds)
        return 0
    if not os.path.isfile(args.stallwatchd):
        raise SystemExit("posix_loader_bench: give --stallwatchd PATH")
    with tempfile.TemporaryDirectory(prefix="stallwatch-posix-loader-") as workdir:
        data_dir = os.path.join(workdir, "data")
        os.mkdir(data_dir)
        payload = os.urandom(FILE_BYTES)
        for i in range(FILES):
            with open(os.path.join(data_dir, f"{i:03d}.bin"), "wb") as out:
                out.write(payload)
        daemon, ingest = start_daemon(args.stallwatchd, workdir)
        try:
            plain, posix, baseline = [], [], []
            for r in range(args.rounds):
                plain.append(run_once(False, data_dir, args.seconds, ingest, 3 * r))
                posix.append(run_once(True, data_dir, args.seconds, ingest, 3 * r + 1))
                if args.baseline:
                    baseline.append(run_once(True, data_dir, args.seconds, ingest, 3 * r + 2,
                                             args.baseline))
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
    p, q = statistics.median(x[0] for x in plain), statistics.median(x[0] for x in posix)
    pc, qc = statistics.median(x[1] for x in plain), statistics.median(x[1] for x in posix)
    print(f"read-heavy loader ({FILES} page-cached files of {FILE_BYTES >> 20} MiB, "
          f"{CHUNK >> 10} KiB reads), median of {args.rounds} interleaved runs of "
          f"{args.seconds:g} s:")
    print(f"  without --posix: {p / 1e6:10.1f} MB/s")
    print(f"  with --posix:    {q / 1e6:10.1f} MB/s")
    print(f"  ratio with/without: {q / p:.4f} ({(1 - q / p) * 100:+.2f} % slower)")
    print("loader thread CPU time per MiB read, median:")
    print(f"  without --posix: {pc:10.1f} us")
    print(f"  with --posix:    {qc:10.1f} us")
    print(f"  ratio without/with: {pc / qc:.4f} ({(qc / pc - 1) * 100:+.2f} % more CPU)")
    result = {"bench": "posix_loader", "plain_bytes_per_second": p,
              "posix_bytes_per_second": q, "ratio": q / p,
              "plain_cpu_us_per_mib": pc, "posix_cpu_us_per_mib": qc, "cpu_ratio": pc / qc}
    if baseline:
        b = statistics.median(x[0] for x in baseline)
        bc = statistics.median(x[1] for x in baseline)
        print(f"baseline --posix ({args.baseline}), same rotation:")
        print(f"  throughput {b / 1e6:10.1f} MB/s, ratio to without: {b / p:.4f}")
        print(f"  CPU per MiB {bc:9.1f} us, {(bc / pc - 1) * 100:+.2f} % more CPU than without")
        result.update({"baseline_bytes_per_second": b, "baseline_ratio": b / p,
                       "baseline_cpu_us_per_mib": bc, "baseline_cpu_ratio": pc / bc})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
