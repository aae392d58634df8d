# SPDX-License-Identifier: MIT
"""The wheel itself: tags and metadata, every module of the package, and native files
that need nothing from the system but glibc.

* WHEEL says cp38-abi3-linux_<arch>; METADATA requires Python >= 3.8; the
  version is the project's; the licence is in the dist-info.
* Every file of agent/python/stallwatch is in it, and the .pth of the dftracer
  alias at the top.
* Each native file's DT_NEEDED entries are glibc's or files of the wheel that
  its RUNPATH ($ORIGIN-relative only) finds; the bundled libraries have
  hash-renamed sonames, so no other copy in a process can stand in for them.
* The glibc it needs is at most Debian 12's (2.36): the README says so.
* As root, in a mount namespace where the system's ZeroMQ and every library
  the wheel bundles are hidden (bind-mounted over with /dev/null), the
  installed package still imports and sends a loop to stallwatchd.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import zipfile

import pytest

import wheel_env
from daemon_fixture import get_json, requires_daemon

SOURCE = os.environ.get("STALLWATCH_TEST_SOURCE_DIR",
                        os.path.join(wheel_env.HERE, "..", ".."))
PACKAGE = os.path.join(SOURCE, "agent", "python", "stallwatch")
GLIBC_FLOOR = (2, 36)

_missing = wheel_env.wheel_missing_reason()
pytestmark = pytest.mark.skipif(_missing is not None, reason=_missing or "")


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("wheel"))
    with zipfile.ZipFile(wheel_env.WHEEL) as archive:
        archive.extractall(root)
    return root


def dist_info(unpacked):
    return next(os.path.join(unpacked, d) for d in os.listdir(unpacked)
                if d.endswith(".dist-info"))


def elf_files(unpacked):
    out = []
    for folder in ("stallwatch", "stallwatch.libs"):
        for name in sorted(os.listdir(os.path.join(unpacked, folder))):
            path = os.path.join(unpacked, folder, name)
            if not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    out.append(path)
    return out


def dynamic(path):
    """(needed, runpath entries, soname) from readelf -d."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True,
                         check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    runpath = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.+?)\]", out)
    soname = re.findall(r"\(SONAME\)\s+Library soname: \[(.+?)\]", out)
    return needed, ":".join(runpath).split(":") if runpath else [], soname[0] if soname else None


def test_tags_metadata_version_and_licence(unpacked):
    info = dist_info(unpacked)
    wheel = open(os.path.join(info, "WHEEL")).read()
    assert re.search(r"^Tag: cp38-abi3-linux_\w+$", wheel, re.M), wheel
    assert "Root-Is-Purelib: false" in wheel
    metadata = open(os.path.join(info, "METADATA")).read()
    assert "Name: stallwatch\n" in metadata
    assert "Requires-Python: >=3.8\n" in metadata
    version = re.search(r"^Version: (.+)$", metadata, re.M).group(1)
    assert version == os.environ.get("STALLWATCH_TEST_PROJECT_VERSION", version)
    assert os.path.basename(wheel_env.WHEEL) == f"stallwatch-{version}-cp38-abi3-" + \
        re.search(r"^Tag: cp38-abi3-(\S+)$", wheel, re.M).group(1) + ".whl"
    assert "MIT License" in open(os.path.join(info, "LICENSE")).read()
    notices = open(os.path.join(info, "THIRD_PARTY_NOTICES")).read()
    assert "Libraries bundled in the Python wheel" in notices


def test_every_bundled_library_carries_its_licence(unpacked):
    """Each library in stallwatch.libs/ ships with its Debian package's copyright
    file, so LGPL texts travel with the LGPL libraries."""
    libs = os.path.join(unpacked, "stallwatch.libs")
    licences = os.path.join(libs, "licenses")
    shipped = sorted(os.listdir(licences))
    assert "libzmq5.copyright" in shipped, shipped
    assert "libsodium23.copyright" in shipped, shipped
    zmq = open(os.path.join(licences, "libzmq5.copyright")).read()
    assert "LGPL" in zmq or "GNU Lesser" in zmq
    bundled = [n for n in os.listdir(libs) if ".so" in n]
    # One copyright file per package; a package may hold several libraries.
    assert len(shipped) >= 4 and len(bundled) >= len(shipped), (bundled, shipped)


def test_every_file_of_the_package_is_in_it(unpacked):
    for folder, _, names in os.walk(PACKAGE):
        for name in names:
            if name.endswith((".py", ".pyi", ".typed")):
                relative = os.path.relpath(os.path.join(folder, name), PACKAGE)
                assert os.path.isfile(os.path.join(unpacked, "stallwatch", relative)), relative
    assert os.path.isfile(os.path.join(unpacked, "stallwatch-dftracer-alias.pth"))
    assert os.path.isfile(os.path.join(unpacked, "stallwatch", "_native.abi3.so"))
    assert os.path.isfile(os.path.join(unpacked, "stallwatch", "libstallwatch.so.0"))


def test_every_needed_library_is_glibc_or_found_inside_the_wheel(unpacked):
    bundled = os.listdir(os.path.join(unpacked, "stallwatch.libs"))
    assert any(name.startswith("libzmq-") for name in bundled), bundled
    assert any(name.startswith("libsodium-") for name in bundled), bundled
    for path in elf_files(unpacked):
        needed, runpath, soname = dynamic(path)
        assert all(entry.startswith("$ORIGIN") for entry in runpath), (path, runpath)
        folders = [os.path.normpath(entry.replace("$ORIGIN", os.path.dirname(path)))
                   for entry in runpath]
        for name in needed:
            if name in wheel_env.GLIBC:
                continue
            assert any(os.path.isfile(os.path.join(f, name)) for f in folders), \
                f"{os.path.basename(path)} needs {name}, not in its RUNPATH {runpath}"
        if os.path.basename(os.path.dirname(path)) == "stallwatch.libs":
            assert soname == os.path.basename(path)
            assert re.match(r"^lib[\w.+-]+-[0-9a-f]{8}\.so", soname), soname


def test_needs_no_newer_glibc_than_debian_12(unpacked):
    newest = (0, 0)
    for path in elf_files(unpacked):
        out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True,
                             check=True).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            newest = max(newest, (int(major), int(minor)))
    assert newest <= GLIBC_FLOOR, newest


def hidden_libraries(unpacked):
    """The system files of every library the wheel bundles (and ZeroMQ's own)."""
    stems = {re.sub(r"-[0-9a-f]{8}\.so.*$", "", name)
             for name in os.listdir(os.path.join(unpacked, "stallwatch.libs"))}
    found = set()
    for folder in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            stem = name.split(".so")[0]
            if ".so" in name and stem in stems:
                path = os.path.realpath(os.path.join(folder, name))
                if os.path.isfile(path):
                    found.add(path)
    return sorted(found)


def can_hide_files():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind /dev/null /dev/null"],
                           capture_output=True)
    return probe.returncode == 0


@requires_daemon
def test_runs_where_the_systems_zeromq_and_the_bundled_libraries_are_hidden(unpacked, daemon,
                                                                             tmp_path):
    if not can_hide_files():
        pytest.skip("needs root and `unshare -m` (a private mount namespace) to hide libraries")
    base, ingest = daemon
    venv = str(tmp_path / "venv")
    how = wheel_env.make_venv(sys.executable, venv)
    hidden = hidden_libraries(unpacked)
    assert any("libzmq.so" in path for path in hidden), hidden
    job = "wheel-hidden-system-libs"
    check = ("import ctypes, sys\n"
             "try:\n    ctypes.CDLL('libzmq.so.5')\nexcept OSError:\n    pass\n"
             "else:\n    sys.exit('the system libzmq is still loadable')\n"
             "import runpy\nsys.argv = sys.argv[1:]\n"
             "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    script = os.path.join(wheel_env.HERE, "scenarios", "wheel_loop.py")
    mounts = " && ".join(f"mount --bind /dev/null {path}" for path in hidden)
    command = f'{mounts} && exec "$0" "$@"'
    proc = subprocess.run(["unshare", "-m", "sh", "-c", command, wheel_env.venv_python(venv),
                           "-c", check, script, "10", "20", "10"],
                          env=wheel_env.clean_env(STALLWATCH_COLLECTOR=ingest, STALLWATCH_JOB=job),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"installed by {how}; hidden {hidden}\n{proc.stderr}"
    deadline = time.monotonic() + 30
    steps = None
    while time.monotonic() < deadline:
        try:
            ranks = get_json(f"{base}/api/v1/jobs/{job}")["ranks"]
            if ranks and ranks[0]["state"] == "finished":
                steps = ranks[0]["windows"]["total"]["steps"]
                break
        except urllib.error.HTTPError:
            pass
        time.sleep(0.3)
    assert steps == 10
