#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails when a C/C++ file of the project is not formatted as .clang-format says.

Runs `clang-format --dry-run -Werror` over every .c/.cc/.h/.hpp file under the
project's source folders (not build trees, node_modules or generated code) and
prints the files that need `clang-format -i`. Usage:
  check_format.py CLANG_FORMAT [REPO]
"""

import os
import subprocess
import sys

FOLDERS = ('agent', 'bench', 'collector', 'dashboard', 'schema', 'tests')
SKIP_DIRS = {'.git', 'build', 'node_modules', 'out', '__pycache__'}
EXT = ('.c', '.cc', '.h', '.hpp')


def main():
    clang_format = sys.argv[1]
    repo = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(os.path.dirname(__file__), '..', '..'))
    files = []
    for top in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(repo, top)):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            files += [os.path.join(dirpath, f) for f in filenames if f.endswith(EXT)]
    files.sort()
    bad = []
    for start in range(0, len(files), 100):
        chunk = files[start:start + 100]
        run = subprocess.run([clang_format, '--dry-run', '-Werror', '--style=file'] + chunk,
                             cwd=repo, capture_output=True, text=True)
        if run.returncode != 0:
            for line in run.stderr.splitlines():
                if ': error:' in line:
                    path = os.path.relpath(line.split(':', 1)[0], repo)
                    if path not in bad:
                        bad.append(path)
            if not bad:
                print(run.stderr)
                return 2
    for path in bad:
        print(f'{path}: not formatted (clang-format -i {path})')
    print(f'check_format: {len(files)} files, {len(bad)} not formatted')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
