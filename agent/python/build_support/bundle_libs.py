# SPDX-License-Identifier: MIT
"""Makes the wheel's native files self-contained, the way auditwheel repairs a wheel.

Every shared library the extension needs (the agent's ZeroMQ, and what ZeroMQ
pulls in: libsodium, PGM, NORM, GSSAPI/Kerberos, libbsd, the C++ runtime) is
copied into ``stallwatch.libs/`` next to the package, renamed with a hash of its
contents (``libzmq-1a2b3c4d.so.5``, with that name as its soname) so that it can
never be mistaken for, or replaced by, another copy already loaded in the
process (a system libzmq, pyzmq's own). The package's files and every copied
library then name the renamed files in DT_NEEDED and find them through an
``$ORIGIN`` RUNPATH.

Only the C library stays outside: glibc's own libraries (``GLIBC_LIBRARIES``),
which must be the system's. ``check_closure`` proves the result with ``ldd``:
every library the extension loads resolves inside the wheel's tree or is one of
those.

Needs ``ldd`` and ``patchelf`` (Debian: libc-bin, patchelf).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

# glibc's libraries (Debian package libc6): never copied, always the system's.
GLIBC_LIBRARIES = frozenset({
    "linux-vdso.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libc.so.6", "libm.so.6",
    "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1", "libresolv.so.2",
    "libanl.so.1", "libmvec.so.1", "libBrokenLocale.so.1",
})

LIBS_DIR_NAME = "stallwatch.libs"
LICENCES_DIR_NAME = "licenses"
DEBIAN_DOC = Path("/usr/share/doc")

_LDD_LINE = re.compile(r"^\s*(\S+)\s+=>\s+(.+?)\s+\(0x[0-9a-f]+\)\s*$")
_LDD_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")
_LDD_DIRECT = re.compile(r"^\s*(/\S+)\s+\(0x[0-9a-f]+\)\s*$")


class BundleError(RuntimeError):
    """A library could not be found, copied or patched."""


def _run(*args: str) -> str:
    try:
        return subprocess.run(list(args), check=True, capture_output=True, text=True).stdout
    except FileNotFoundError as exc:
        raise BundleError(f"{args[0]} is needed to bundle libraries: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise BundleError(f"{' '.join(args)} failed: {exc.stderr.strip()}") from exc


def ldd(path: Path, env: Optional[Dict[str, str]] = None) -> List[Tuple[str, Optional[str]]]:
    """(soname, resolved path or None when not found) of every library `path` loads,
    transitively, as the dynamic loader resolves them (vdso and the loader itself
    included, with the loader's path as its name)."""
    proc = subprocess.run(["ldd", str(path)], capture_output=True, text=True,
                          env=env if env is not None else dict(os.environ))
    if proc.returncode != 0:
        raise BundleError(f"ldd {path} failed: {proc.stderr.strip() or proc.stdout.strip()}")
    found: List[Tuple[str, Optional[str]]] = []
    for line in proc.stdout.splitlines():
        match = _LDD_LINE.match(line)
        if match:
            found.append((match.group(1), match.group(2)))
            continue
        match = _LDD_NOT_FOUND.match(line)
        if match:
            found.append((match.group(1), None))
            continue
        match = _LDD_DIRECT.match(line)
        if match:
            found.append((os.path.basename(match.group(1)), match.group(1)))
        elif line.strip().startswith("linux-vdso"):
            found.append(("linux-vdso.so.1", None))
    return found


def needed(path: Path) -> List[str]:
    """DT_NEEDED entries of `path`."""
    return [line.strip() for line in _run("patchelf", "--print-needed", str(path)).splitlines()
            if line.strip()]


def runpath(path: Path) -> str:
    """DT_RUNPATH (or DT_RPATH) of `path`, "" when it has none."""
    return _run("patchelf", "--print-rpath", str(path)).strip()


def is_glibc(soname: str) -> bool:
    return soname in GLIBC_LIBRARIES or soname.startswith("ld-linux")


def hashed_name(soname: str, contents: bytes) -> str:
    """``libzmq.so.5`` -> ``libzmq-<8 hex digits of sha256>.so.5``."""
    digest = hashlib.sha256(contents).hexdigest()[:8]
    stem, dot, rest = soname.partition(".so")
    return f"{stem}-{digest}{dot}{rest}"


def bundle(package_files: Iterable[Path], libs_dir: Path) -> Dict[str, str]:
    """Copies every non-glibc library that `package_files` need (transitively) into
    `libs_dir`, renamed, and patches DT_NEEDED, sonames and RUNPATHs. The package
    files find each other through ``$ORIGIN`` (they sit in one folder) and the
    copies through ``$ORIGIN/../<libs_dir name>``. Returns {original soname:
    bundled file name}."""
    files = [Path(p).resolve() for p in package_files]
    inside = {p.name for p in files}
    sources: Dict[str, str] = {}
    for path in files:
        for soname, resolved in ldd(path):
            if is_glibc(soname) or soname in inside:
                continue
            if resolved is None:
                raise BundleError(f"{path.name} needs {soname}, which is not installed")
            sources.setdefault(soname, os.path.realpath(resolved))

    libs_dir.mkdir(parents=True, exist_ok=True)
    renamed: Dict[str, str] = {}
    copies: List[Path] = []
    for soname, source in sorted(sources.items()):
        contents = Path(source).read_bytes()
        new_name = hashed_name(soname, contents)
        target = libs_dir / new_name
        shutil.copyfile(source, target)
        target.chmod(0o755)
        renamed[soname] = new_name
        copies.append(target)
    copy_licences(sources.values(), libs_dir / LICENCES_DIR_NAME)

    relative_libs = os.path.relpath(libs_dir.resolve(), files[0].parent) if files else "."
    # One change per patchelf run: patchelf 0.14 can corrupt a file when one run
    # rewrites the dynamic string table for several changes at once.
    for path in files + copies:
        for old in needed(path):
            if old in renamed:
                _run("patchelf", "--replace-needed", old, renamed[old], str(path))
        if path in copies:
            _run("patchelf", "--set-soname", path.name, str(path))
            _run("patchelf", "--set-rpath", "$ORIGIN", str(path))
        else:
            _run("patchelf", "--set-rpath", f"$ORIGIN:$ORIGIN/{relative_libs}", str(path))
        renamed_needed = needed(path)
        left = [name for name in renamed_needed if name in renamed]
        if left:
            raise BundleError(f"patchelf left {left} in {path.name}: {renamed_needed}")
    return renamed


def debian_package(library: str) -> str:
    """The Debian package that installed `library` (a resolved path), found by its
    file name so that /lib and /usr/lib spellings both match."""
    out = _run("dpkg-query", "-S", "*/" + os.path.basename(library))
    for line in out.splitlines():
        package, _, path = line.partition(": ")
        if os.path.realpath(path.strip()) == os.path.realpath(library):
            return package.split(":")[0]
    raise BundleError(f"no Debian package owns {library}")


def copy_licences(libraries: Iterable[str], target: Path) -> List[str]:
    """Copies the Debian copyright file of every bundled library's package into
    `target` as ``<package>.copyright``: the licence texts (LGPL ones included)
    travel with the copies. Returns the packages, sorted."""
    packages = sorted({debian_package(library) for library in libraries})
    target.mkdir(parents=True, exist_ok=True)
    for package in packages:
        source = DEBIAN_DOC / package / "copyright"
        if not source.is_file():
            raise BundleError(f"{package} has no {source}: its licence cannot ship in the wheel")
        shutil.copyfile(source, target / f"{package}.copyright")
    return packages


def check_closure(extension: Path, root: Path) -> List[str]:
    """What `extension` loads from outside `root` other than glibc, as ``ldd`` resolves
    it with no LD_LIBRARY_PATH: [] when the bundle is self-contained; "soname =>
    not found" entries count as outside."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    root_resolved = str(root.resolve()) + os.sep
    outside = []
    for soname, resolved in ldd(extension, env):
        if is_glibc(soname):
            continue
        if resolved is None:
            outside.append(f"{soname} => not found")
        elif not os.path.realpath(resolved).startswith(root_resolved):
            outside.append(f"{soname} => {resolved}")
    return outside
