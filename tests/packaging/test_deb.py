# SPDX-License-Identifier: MIT
"""The Debian package (packaging/CMakeLists.txt) as built by CPack from this build tree.

* lintian finds no error in it;
* its files: the daemon, the CLI, man pages, libstallwatch with headers, CMake
  config and stallwatch.pc, the unit, the conffile, rules and dashboard,
  copyright and changelog; no Python;
* its control data: computed Depends, conffiles, maintainer scripts;
* the unit runs the packaged daemon with the packaged config, creates the
  socket the agents look for, and `systemd-analyze verify` accepts it (with
  ExecStart pointed at the unpacked daemon);
* the maintainer scripts, run with stand-ins for deb-systemd-helper,
  deb-systemd-invoke and systemctl, enable the unit on install and forget it
  and the dynamic user's state on purge;
* as root, `dpkg --root` installs it into an empty temporary root and purges
  it again (the scripts run chrootless, with DPKG_ROOT, as dpkg does for such
  roots);
* a real install, start and purge under systemd needs a machine where systemd
  is PID 1 and STALLWATCH_TEST_SYSTEM_INSTALL=1 (it changes the machine): it is
  skipped otherwise, and says why.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import stat
import subprocess
import time
import urllib.request

import pytest

BUILD = os.environ.get("STALLWATCH_TEST_BINARY_DIR", "")
VERSION = os.environ.get("STALLWATCH_TEST_PROJECT_VERSION", "")
LIBDIR = os.environ.get("STALLWATCH_TEST_LIBDIR", "lib/x86_64-linux-gnu")
DEB_DIR = os.path.join(BUILD, "packages")
UNIT = "lib/systemd/system/stallwatchd.service"
SYSTEM_SOCKET = "/run/stallwatch/ingest.sock"


def run(args, check=True, **kwargs):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    if check:
        assert proc.returncode == 0, f"{' '.join(args)}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def deb():
    debs = sorted(glob.glob(os.path.join(DEB_DIR, "stallwatch_*_amd64.deb")))
    if not debs:
        pytest.fail(f"no stallwatch_*_amd64.deb in {DEB_DIR}: the fixture test "
                    "packaging.deb.build (cpack -G DEB) did not make one")
    return debs[-1]


@pytest.fixture(scope="module")
def unpacked(deb, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("deb"))
    run(["dpkg-deb", "-x", deb, root])
    run(["dpkg-deb", "-e", deb, os.path.join(root, "DEBIAN")])
    return root


def control(unpacked):
    fields = {}
    key = None
    with open(os.path.join(unpacked, "DEBIAN", "control")) as f:
        for line in f:
            if line.startswith(" ") and key:
                fields[key] += "\n" + line.rstrip("\n")
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
    return fields


def test_file_name_and_control_fields(deb, unpacked):
    assert os.path.basename(deb) == f"stallwatch_{VERSION}_amd64.deb"
    fields = control(unpacked)
    assert fields["Package"] == "stallwatch"
    assert fields["Version"] == VERSION
    assert fields["Architecture"] == "amd64"
    assert "<" in fields["Maintainer"] and fields["Description"].count("\n") >= 5
    # Depends are computed by dpkg-shlibdeps from what the binaries link.
    depends = {re.split(r"[ (]", d.strip())[0] for d in fields["Depends"].split(",")}
    assert {"libc6", "libzmq5", "libstdc++6"} <= depends, fields["Depends"]


def test_lintian_finds_no_errors(deb):
    if shutil.which("lintian") is None:
        pytest.fail("lintian is not installed (scripts/install-deps.sh installs it)")
    proc = run(["lintian", "--fail-on", "error", "--tag-display-limit", "0", deb], check=False)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not [line for line in proc.stdout.splitlines() if line.startswith("E:")]


def test_the_package_holds_the_daemon_side_and_no_python(unpacked):
    expected = [
        "usr/bin/stallwatchd", "usr/bin/stallwatch", "usr/libexec/stallwatch/stallwatch-client",
        "usr/share/man/man1/stallwatchd.1.gz", "usr/share/man/man1/stallwatch.1.gz",
        f"usr/{LIBDIR}/libstallwatch.so.0", f"usr/{LIBDIR}/libstallwatch.so",
        "usr/include/stallwatch/stallwatch.h", "usr/include/stallwatch/stallwatch.hpp",
        f"usr/{LIBDIR}/cmake/stallwatch/stallwatchConfig.cmake",
        f"usr/{LIBDIR}/cmake/stallwatch/stallwatchConfigVersion.cmake",
        f"usr/{LIBDIR}/pkgconfig/stallwatch.pc",
        UNIT, "etc/stallwatch/stallwatchd.toml",
        "usr/share/stallwatch/stallwatch-rules.yml", "usr/share/stallwatch/stallwatch-grafana.json",
        "usr/share/doc/stallwatch/copyright", "usr/share/doc/stallwatch/changelog.gz",
        "usr/share/bash-completion/completions/stallwatch",
        "usr/share/bash-completion/completions/stallwatchd",
    ]
    missing = [p for p in expected if not os.path.lexists(os.path.join(unpacked, p))]
    assert missing == []
    files = [os.path.relpath(os.path.join(d, f), unpacked)
             for d, _, names in os.walk(unpacked) for f in names]
    assert [f for f in files if f.endswith((".py", ".pth"))] == []
    pc = open(os.path.join(unpacked, f"usr/{LIBDIR}/pkgconfig/stallwatch.pc")).read()
    assert "prefix=/usr\n" in pc and f"Version: {VERSION}\n" in pc
    manual = run(["man", "-l", "-Tutf8", os.path.join(unpacked,
                                                     "usr/share/man/man1/stallwatchd.1.gz")],
                 env=dict(os.environ, MANWIDTH="100")).stdout
    manual = re.sub(".\b", "", manual)  # overstrike bold, as man writes it to a pipe
    assert "--config" in manual and "--ingest" in manual


def test_conffile_and_maintainer_scripts_are_declared(unpacked):
    debian = os.path.join(unpacked, "DEBIAN")
    conffiles = open(os.path.join(debian, "conffiles")).read().split()
    assert conffiles == ["/etc/stallwatch/stallwatchd.toml"]
    for script in ("postinst", "prerm", "postrm"):
        path = os.path.join(debian, script)
        assert os.stat(path).st_mode & stat.S_IXUSR, script
        run(["sh", "-n", path])
    triggers = open(os.path.join(debian, "triggers")).read()
    assert "activate-noawait ldconfig" in triggers


def test_unit_runs_the_packaged_daemon_and_makes_the_agents_socket(unpacked, tmp_path):
    unit = open(os.path.join(unpacked, UNIT)).read()
    assert "\nExecStart=/usr/bin/stallwatchd --config /etc/stallwatch/stallwatchd.toml\n" in unit
    assert "\nDynamicUser=yes\n" in unit
    # The daemon's ipc socket is $XDG_RUNTIME_DIR/stallwatch/ingest.sock; the unit
    # sets XDG_RUNTIME_DIR=%t (/run) and has systemd create /run/stallwatch: that
    # is the path the agent library looks for when the user runs no daemon.
    assert "\nEnvironment=XDG_RUNTIME_DIR=%t\n" in unit and "\nRuntimeDirectory=stallwatch\n" in unit
    library = open(os.path.join(unpacked, f"usr/{LIBDIR}/libstallwatch.so.0"), "rb").read()
    assert SYSTEM_SOCKET.encode() + b"\0" in library
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not installed")
    # verify checks that ExecStart exists: point it at the unpacked daemon.
    copy = tmp_path / "stallwatchd.service"
    copy.write_text(unit.replace("/usr/bin/stallwatchd", f"{unpacked}/usr/bin/stallwatchd"))
    proc = run([analyze, "verify", "--man=no", str(copy)], check=False)
    assert proc.returncode == 0 and proc.stdout + proc.stderr == "", proc.stdout + proc.stderr


def stub_tools(folder, log):
    """deb-systemd-helper, deb-systemd-invoke and systemctl that log their arguments;
    was-enabled answers like a new install."""
    os.makedirs(folder, exist_ok=True)
    for tool in ("deb-systemd-helper", "deb-systemd-invoke", "systemctl"):
        path = os.path.join(folder, tool)
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n'
                    'case "$*" in *was-enabled*) exit 0;; esac\nexit 0\n')
        os.chmod(path, 0o755)


def test_maintainer_scripts_enable_on_install_and_forget_everything_on_purge(unpacked, tmp_path):
    log = str(tmp_path / "calls.log")
    stub_tools(str(tmp_path / "bin"), log)
    root = tmp_path / "root"
    state = root / "var/lib/private/stallwatch/journal"
    state.mkdir(parents=True)
    (root / "var/lib/stallwatch").symlink_to("private/stallwatch")
    (root / "etc/stallwatch").mkdir(parents=True)
    env = dict(os.environ, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}", DPKG_ROOT=str(root))
    debian = os.path.join(unpacked, "DEBIAN")
    run([os.path.join(debian, "postinst"), "configure"], env=env)
    calls = open(log).read().splitlines()
    assert "deb-systemd-helper enable stallwatchd.service" in calls, calls
    assert not [c for c in calls if c.startswith(("systemctl", "deb-systemd-invoke"))], \
        "under DPKG_ROOT nothing may start"
    run([os.path.join(debian, "prerm"), "remove"], env=env)
    run([os.path.join(debian, "postrm"), "remove"], env=env)
    assert state.exists(), "remove keeps the state"
    run([os.path.join(debian, "postrm"), "purge"], env=env)
    calls = open(log).read().splitlines()
    assert "deb-systemd-helper purge stallwatchd.service" in calls, calls
    assert not (root / "var/lib/private/stallwatch").exists()
    assert not os.path.lexists(root / "var/lib/stallwatch")
    assert not (root / "etc/stallwatch").exists()


def test_dpkg_installs_into_an_empty_root_and_purges_without_a_trace(deb, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("dpkg --root needs root")
    root = tmp_path / "root"
    for folder in ("var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"):
        (root / folder).mkdir(parents=True)
    (root / "var/lib/dpkg/status").write_text("")
    (root / "var/lib/dpkg/available").write_text("")
    dpkg = ["dpkg", f"--root={root}", "--force-script-chrootless", "--force-depends",
            "--no-triggers"]
    run(dpkg + ["-i", deb])
    assert (root / "usr/bin/stallwatchd").exists()
    assert (root / "etc/stallwatch/stallwatchd.toml").exists()
    wants = root / "etc/systemd/system/multi-user.target.wants/stallwatchd.service"
    assert os.path.lexists(wants), "postinst enables the unit (deb-systemd-helper, DPKG_ROOT)"
    status = run(["dpkg-query", f"--root={root}", "-W", "-f=${Status}", "stallwatch"]).stdout
    assert status == "install ok installed"
    # What the running service would have left behind.
    (root / "var/lib/private/stallwatch/journal").mkdir(parents=True)
    (root / "var/lib/stallwatch").symlink_to("private/stallwatch")
    run(dpkg + ["--purge", "stallwatch"])
    left = sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, names in os.walk(root) for f in names
                  if not os.path.relpath(d, root).startswith("var/lib/dpkg"))
    assert left == [], left
    assert not os.path.lexists(wants)
    for folder in ("etc/stallwatch", "var/lib/private/stallwatch", "usr/share/stallwatch"):
        assert not os.path.lexists(root / folder), folder


def systemd_is_running():
    try:
        with open("/proc/1/comm") as f:
            return f.read().strip() == "systemd" and os.path.isdir("/run/systemd/system")
    except OSError:
        return False


def test_apt_install_starts_the_service_and_purge_removes_it(deb):
    if not systemd_is_running():
        with open("/proc/1/comm") as f:
            init = f.read().strip()
        pytest.skip(f"systemd is not running here (PID 1 is {init!r}): install, start and "
                    "purge under systemd are not checked on this machine")
    if os.environ.get("STALLWATCH_TEST_SYSTEM_INSTALL") != "1" or os.geteuid() != 0:
        pytest.skip("installs the package on this machine: set STALLWATCH_TEST_SYSTEM_INSTALL=1 "
                    "and run as root")
    run(["apt-get", "install", "-y", "--no-install-recommends", os.path.abspath(deb)],
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    try:
        deadline = time.monotonic() + 30
        while run(["systemctl", "is-active", "stallwatchd"], check=False).stdout.strip() \
                != "active":
            assert time.monotonic() < deadline, run(["systemctl", "status", "stallwatchd"],
                                                    check=False).stdout
            time.sleep(0.5)
        assert stat.S_ISSOCK(os.stat(SYSTEM_SOCKET).st_mode)
        with urllib.request.urlopen("http://127.0.0.1:8787/healthz", timeout=5) as response:
            assert json.loads(response.read())["status"] == "ok"
    finally:
        run(["apt-get", "purge", "-y", "stallwatch"],
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    assert not os.path.exists("/usr/bin/stallwatchd")
    assert not os.path.exists("/etc/stallwatch")
    assert not os.path.lexists("/var/lib/private/stallwatch")
    assert run(["systemctl", "is-active", "stallwatchd"], check=False).stdout.strip() != "active"
