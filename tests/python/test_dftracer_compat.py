# SPDX-License-Identifier: MIT
"""pydftracer's dft_fn/dftracer API and the opt-in `dftracer` import alias."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from conftest import child_env, run_python


def region_names(run):
    return [(e.kind, e.cat, e.name) for e in run.events() if e.kind in ("begin", "complete")]


def test_dft_fn_styles(capture):
    run = run_python("""
        from stallwatch import dft_fn, dftracer

        df_logger = dftracer.initialize_log(logfile=None, data_dir=None, process_id=-1)
        dlp = dft_fn("dataloader")

        class Dataset:
            @dlp.log_init
            def __init__(self, n):
                self.n = n

            @dlp.log
            def read(self, i):
                return i * 2

            @dlp.log(name="custom")
            def named(self):
                return 1

            @dlp.log_static
            @staticmethod
            def helper():
                return 3

        ds = Dataset(2)
        assert ds.read(2) == 4 and ds.named() == 1 and Dataset.helper() == 3
        for _ in dlp.iter(range(2)):
            pass
        with dft_fn("compute", "train_step") as p:
            p.update(step=11)
        timer = dft_fn("checkpoint", "save")
        timer.flush()
        t = df_logger.get_time()
        df_logger.log_event(name="manual", cat="reader", start_time=t, duration=5)
        off = dft_fn("compute", "off", enable=False)
        with off:
            pass
        df_logger.finalize()
    """, capture)
    assert region_names(run) == [
        ("begin", "dataloader", "Dataset.__init__"),
        ("begin", "dataloader", "Dataset.read"),
        ("begin", "dataloader", "custom"),
        ("begin", "dataloader", "Dataset.helper"),
        ("begin", "dataloader", "loop.iter"), ("begin", "dataloader", "loop.yield"),
        ("begin", "dataloader", "loop.iter"), ("begin", "dataloader", "loop.yield"),
        ("begin", "dataloader", "loop.iter"),  # the wait that ended the loop
        ("begin", "compute", "train_step"),
        ("complete", "checkpoint", "save"),
        ("complete", "reader", "manual"),
    ]
    manual = [e for e in run.events() if e.name == "manual"][0]
    assert manual.dur_ns == 5000
    steps = [(e.cat, e.name, e.value) for e in run.events() if e.kind == "mark"]
    assert steps == [("pipeline", "step", 11)]


def test_dft_fn_default_name_is_the_calling_function(capture):
    run = run_python("""
        from stallwatch import dft_fn

        def load_batch():
            with dft_fn("reader"):
                pass

        load_batch()
    """, capture)
    assert region_names(run) == [("begin", "reader", "load_batch")]


ALIAS_SCRIPT = """
from dftracer.python import ai, dft_fn, dftracer
from dftracer.logger import dft_fn as old_dft_fn
import stallwatch
assert ai is stallwatch.ai and dft_fn is stallwatch.dft_fn and old_dft_fn is dft_fn
with ai.compute.forward:
    pass
"""


def test_alias_installed_explicitly(capture):
    run = run_python("import stallwatch\nassert stallwatch.install_dftracer_alias()\n"
                     + ALIAS_SCRIPT, capture)
    assert region_names(run) == [("begin", "compute", "forward")]


def test_alias_is_opt_in():
    proc = subprocess.run([sys.executable, "-c", "import stallwatch; import dftracer.python"],
                          env=child_env(None), capture_output=True, text=True)
    assert proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr


def test_alias_by_environment_under_run(capture, tmp_path):
    script = tmp_path / "annotated.py"
    script.write_text(ALIAS_SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "stallwatch.run", str(script)],
                          env=child_env(capture, STALLWATCH_DFTRACER_ALIAS="1"),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    capture.wait_until(lambda: capture.finished_pids(), 10)
    assert [(e.cat, e.name) for e in capture.events() if e.kind == "begin"] == [
        ("compute", "forward")]


def test_alias_by_environment_through_pth_file(tmp_path):
    site_dir = os.environ["STALLWATCH_TEST_PYTHONPATH"]
    assert os.path.exists(os.path.join(site_dir, "stallwatch-dftracer-alias.pth"))
    code = textwrap.dedent(f"""
        import site
        site.addsitedir({site_dir!r})
        import dftracer.python
        print(dftracer.python.__stallwatch_alias__)
    """)
    proc = subprocess.run([sys.executable, "-c", code],
                          env=child_env(None, STALLWATCH_DFTRACER_ALIAS="1"),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_real_dftracer_wins_over_alias(tmp_path):
    fake = tmp_path / "dftracer"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL = True\n")
    code = ("import stallwatch; assert not stallwatch.install_dftracer_alias(); "
            "import dftracer; print(dftracer.REAL)")
    env = child_env(None)
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env["PYTHONPATH"]
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
