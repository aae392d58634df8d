# SPDX-License-Identifier: MIT
"""setuptools glue for the stallwatch wheel (metadata: pyproject.toml).

The extension is not compiled here: build_support.native_build takes the one
CMake built (or builds it), and build_support.bundle_libs copies every shared
library it needs into the wheel. The result is one ``cp38-abi3`` wheel for
CPython >= 3.8 on this platform::

    python3 -m pip wheel --no-build-isolation --no-deps -w dist agent/python
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_support import bundle_libs, native_build  # noqa: E402

PTH_FILE = "stallwatch-dftracer-alias.pth"
AGENT_SONAME = "libstallwatch.so.0"
POSIX_LIBRARY = "libstallwatch_posix.so"


class BuildPy(build_py):
    """Also puts the dftracer-alias .pth file at the top of site-packages."""

    def run(self) -> None:
        super().run()
        self.copy_file(str(HERE / PTH_FILE), os.path.join(self.build_lib, PTH_FILE))


class BuildNative(build_ext):
    """Copies the CMake-built extension, agent and POSIX capture into the package,
    stripped, and bundles the libraries they need (stallwatch.libs/)."""

    def build_extension(self, ext: Extension) -> None:
        natives = native_build.locate(HERE)
        extension = Path(self.get_ext_fullpath(ext.name))
        package_dir = extension.parent
        package_dir.mkdir(parents=True, exist_ok=True)
        agent = package_dir / AGENT_SONAME
        posix = package_dir / POSIX_LIBRARY
        libs_dir = package_dir.parent / bundle_libs.LIBS_DIR_NAME
        shutil.rmtree(libs_dir, ignore_errors=True)
        for source, target in ((natives.extension, extension), (natives.agent, agent),
                               (natives.posix, posix)):
            shutil.copyfile(source, target)
            target.chmod(0o755)
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)
        bundle_libs.bundle([extension, agent, posix], libs_dir)
        for native in (extension, posix):
            outside = bundle_libs.check_closure(native, package_dir.parent)
            if outside:
                raise bundle_libs.BundleError(f"{native.name} still loads libraries from outside "
                                              "the wheel: " + ", ".join(outside))


setup(
    ext_modules=[Extension("stallwatch._native", sources=[], py_limited_api=True)],
    cmdclass={"build_py": BuildPy, "build_ext": BuildNative},
    options={"bdist_wheel": {"py_limited_api": "cp38"}},
)
