# SPDX-License-Identifier: MIT
"""A real stallwatchd on free loopback ports for the end-to-end tests.

``daemon`` (a pytest fixture, module scope) yields ``(http_base_url, ingest_endpoint)``
and stops the daemon afterwards. STALLWATCH_TEST_STALLWATCHD names the binary;
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


@pytest.fixture(scope="module")
def daemon():
    workdir = tempfile.mkdtemp(prefix="stallwatch-e2e-")
    http = f"127.0.0.1:{free_port()}"
    ingest = f"tcp://127.0.0.1:{free_port()}"
    env = dict(os.environ, XDG_RUNTIME_DIR=workdir)
    log = open(os.path.join(workdir, "stallwatchd.log"), "w")
    proc = subprocess.Popen([DAEMON, "--ingest", ingest, "--http", http], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    base = f"http://{http}"
    deadline = time.monotonic() + 20
    while True:
        try:
            get_json(base + "/healthz")
            break
        except (urllib.error.URLError, ConnectionError, OSError):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.close()
                pytest.fail("stallwatchd did not start:\n" +
                            open(os.path.join(workdir, "stallwatchd.log")).read())
            time.sleep(0.2)
    yield base, ingest
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    shutil.rmtree(workdir, ignore_errors=True)
