# SPDX-License-Identifier: MIT
"""`python -m stallwatch.run`: zero-code PyTorch instrumentation of an unmodified script.

The script (scenarios/torch_train.py) trains an MLP with num_workers=0; the
events it produces are compared exactly: fetch waits, forward of the model
only, backward, optimizer steps, step/epoch marks and batch sizes.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time

from conftest import child_env

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios", "torch_train.py")


def run_script(capture, *script_args, env=None, finals=1, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", SCRIPT, *script_args],
                          env=child_env(capture, **(env or {})), capture_output=True, text=True,
                          timeout=timeout)
    if capture is not None and finals:
        capture.wait_until(lambda: len(capture.finished_pids()) >= finals, 15)
    return proc


def regions(capture, role="main"):
    return collections.Counter((e.cat, e.name) for e in capture.events(role=role)
                               if e.kind == "begin")


def marks(capture, name):
    return [e.value for e in capture.events() if e.kind in ("mark", "counter") and e.name == name]


def test_train_loop_regions_steps_and_epochs(capture):
    proc = run_script(capture, "--epochs", "2", "--batches", "4", "--batch-size", "4")
    assert proc.returncode == 0, proc.stderr
    assert regions(capture) == {
        ("dataloader", "fetch.iter"): 10,
        ("compute", "forward"): 8,
        ("compute", "backward"): 8,
        ("compute", "step"): 8,
    }
    assert marks(capture, "step") == list(range(1, 9))
    # A batch size is sent when it changes (the collector keeps the latest).
    assert marks(capture, "batch_size") == [4]
    epochs = [(e.name, e.value) for e in capture.events() if e.name.startswith("epoch.")]
    assert epochs == [("epoch.start", 0), ("epoch.end", 0), ("epoch.start", 1), ("epoch.end", 1)]
    main_pid = capture.batches[0].pid
    fetches = [e for e in capture.events() if e.name == "fetch.iter"]
    assert all(e.tid == main_pid for e in fetches)


def test_argv_and_exit_code_are_the_scripts(capture):
    proc = run_script(capture, "--epochs", "1", "--batches", "1", "--exit-code", "3")
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0]) == [SCRIPT, "--epochs", "1", "--batches", "1",
                                                       "--exit-code", "3"]


def test_without_optimizer_every_batch_is_a_step(capture):
    proc = run_script(capture, "--no-optimizer", "--epochs", "2", "--batches", "3")
    assert proc.returncode == 0, proc.stderr
    assert marks(capture, "step") == list(range(1, 7))
    assert regions(capture)[("compute", "step")] == 0


def test_loss_module_is_its_own_forward_and_transforms_are_not_compute(capture):
    proc = run_script(capture, "--loss-module", "--transform-module", "--epochs", "1",
                      "--batches", "2")
    assert proc.returncode == 0, proc.stderr
    assert regions(capture)[("compute", "forward")] == 4


def test_second_loader_does_not_start_epochs(capture):
    proc = run_script(capture, "--eval-loader", "--epochs", "2", "--batches", "2")
    assert proc.returncode == 0, proc.stderr
    epochs = [(e.name, e.value) for e in capture.events() if e.name.startswith("epoch.")]
    assert epochs == [("epoch.start", 0), ("epoch.end", 0), ("epoch.start", 1), ("epoch.end", 1)]
    assert regions(capture)[("dataloader", "fetch.iter")] == 2 * 3 + 2 * 3


def test_disabled_by_environment_runs_untouched(capture):
    proc = run_script(capture, "--epochs", "1", env={"STALLWATCH_ENABLE": "0"}, finals=0)
    assert proc.returncode == 0, proc.stderr
    capture.drain(0.3)
    assert capture.batches == []


def test_collector_absent_training_unaffected():
    start = time.monotonic()
    proc = run_script(None, "--epochs", "3", "--batches", "20",
                      env={"STALLWATCH_COLLECTOR": "tcp://127.0.0.1:9"})
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - start < 60


def test_instrument_is_idempotent_and_reversible():
    code = """
import torch
import stallwatch.torch as swt
original = torch.nn.Module.__call__
assert swt.instrument()
assert not swt.instrument()
assert torch.nn.Module.__call__ is not original
assert swt.instrumented() == {"data", "forward", "backward", "optimizer", "distributed"}
swt.uninstrument()
assert torch.nn.Module.__call__ is original
assert swt.instrumented() == frozenset()
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], env=child_env(None), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_opt_in_inline_items_nest_in_the_fetch(capture):
    from conftest import run_python

    run = run_python("""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        import stallwatch.torch as swt
        swt.instrument(inline_items=True)
        data = TensorDataset(torch.arange(6.0))
        for _ in DataLoader(data, batch_size=3):
            pass
    """, capture)
    begins = [e for e in run.events() if e.kind == "begin"]
    assert [(e.cat, e.name) for e in begins] == (
        [("dataloader", "fetch.iter")] + [("data", "item")] * 3) * 2 + [
        ("dataloader", "fetch.iter")]


def test_opt_in_transfer_records_device_changes_only(capture):
    from conftest import run_python

    run = run_python("""
        import torch
        import stallwatch.torch as swt
        swt.instrument(transfer=True)
        x = torch.ones(4)
        x.to("cpu")
        x.to(torch.float64)
        x.to("meta")
        x.to(device=torch.device("meta"))
    """, capture)
    assert [(e.cat, e.name) for e in run.events() if e.kind == "begin"] == [
        ("device", "transfer"), ("device", "transfer")]


def test_run_usage_errors_exit_2():
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run"], env=child_env(None),
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "usage" in proc.stderr


def test_run_module_mode_sees_its_argv_and_exit_code(tmp_path):
    (tmp_path / "trainmod.py").write_text(
        "import json, sys\n"
        "if __name__ == '__main__':\n"
        "    print(json.dumps(sys.argv[1:]))\n"
        "    sys.exit(5)\n")
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", "-m", "trainmod", "--lr", "1"],
                          env=child_env(None), cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 5, proc.stderr
    assert json.loads(proc.stdout) == ["--lr", "1"]


def test_batch_size_is_sent_on_change_and_repeated_every_64_batches(monkeypatch):
    from stallwatch import _agent
    from stallwatch.torch._state import BATCH_SIZE_REPEAT, TorchState

    sent = []
    monkeypatch.setattr(_agent, "counter", lambda cat, name, value: sent.append((name, value)))
    monkeypatch.setattr(_agent, "mark", lambda cat, name, value: None)
    state = TorchState()
    for size in [4, 4, 4, 3, None, 4]:
        state.on_batch(size)
    assert sent == [("batch_size", 4), ("batch_size", 3), ("batch_size", 4)]
    sent.clear()
    for _ in range(2 * BATCH_SIZE_REPEAT):
        state.on_batch(4)
    assert sent == [("batch_size", 4)] * 2
