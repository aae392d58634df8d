# SPDX-License-Identifier: MIT
"""stallwatch.torch's PyTorch-version branches record the same loop alike.

Every version-dependent choice in stallwatch.torch is made by feature
detection. The installed PyTorch (Debian's 1.13) takes the 1.13 branches:
Optimizer.step wrapped per class, no compile probe. The fake PyTorch 2.x
(fake_torch/) takes the others: global optimizer step hooks
(torch.optim.optimizer.register_optimizer_step_pre/post_hook, 2.0+), and the
compile probe torch.compiler.is_compiling (2.1+) or, as "2.0",
torch._dynamo.is_compiling. The same script (scenarios/torch_versions_train.py)
must give the same regions, steps, epochs and batch sizes on each; with the
fake, a model call made while torch.compile traces is not a forward region.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "scenarios", "torch_versions_train.py")
FAKE_TORCH = os.path.join(HERE, "fake_torch")
EPOCHS, BATCHES = 2, 3

VARIANTS = {
    "installed": None,
    "fake-2.4": "2.4",
    "fake-2.0": "2.0",
}


def run_variant(capture, fake_version):
    extra = {}
    if fake_version is not None:
        extra["FAKE_TORCH_VERSION"] = fake_version
    env = child_env(capture, **extra)
    if fake_version is not None:
        env["PYTHONPATH"] = os.pathsep.join([FAKE_TORCH, env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", SCRIPT, "--epochs", str(EPOCHS),
                           "--batches", str(BATCHES)],
                          env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    capture.wait_until(lambda: len(capture.finished_pids()) >= 1, 15)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_version_branch_records_the_same_loop(capture, variant):
    fake_version = VARIANTS[variant]
    if fake_version is None and importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed for this interpreter")
    info = run_variant(capture, fake_version)

    if fake_version is None:
        assert info["optimizer_step_patched"] and info["optimizer_hooks"] == 0, info
    else:
        assert info["torch"].startswith(fake_version), info
        assert info["optimizer_hooks"] == 2 and not info["optimizer_step_patched"], info

    steps = EPOCHS * BATCHES
    regions = collections.Counter((e.cat, e.name) for e in capture.events(role="main")
                                  if e.kind == "begin")
    assert regions == {
        ("dataloader", "fetch.iter"): EPOCHS * (BATCHES + 1),
        ("compute", "forward"): steps,
        ("compute", "backward"): steps,
        ("compute", "step"): steps,
    }
    marks = [(e.name, e.value) for e in capture.events() if e.kind in ("mark", "counter")]
    assert [v for n, v in marks if n == "step"] == list(range(1, steps + 1))
    assert [v for n, v in marks if n == "batch_size"] == [4]
    assert [(n, v) for n, v in marks if n.startswith("epoch.")] == [
        ("epoch.start", 0), ("epoch.end", 0), ("epoch.start", 1), ("epoch.end", 1)]
