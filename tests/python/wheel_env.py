# SPDX-License-Identifier: MIT
"""The wheel under test and fresh virtual environments to install it in.

STALLWATCH_TEST_WHEEL names the wheel (built by the stallwatch_wheel target);
``find_interpreter("3.9")`` looks for a CPython of that version (pyenv's,
``python3.9`` on PATH, /usr/bin, /usr/local/bin); ``make_venv`` creates a venv
with it and installs the wheel with that venv's own pip, offline.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import zipfile
from typing import Dict, List, Optional

WHEEL = os.environ.get("STALLWATCH_TEST_WHEEL", "")
HERE = os.path.dirname(os.path.abspath(__file__))

# glibc's libraries: the only ones the wheel's extension may load from the system.
GLIBC = ("linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libpthread.so.0",
         "libdl.so.2", "librt.so.1", "libresolv.so.2")


def wheel_missing_reason() -> Optional[str]:
    if not WHEEL:
        return "STALLWATCH_TEST_WHEEL not set (the wheel is not built: see agent/python)"
    if not os.path.isfile(WHEEL):
        return f"{WHEEL} not built (cmake --build ... --target stallwatch_wheel)"
    return None


def _version_of(python: str) -> Optional[str]:
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_interpreter(version: str) -> Optional[str]:
    """A CPython executable of `version` ("3.8"), or None."""
    roots = [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    candidates: List[str] = []
    for root in roots:
        if root:
            candidates += sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin",
                                                        "python3")), reverse=True)
    for name in (f"python{version}",):
        found = shutil.which(name)
        if found:
            candidates.append(found)
    candidates += [f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"]
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK) and \
                _version_of(candidate) == version:
            return candidate
    return None


def venv_python(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


def site_packages(venv: str) -> str:
    python = venv_python(venv)
    out = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def make_venv(interpreter: str, venv: str) -> str:
    """Creates `venv` with `interpreter` and installs the wheel with the venv's pip
    (no index, no dependencies). Returns how it was installed, for messages."""
    created = subprocess.run([interpreter, "-m", "venv", venv], capture_output=True, text=True,
                             timeout=300)
    if created.returncode == 0:
        subprocess.run([venv_python(venv), "-m", "pip", "install", "--no-index", "--no-deps",
                        "--disable-pip-version-check", "--quiet", WHEEL],
                       check=True, timeout=300)
        return "pip"
    # An interpreter without ensurepip (Debian's python3 without python3-venv):
    # install the wheel as pip would, by unpacking it into site-packages.
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([interpreter, "-m", "venv", "--without-pip", venv], check=True, timeout=120)
    with zipfile.ZipFile(WHEEL) as archive:
        archive.extractall(site_packages(venv))
    for root, _, files in os.walk(site_packages(venv)):
        for name in files:
            if ".so" in name:
                os.chmod(os.path.join(root, name), 0o755)
    return "unpacked (no ensurepip: " + created.stderr.strip().splitlines()[-1] + ")"


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment of a process in a venv: no PYTHONPATH into the build tree, no
    library path, no GPU source, quiet agent."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHOME",
                        "STALLWATCH_JOB", "STALLWATCH_RANK", "VIRTUAL_ENV")}
    env.update(PYTHONDONTWRITEBYTECODE="1", STALLWATCH_LOG="0", STALLWATCH_GPU="none",
               STALLWATCH_COLLECTOR="tcp://127.0.0.1:9")
    env.update(extra)
    return env


def ldd_outside(path: str, root: str) -> List[str]:
    """Libraries `path` loads (per ldd, transitively) that are neither under `root`
    nor glibc's: "soname => where"."""
    env = clean_env()
    out = subprocess.run(["ldd", path], capture_output=True, text=True, env=env, check=True)
    outside = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if not parts:
            continue
        soname = os.path.basename(parts[0])
        if soname in GLIBC or soname.startswith("ld-linux"):
            continue
        if "=>" in parts:
            target = parts[parts.index("=>") + 1]
            if target == "not" or not os.path.realpath(target).startswith(
                    os.path.realpath(root) + os.sep):
                outside.append(f"{soname} => {' '.join(parts[parts.index('=>') + 1:])}")
        else:
            outside.append(line.strip())
    return outside
