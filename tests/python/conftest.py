# SPDX-License-Identifier: MIT
"""Fixtures for the Python agent tests.

ctest sets STALLWATCH_TEST_PYTHONPATH (the built package) and
STALLWATCH_TEST_WIRE (the generated FlatBuffers code); both go on sys.path
here and on PYTHONPATH of every process a test starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Dict, List, Optional

import pytest

# The pytest process itself imports stallwatch in some tests: keep it away
# from any real collector on this machine.
os.environ["STALLWATCH_COLLECTOR"] = "tcp://127.0.0.1:9"
os.environ["STALLWATCH_LOG"] = "0"

_PATHS = [p for p in (os.environ.get("STALLWATCH_TEST_PYTHONPATH"),
                      os.environ.get("STALLWATCH_TEST_WIRE")) if p]
for _path in reversed(_PATHS):
    if _path not in sys.path:
        sys.path.insert(0, _path)
_HERE = os.path.dirname(os.path.abspath(__file__))

from daemon_fixture import daemon  # noqa: E402,F401 (the fixture, for every test module)
from wire_capture import Capture, Event  # noqa: E402

PRELUDE = """
import stallwatch
stallwatch.start()
for _ in range(100):
    stallwatch.mark("test", "warmup", 0)
    if stallwatch.flush(100) == stallwatch.OK:
        break
"""


def child_env(capture: Optional[Capture], **extra: str) -> Dict[str, str]:
    env = dict(os.environ)
    env.pop("STALLWATCH_JOB", None)
    env.pop("STALLWATCH_RANK", None)
    env["PYTHONPATH"] = os.pathsep.join(_PATHS + [_HERE])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["STALLWATCH_LOG"] = "0"
    # No GPU source unless a test asks: a machine's real CUPTI/NVML would add events.
    env["STALLWATCH_GPU"] = "none"
    if capture is not None:
        env["STALLWATCH_COLLECTOR"] = capture.endpoint
    else:
        env["STALLWATCH_COLLECTOR"] = "tcp://127.0.0.1:9"
    env.update(extra)
    return env


class Run:
    """A finished child process and what the capture received from it."""

    def __init__(self, proc: subprocess.CompletedProcess, capture: Optional[Capture]) -> None:
        self.proc = proc
        self.capture = capture

    @property
    def stdout(self) -> str:
        return self.proc.stdout

    def events(self, role: Optional[str] = None, include_warmup: bool = False) -> List[Event]:
        assert self.capture is not None
        return [e for e in self.capture.events(role=role)
                if include_warmup or not (e.cat == "test" and e.name == "warmup")]

    def names(self, kinds=("begin", "complete", "mark", "counter"), role: Optional[str] = None):
        """(kind, cat, name) of each event of the given kinds, in order."""
        return [(e.kind, e.cat, e.name) for e in self.events(role=role) if e.kind in kinds]


def run_python(code: str, capture: Optional[Capture], *, prelude: bool = True,
               expect_finals: int = 1, timeout: float = 120.0, args: Optional[List[str]] = None,
               env: Optional[Dict[str, str]] = None, check: bool = True) -> Run:
    """Runs `code` in a fresh /usr/bin/python3 and collects its batches."""
    source = (PRELUDE if prelude else "") + textwrap.dedent(code)
    proc = subprocess.run([sys.executable, "-c", source] + (args or []),
                          env=child_env(capture, **(env or {})), capture_output=True, text=True,
                          timeout=timeout)
    if check:
        assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stderr}"
    if capture is not None and expect_finals:
        capture.wait_until(lambda: len(capture.finished_pids()) >= expect_finals, 15.0)
    return Run(proc, capture)


@pytest.fixture
def capture():
    cap = Capture()
    yield cap
    cap.close()
