# SPDX-License-Identifier: MIT
"""A real stallwatchd on free loopback ports for the end-to-end tests.

``daemon`` (a pytest fixture, module scope) yields ``(http_base_url, ingest_endpoint)``
and stops the daemon afterwards; ``start_daemon`` starts one with more arguments. STALLWATCH_TEST_STALLWATCHD names the binary;
tests skip when it is not built.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

DAEMON = os.environ.get("STALLWATCH_TEST_STALLWATCHD", "")

requires_daemon = pytest.mark.skipif(not os.path.isfile(DAEMON),
                                     reason="stallwatchd not built (STALLWATCH_TEST_STALLWATCHD)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


class Daemon:
    """A running stallwatchd: its HTTP base URL, ingest endpoint and work directory."""

    def __init__(self, proc: subprocess.Popen, base: str, ingest: str, workdir: str, log) -> None:
        self.proc = proc
        self.base = base
        self.ingest = ingest
        self.workdir = workdir
        self._log = log

    def log_text(self) -> str:
        self._log.flush()
        with open(os.path.join(self.workdir, "stallwatchd.log")) as f:
            return f.read()

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


# A port picked as free can be taken by another process before the daemon binds
# it (the whole suite runs in parallel): the first start is retried on new ports.
START_ATTEMPTS = 3


def start_daemon(workdir: str, *args: str) -> Daemon:
    """Starts stallwatchd in `workdir` (its runtime directory and log) on free
    loopback ports, with `args` added; waits for /healthz. Fails the test when
    it does not start."""
    env = dict(os.environ, XDG_RUNTIME_DIR=workdir)
    for attempt in range(START_ATTEMPTS):
        http = f"127.0.0.1:{free_port()}"
        ingest = f"tcp://127.0.0.1:{free_port()}"
        log = open(os.path.join(workdir, "stallwatchd.log"), "w")
        proc = subprocess.Popen([DAEMON, "--ingest", ingest, "--http", http, *args], env=env,
                                stdout=log, stderr=subprocess.STDOUT)
        daemon = Daemon(proc, f"http://{http}", ingest, workdir, log)
        deadline = time.monotonic() + 20
        while True:
            try:
                get_json(daemon.base + "/healthz")
                return daemon
            except (urllib.error.URLError, ConnectionError, OSError):
                if proc.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        daemon.stop()
        text = daemon.log_text()
        if "Address already in use" not in text or attempt + 1 == START_ATTEMPTS:
            pytest.fail("stallwatchd did not start:\n" + text)
    raise AssertionError("unreachable")


@pytest.fixture(scope="module")
def daemon():
    workdir = tempfile.mkdtemp(prefix="stallwatch-e2e-")
    running = start_daemon(workdir)
    yield running.base, running.ingest
    running.stop()
    shutil.rmtree(workdir, ignore_errors=True)
