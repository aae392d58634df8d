#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Licence checks of the source tree.

  check_licence.py notices REPO [WEB_ASSETS_MANIFEST]
      Every file under tests/data/ (but its README.md, the project's own
      description of them) and every third-party asset embedded in stallwatchd
      (the /vendor/ entries of the web page's asset manifest, written by
      dashboard/web/CMakeLists.txt at configure time) is named by a "Files:"
      entry of THIRD_PARTY_NOTICES, whose title carries the version of the npm
      package the asset comes from; every entry has a "License:" line and its
      licence text, and every path or pattern an entry names still matches a
      file (a stale entry fails too).

  check_licence.py spdx REPO
      Every C/C++, Python, CMake and shell source file carries
      "SPDX-License-Identifier: MIT" in its first lines.

Exit status 0 when the check passes, 1 with one line per problem otherwise.
"""

import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

NOTICES = 'THIRD_PARTY_NOTICES'
DATA_DIR = 'tests/data'
DATA_OWN_FILES = {'tests/data/README.md',
                  # made here by the script beside it (tests/data/README.md)
                  'tests/data/torch113/make_execution_graph.py',
                  'tests/data/torch113/execution_graph.json.gz'}
ENTRY_RULE = re.compile(r'^={20,}$')
LICENCE_RULE = re.compile(r'^-{20,}$')

SKIP_DIRS = {'.git', 'build', 'node_modules', 'out', '__pycache__', '.mypy_cache'}
SPDX_TAG = 'SPDX-License-Identifier: MIT'
SPDX_LINES = 5
SOURCE_SUFFIXES = ('.c', '.cc', '.cpp', '.h', '.hpp', '.py', '.pyi', '.cmake', '.sh')
SOURCE_NAMES = {'CMakeLists.txt'}
# Not the project's sources: third-party data and files generated into the tree.
SPDX_EXEMPT_DIRS = ('tests/data/',)


def parse_notices(text):
    """The entries of THIRD_PARTY_NOTICES: [(title, [file patterns], licence, body)]."""
    entries = []
    blocks = []
    current = None
    for line in text.splitlines():
        if ENTRY_RULE.match(line):
            current = []
            blocks.append(current)
        elif current is not None:
            current.append(line)
    for block in blocks:
        if not any(line.strip() for line in block):
            continue
        title = block[0].strip()
        files, licence, body = [], None, []
        in_files = False
        past_rule = False
        for line in block[1:]:
            if past_rule:
                body.append(line)
                continue
            if LICENCE_RULE.match(line):
                past_rule = True
                continue
            if line.startswith('Files:'):
                in_files = True
                value = line[len('Files:'):].strip()
                if not value.startswith('('):
                    files += value.split()
                continue
            if in_files and line.startswith(' ') and '/' in line and not line.strip().startswith('('):
                if re.match(r'^\s+\S+$', line):
                    files.append(line.strip())
                    continue
            in_files = False
            if line.startswith('License:'):
                licence = line[len('License:'):].strip()
        entries.append((title, files, licence, '\n'.join(body).strip()))
    return entries


def matches(pattern, path):
    if '**' in pattern:
        regex = re.escape(pattern).replace(r'\*\*', '.*').replace(r'\*', '[^/]*')
        return re.fullmatch(regex, path) is not None
    return fnmatch.fnmatchcase(path, pattern) and path.count('/') == pattern.count('/')


def data_files(repo):
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(repo, DATA_DIR)):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            path = os.path.relpath(os.path.join(dirpath, name), repo)
            if path not in DATA_OWN_FILES:
                out.append(path)
    return sorted(out)


def vendored_assets(repo, manifest):
    """(served path, repository path) of every /vendor/ asset the daemon embeds."""
    out = []
    with open(manifest) as f:
        for line in f:
            line = line.strip()
            if not line.startswith('/vendor/') or '|' not in line:
                continue
            served, path = line.split('|', 1)
            out.append((served, os.path.relpath(path, repo)))
    return out


def npm_version(repo, rel):
    """The version of the npm package a file under node_modules/ belongs to, or None."""
    parts = rel.split('/')
    if 'node_modules' not in parts:
        return None
    package = parts[:parts.index('node_modules') + 2]
    try:
        with open(os.path.join(repo, *package, 'package.json')) as f:
            return json.load(f).get('version')
    except (OSError, ValueError):
        return None


def check_notices(repo, manifest):
    problems = []
    path = os.path.join(repo, NOTICES)
    if not os.path.exists(path):
        return [f'{NOTICES} is missing']
    entries = parse_notices(open(path, encoding='utf-8').read())
    patterns = []
    for title, files, licence, body in entries:
        if not licence:
            problems.append(f'{NOTICES}: entry "{title}" has no License: line')
        if len(body) < 200:
            problems.append(f'{NOTICES}: entry "{title}" has no licence text')
        patterns += [(p, title) for p in files]

    wanted = [(p, p) for p in data_files(repo)]
    if manifest:
        if not os.path.exists(manifest):
            problems.append(f'{manifest}: no such web asset manifest (configure first)')
        else:
            assets = vendored_assets(repo, manifest)
            if not assets:
                problems.append(f'{manifest}: no /vendor/ assets found (is uPlot still embedded?)')
            wanted += [(f'{p} (embedded as {served})', p) for served, p in assets]
    for shown, rel in wanted:
        titles = [title for p, title in patterns if matches(p, rel)]
        if not titles:
            problems.append(f'{shown}: no entry in {NOTICES}')
            continue
        version = npm_version(repo, rel)
        if version and not any(version in title.split() for title in titles):
            problems.append(f'{shown}: its npm package is version {version}, but its entry in '
                            f'{NOTICES} is "{titles[0]}"')

    for pattern, title in patterns:
        if not glob.glob(os.path.join(repo, pattern), recursive=True):
            problems.append(f'{NOTICES}: "{title}" names {pattern}, which matches no file')
    return problems


def source_files(repo):
    try:
        listed = subprocess.run(['git', 'ls-files', '-z'], cwd=repo, capture_output=True,
                                check=True).stdout.decode().split('\0')
        candidates = [p for p in listed if p]
    except (OSError, subprocess.CalledProcessError):
        candidates = []
        for dirpath, dirnames, filenames in os.walk(repo):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            candidates += [os.path.relpath(os.path.join(dirpath, f), repo) for f in filenames]
    out = []
    for rel in sorted(candidates):
        if rel.startswith(SPDX_EXEMPT_DIRS) or not os.path.isfile(os.path.join(repo, rel)):
            continue
        name = os.path.basename(rel)
        if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
            out.append(rel)
            continue
        if '.' not in name:
            with open(os.path.join(repo, rel), 'rb') as f:
                first = f.readline(200)
            if first.startswith(b'#!') and re.search(rb'\b(sh|bash|python3?)\b', first):
                out.append(rel)
    return out


def check_spdx(repo):
    problems = []
    for rel in source_files(repo):
        with open(os.path.join(repo, rel), encoding='utf-8', errors='replace') as f:
            head = [f.readline() for _ in range(SPDX_LINES)]
        if not any(SPDX_TAG in line for line in head):
            problems.append(f'{rel}: no "{SPDX_TAG}" in its first {SPDX_LINES} lines')
    return problems


def main(argv):
    if len(argv) < 3 or argv[1] not in ('notices', 'spdx'):
        print(__doc__, file=sys.stderr)
        return 2
    repo = os.path.abspath(argv[2])
    if argv[1] == 'notices':
        problems = check_notices(repo, argv[3] if len(argv) > 3 else None)
    else:
        problems = check_spdx(repo)
    for problem in problems:
        print(problem)
    if problems:
        print(f'{argv[1]}: {len(problems)} problem(s)')
        return 1
    print(f'{argv[1]}: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
