# SPDX-License-Identifier: MIT
"""The wheel in a fresh venv of one CPython version, against a real stallwatchd.

STALLWATCH_TEST_WHEEL_PYTHON picks the version ("3.8" ... "3.13"; ctest runs one
test per version, python.wheel.py3X); a version with no interpreter on this
machine is skipped, saying so. In a new venv the wheel is installed with that
venv's own pip (offline), then:

* the extension loads nothing from outside the venv but glibc (ldd);
* ``python -m stallwatch.run`` runs a loop written with the ``ai`` API (no
  PyTorch), and the daemon's HTTP API shows its steps, fetch and compute time;
* the same with a PyTorch training loop on the fake PyTorch 2.x
  (fake_torch/), so stallwatch.torch's 2.x branches run on this version too;
* ``python -m stallwatch.run --posix`` preloads the wheel's own
  libstallwatch_posix.so (which loads nothing from outside the venv but
  glibc), and the daemon shows the captured reads of a data file as I/O time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error

import pytest

import wheel_env
from daemon_fixture import get_json, requires_daemon

VERSION = os.environ.get("STALLWATCH_TEST_WHEEL_PYTHON", "%d.%d" % sys.version_info[:2])
SCENARIOS = os.path.join(wheel_env.HERE, "scenarios")
FAKE_TORCH = os.path.join(wheel_env.HERE, "fake_torch")
STEPS, FETCH_MS, COMPUTE_MS = 20, 40, 20

_missing = wheel_env.wheel_missing_reason()
_interpreter = wheel_env.find_interpreter(VERSION)
pytestmark = [
    requires_daemon,
    pytest.mark.skipif(_missing is not None, reason=_missing or ""),
    pytest.mark.skipif(_interpreter is None,
                       reason=f"no CPython {VERSION} on this machine (pyenv, PATH, /usr/bin)"),
]


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    path = str(tmp_path_factory.mktemp(f"venv-{VERSION}") / "venv")
    how = wheel_env.make_venv(_interpreter, path)
    print(f"CPython {VERSION} ({_interpreter}): wheel installed by {how}")
    return path


def run_in(venv, args, **env):
    return subprocess.run([wheel_env.venv_python(venv)] + args, env=wheel_env.clean_env(**env),
                          capture_output=True, text=True, timeout=180)


def finished_rank(base, job):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            ranks = get_json(f"{base}/api/v1/jobs/{job}").get("ranks", [])
            if ranks and ranks[0]["state"] == "finished":
                return ranks[0]
        except urllib.error.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail(f"job {job} never finished in the collector")


def test_the_installed_package_is_the_wheels_with_its_own_agent(venv):
    proc = run_in(venv, ["-c", "import json, stallwatch, sys; from stallwatch import _native; "
                               "print(json.dumps([stallwatch.__version__, stallwatch.load_error, "
                               "_native.FASTCALL, _native.__file__, sys.prefix]))"])
    assert proc.returncode == 0, proc.stderr
    version, load_error, fastcall, native_file, prefix = json.loads(proc.stdout)
    assert load_error is None
    assert os.path.basename(wheel_env.WHEEL).startswith(f"stallwatch-{version}-cp38-abi3-")
    assert native_file.startswith(os.path.realpath(venv)) or native_file.startswith(venv)
    # METH_FASTCALL where the stable ABI has it (3.10+), tuples before.
    assert fastcall == (tuple(map(int, VERSION.split("."))) >= (3, 10))


def test_the_extension_loads_nothing_from_outside_the_venv_but_glibc(venv):
    native = os.path.join(wheel_env.site_packages(venv), "stallwatch", "_native.abi3.so")
    assert wheel_env.ldd_outside(native, venv) == []


def test_ai_loop_under_stallwatch_run_reaches_the_daemon(venv, daemon):
    base, ingest = daemon
    job = f"wheel-ai-{VERSION}"
    proc = run_in(venv, ["-m", "stallwatch.run", os.path.join(SCENARIOS, "wheel_loop.py"),
                         str(STEPS), str(FETCH_MS), str(COMPUTE_MS)],
                  STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job)
    assert proc.returncode == 0, proc.stderr
    assert "PyTorch" not in proc.stderr, proc.stderr
    stats = json.loads(proc.stdout.splitlines()[-1])
    assert stats["events_dropped"] == 0 and stats["events_sent"] > 0, stats
    rank = finished_rank(base, job)
    total = rank["windows"]["total"]
    shown = {k: total.get(k) for k in ("steps", "fetch_seconds", "compute_seconds",
                                       "data_stall_seconds", "wall_seconds")}
    assert total["steps"] == STEPS, shown
    fetch, compute = STEPS * FETCH_MS / 1000, STEPS * COMPUTE_MS / 1000
    assert fetch <= total["fetch_seconds"] <= fetch * 1.5 + 0.3, shown
    assert compute <= total["compute_seconds"] <= compute * 1.5 + 0.3, shown
    # No device signal: compute stands in, and the loop never computes while it waits.
    assert rank["device_source"] == "compute-proxy"
    assert total["data_stall_seconds"] == pytest.approx(total["fetch_seconds"], rel=0.02), shown
    assert rank["agent_dropped"] == 0
    assert rank["processes"][0]["agent_version"] == os.path.basename(wheel_env.WHEEL).split("-")[1]


def test_pytorch_2_loop_on_the_fake_pytorch_counts_optimizer_steps(venv, daemon):
    base, ingest = daemon
    job = f"wheel-torch-{VERSION}"
    epochs, batches = 2, 3
    proc = run_in(venv, ["-m", "stallwatch.run", os.path.join(SCENARIOS, "torch_versions_train.py"),
                         "--epochs", str(epochs), "--batches", str(batches)],
                  STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job, PYTHONPATH=FAKE_TORCH)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout.splitlines()[-1])
    assert info["optimizer_hooks"] == 2 and not info["optimizer_step_patched"], info
    rank = finished_rank(base, job)
    total = rank["windows"]["total"]
    # The last step and epoch marks: one step per optimizer step (global hooks).
    assert (rank["step"], rank["epoch"]) == (epochs * batches, epochs - 1), rank
    assert total["compute_seconds"] > 0 and total["fetch_seconds"] > 0, total


def test_posix_capture_runs_from_the_wheel(venv, daemon, tmp_path):
    library = os.path.join(wheel_env.site_packages(venv), "stallwatch", "libstallwatch_posix.so")
    assert os.path.isfile(library)
    assert wheel_env.ldd_outside(library, venv) == []
    base, ingest = daemon
    job = f"wheel-posix-{VERSION}"
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(1 << 20))
    steps = 10
    proc = run_in(venv, ["-m", "stallwatch.run", "--posix",
                         os.path.join(SCENARIOS, "wheel_posix_loop.py"), str(data), str(steps)],
                  STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job)
    assert proc.returncode == 0, proc.stderr
    assert "not found" not in proc.stderr, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["bytes_read"] == steps << 20
    assert out["stats"]["events_dropped"] == 0, out
    rank = finished_rank(base, job)
    total = rank["windows"]["total"]
    shown = {k: total.get(k) for k in ("io_captured", "io_seconds", "loader_io_seconds",
                                       "app_io_seconds")}
    assert total["io_captured"] is True, shown
    assert total["io_seconds"] > 0, shown
    assert 0 < total["loader_io_seconds"] <= total["app_io_seconds"], shown
