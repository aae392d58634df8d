# SPDX-License-Identifier: MIT
"""A project outside the tree builds against an installed stallwatch, both ways a
consumer would: find_package(stallwatch) and `pkg-config stallwatch`.

Two installs are tried: `cmake --install` of this build's `library` and
`development` components into a temporary prefix, and the .deb's files
extracted into a temporary root (CMAKE_PREFIX_PATH=<root>/usr, and pkg-config
with PKG_CONFIG_SYSROOT_DIR=<root>, since the package's stallwatch.pc says
prefix=/usr). The program (consumer/main.cc) records a region and a mark and
must count them.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("STALLWATCH_TEST_BINARY_DIR", "")
CMAKE = os.environ.get("STALLWATCH_TEST_CMAKE", "cmake")
LIBDIR = os.environ.get("STALLWATCH_TEST_LIBDIR", "lib")
DEB_DIR = os.path.join(BUILD, "packages")

pytestmark = [
    pytest.mark.skipif(not BUILD, reason="STALLWATCH_TEST_BINARY_DIR not set"),
    pytest.mark.skipif(shutil.which("pkg-config") is None, reason="pkg-config not installed"),
]


def run(args, **kwargs):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)
    assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def staged_prefix(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("prefix"))
    for component in ("library", "development"):
        run([CMAKE, "--install", BUILD, "--prefix", prefix, "--component", component])
    return prefix


@pytest.fixture(scope="module")
def deb_root(tmp_path_factory):
    debs = sorted(glob.glob(os.path.join(DEB_DIR, "stallwatch_*_amd64.deb")))
    if not debs:
        pytest.skip(f"no .deb in {DEB_DIR} (ctest fixture packaging.deb.build)")
    root = str(tmp_path_factory.mktemp("debroot"))
    run(["dpkg-deb", "-x", debs[-1], root])
    return root


def check_program(program, env=None):
    out = run([program, "tcp://127.0.0.1:9"], env=env)
    # The region's begin and end, and the mark.
    assert out.strip() == "recorded 3", out


def build_with_cmake(prefix_path, work):
    source = os.path.join(HERE, "consumer")
    build = os.path.join(work, "cmake-build")
    run([CMAKE, "-S", source, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix_path}",
         "-DCMAKE_BUILD_TYPE=Release"])
    run([CMAKE, "--build", build])
    return os.path.join(build, "consumer")


def build_with_pkg_config(env, work):
    flags = run(["pkg-config", "--cflags", "--libs", "stallwatch"], env=env).split()
    program = os.path.join(work, "consumer-pc")
    run(["c++", "-std=c++17", os.path.join(HERE, "consumer", "main.cc"), "-o", program] + flags)
    return program, flags


def pc_env(pc_dir, sysroot=None):
    env = dict(os.environ, PKG_CONFIG_LIBDIR=pc_dir)
    env.pop("PKG_CONFIG_PATH", None)
    if sysroot:
        # /usr/include and /usr/lib are system folders pkg-config would leave out;
        # under a sysroot they are the staged ones and must be kept.
        env.update(PKG_CONFIG_SYSROOT_DIR=sysroot, PKG_CONFIG_ALLOW_SYSTEM_CFLAGS="1",
                   PKG_CONFIG_ALLOW_SYSTEM_LIBS="1")
    return env


def test_find_package_against_a_cmake_install(staged_prefix, tmp_path):
    program = build_with_cmake(staged_prefix, str(tmp_path))
    # The imported target's location gives the program its RUNPATH into the prefix.
    check_program(program)


def test_pkg_config_against_a_cmake_install(staged_prefix, tmp_path):
    lib = os.path.join(staged_prefix, LIBDIR)
    program, flags = build_with_pkg_config(pc_env(os.path.join(lib, "pkgconfig")), str(tmp_path))
    assert f"-L{lib}" in flags and f"-I{staged_prefix}/include" in flags, flags
    check_program(program, env=dict(os.environ, LD_LIBRARY_PATH=lib))


def test_find_package_against_the_deb(deb_root, tmp_path):
    program = build_with_cmake(os.path.join(deb_root, "usr"), str(tmp_path))
    check_program(program)


def test_pkg_config_against_the_deb(deb_root, tmp_path):
    lib = os.path.join(deb_root, "usr", LIBDIR)
    env = pc_env(os.path.join(lib, "pkgconfig"), sysroot=deb_root)
    version = run(["pkg-config", "--modversion", "stallwatch"], env=env).strip()
    assert version == os.environ.get("STALLWATCH_TEST_PROJECT_VERSION", version)
    program, flags = build_with_pkg_config(env, str(tmp_path))
    assert f"-L{lib}" in flags, flags
    check_program(program, env=dict(os.environ, LD_LIBRARY_PATH=lib))
