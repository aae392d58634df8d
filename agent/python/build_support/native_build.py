# SPDX-License-Identifier: MIT
"""Where the wheel's three native files come from.

* ``stallwatch/_native.abi3.so``: the extension (agent/python/src), built against
  CPython's stable ABI as of 3.8;
* ``stallwatch/libstallwatch.so.0``: the agent, linked with a static C++ runtime
  (CMake target ``stallwatch_agent_portable``), so that it never shares
  libstdc++ with whatever else the training process loads;
* ``stallwatch/libstallwatch_posix.so``: the POSIX capture that
  ``python -m stallwatch.run --posix`` preloads (CMake target
  ``stallwatch_posix_portable``), linked the same way against that agent.

All are built by the project's CMake build. When the environment names them
(``STALLWATCH_PREBUILT_EXTENSION``, ``STALLWATCH_PREBUILT_AGENT`` and
``STALLWATCH_PREBUILT_POSIX``, as the ``stallwatch_wheel`` target does) they are
taken as they are; otherwise the repository this package sits in is configured
(Release, no tests) in ``STALLWATCH_WHEEL_BUILD_DIR`` (default
``<repo>/build/wheel``) and just those targets are built.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple, Optional

MANIFEST = "python-wheel-natives.txt"
TARGETS = ("stallwatch_python_native", "stallwatch_agent_portable", "stallwatch_posix_portable")


class Natives(NamedTuple):
    extension: Path
    agent: Path
    posix: Path


class NativeBuildError(RuntimeError):
    """The native files are neither given nor buildable here."""


def _from_environment() -> Optional[Natives]:
    extension = os.environ.get("STALLWATCH_PREBUILT_EXTENSION", "")
    agent = os.environ.get("STALLWATCH_PREBUILT_AGENT", "")
    posix = os.environ.get("STALLWATCH_PREBUILT_POSIX", "")
    if not extension and not agent and not posix:
        return None
    natives = Natives(Path(extension), Path(agent), Path(posix))
    for path in natives:
        if not path.is_file():
            raise NativeBuildError(f"prebuilt native file {str(path)!r} does not exist")
    return natives


def _build_with_cmake(package_dir: Path) -> Natives:
    source = package_dir.parent.parent
    if not (source / "CMakeLists.txt").is_file() or not (source / "agent").is_dir():
        raise NativeBuildError(
            f"{package_dir} is not inside a stallwatch checkout and no prebuilt native files "
            "were given (STALLWATCH_PREBUILT_EXTENSION, STALLWATCH_PREBUILT_AGENT, "
            "STALLWATCH_PREBUILT_POSIX)")
    build = Path(os.environ.get("STALLWATCH_WHEEL_BUILD_DIR", source / "build" / "wheel"))
    configure = ["cmake", "-S", str(source), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 "-DSTALLWATCH_DEVELOPER_MODE=OFF", "-DSTALLWATCH_BUILD_PYTHON=ON"]
    if not (build / "CMakeCache.txt").exists() and shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    try:
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", *TARGETS], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise NativeBuildError(f"building the native agent with CMake failed: {exc}") from exc
    lines = (build / MANIFEST).read_text().split()
    return Natives(Path(lines[0]), Path(lines[1]), Path(lines[2]))


def locate(package_dir: Path) -> Natives:
    """The extension and agent library for the wheel of the package in `package_dir`."""
    natives = _from_environment()
    return natives if natives is not None else _build_with_cmake(package_dir)
