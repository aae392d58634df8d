# SPDX-License-Identifier: MIT
"""Builds the stallwatch wheel from a CMake build's native files (target ``stallwatch_wheel``).

    python3 make_wheel.py --extension _native.abi3.so --agent libstallwatch.so.0 \\
        --posix libstallwatch_posix.so --stage DIR --out-dir DIST --expect stallwatch-0.1.0-cp38-abi3-linux_x86_64.whl

The package sources are copied to a staging folder first, so that setuptools'
build and egg-info folders stay out of the source tree, then ``pip wheel``
builds there (offline: no index, no build isolation, Debian's setuptools and
wheel). Fails when the wheel's name is not `--expect` (e.g. the package's
``__version__`` and the CMake project version disagree).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
STAGED = ("pyproject.toml", "setup.py", "LICENSE", "stallwatch-dftracer-alias.pth")
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.so.*")
# The repository's notices of third-party material, in the wheel's dist-info
# beside LICENSE (pyproject.toml's license-files).
NOTICES = PACKAGE_DIR.parent.parent / "THIRD_PARTY_NOTICES"


def stage(target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in STAGED:
        shutil.copyfile(PACKAGE_DIR / name, target / name)
    shutil.copyfile(NOTICES, target / NOTICES.name)
    for folder in ("stallwatch", "build_support"):
        shutil.copytree(PACKAGE_DIR / folder, target / folder, ignore=IGNORED)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extension", required=True, type=Path)
    parser.add_argument("--agent", required=True, type=Path)
    parser.add_argument("--posix", required=True, type=Path)
    parser.add_argument("--stage", required=True, type=Path)
    parser.add_argument("--out-dir", required=True, type=Path)
    parser.add_argument("--expect", required=True, help="file name the wheel must have")
    args = parser.parse_args()

    stage(args.stage)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    expected = args.out_dir / args.expect
    if expected.exists():
        expected.unlink()
    env = dict(os.environ, STALLWATCH_PREBUILT_EXTENSION=str(args.extension.resolve()),
               STALLWATCH_PREBUILT_AGENT=str(args.agent.resolve()),
               STALLWATCH_PREBUILT_POSIX=str(args.posix.resolve()), PIP_NO_INPUT="1")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                    "--no-index", "--disable-pip-version-check", "--quiet",
                    "--wheel-dir", str(args.out_dir), str(args.stage)], check=True, env=env)
    if not expected.is_file():
        built = sorted(p.name for p in args.out_dir.glob("stallwatch-*.whl"))
        print(f"make_wheel: expected {args.expect}, pip built {built}", file=sys.stderr)
        return 1
    print(f"make_wheel: {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
