#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that every #include follows the layering of docs/design.md.

Each component keeps its public headers in <root>/include/<name>/ and the rest
in <root>/src/. Rules, for every C/C++ file of the project:

  1. "<name>/x.h" names a component's public header: it must exist, and the
     including file's component must be <name> itself or one it may depend on
     (LAYERS below; a lower layer never includes a higher one).
  2. "x.h" (no directory) is a private header: it must be one of the
     including component's own (its src/ or the file's own directory). A
     public header includes no private header at all.
  3. No include climbs out of its directory ("../") or names a src/ path.
  4. Tests and benchmarks are not layered: they may include the public
     headers of any component, and the private headers of the component they
     are named after (tests/unit/<c>/, bench/<c>/: white-box), but no other
     component's private headers; and helpers of tests/support or their own
     kind (tests/unit/<c>/, bench/*/).

Exits 1 and prints every violation as file:line: message.
"""

import os
import re
import sys

# component -> (root, components whose public headers it may include).
# Keep in step with docs/design.md ("Layers") and each CMakeLists.txt's
# target_link_libraries.
LAYERS = {
    'protocol': ('schema', []),
    'schema': ('schema', ['protocol']),
    'version': (None, []),
    'agent': ('agent', ['protocol', 'schema']),
    'catalog': ('collector/catalog', []),
    'engine': ('collector/engine', ['catalog', 'protocol']),
    'ingest': ('collector/ingest', ['engine', 'protocol', 'schema']),
    'config': ('collector/config', ['engine']),
    'keys': ('collector/keys', ['protocol']),
    'http_client': ('collector/http_client', []),
    'tree': ('collector/tree', ['engine', 'catalog', 'protocol']),
    'alerts': ('collector/alerts', ['catalog', 'engine', 'config', 'http_client']),
    'serve': ('collector/serve', ['catalog', 'engine', 'alerts', 'protocol']),
    'web': ('dashboard/web', ['catalog']),
    'daemon': ('collector/daemon',
               ['engine', 'ingest', 'config', 'keys', 'alerts', 'serve', 'web', 'version',
                'protocol', 'tree', 'http_client']),
    'traces': ('collector/traces', ['engine']),
    'analyze': ('collector/analyze', ['traces', 'engine', 'config']),
    'replay': ('collector/replay', ['traces', 'ingest', 'engine', 'config']),
    'tui': ('dashboard/tui', ['catalog', 'version', 'http_client']),
    'cli': ('collector/cli', ['analyze', 'replay', 'tui', 'version']),
}

# Headers under "stallwatch/" belong to several components.
STALLWATCH_HEADERS = {
    'protocol.h': 'protocol', 'device_lane.h': 'protocol', 'source_info.h': 'protocol',
    'curve_key.h': 'protocol', 'event_flags.h': 'protocol',
    'stallwatch.h': 'agent', 'stallwatch.hpp': 'agent', 'version.h': 'version',
}
GENERATED = {'stallwatch_generated.h': 'schema'}

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')
SOURCE_EXT = ('.c', '.cc', '.h', '.hpp')
SKIP_DIRS = {'.git', 'build', 'node_modules', 'out', '__pycache__'}


def closure(name):
    seen, todo = set(), [name]
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        todo.extend(LAYERS[c][1])
    return seen


def component_of(path):
    """(component, kind) of a repo-relative path; kind: public, private, test, other."""
    best = None
    for name, (root, _) in LAYERS.items():
        if root and (path == root or path.startswith(root + '/')):
            if best is None or len(root) > len(LAYERS[best][0]):
                best = name
    if path.startswith('schema/include/stallwatch/'):
        return 'protocol', 'public'
    if best in ('protocol', 'schema'):
        return 'schema', 'private'
    if best == 'agent':
        if path.startswith('agent/include/'):
            return 'agent', 'public'
        return 'agent', 'private'
    if best is not None:
        root = LAYERS[best][0]
        if path.startswith(f'{root}/include/'):
            return best, 'public'
        return best, 'private'
    m = re.match(r'(tests/unit|bench)/(\w+)/', path)
    if m:
        tested = 'agent' if m.group(2) in ('gpu', 'posix') else m.group(2)
        return (tested if tested in LAYERS else None), 'test'
    return None, 'other'


def public_header_exists(root, name, header):
    return os.path.isfile(os.path.join(root, 'include', name, header))


def check_file(repo, path, errors):
    comp, kind = component_of(path)
    here = os.path.dirname(path)
    allowed = closure(comp) if kind in ('public', 'private') else set(LAYERS)
    with open(os.path.join(repo, path), encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        bracket, spelled = m.groups()
        where = f'{path}:{number}'
        if '..' in spelled.split('/') or '/src/' in '/' + spelled:
            errors.append(f'{where}: "{spelled}" reaches into another directory; '
                          'include a public header by its component name instead')
            continue
        parts = spelled.split('/')
        if parts[0] == 'stallwatch' and len(parts) == 2:
            owner = STALLWATCH_HEADERS.get(parts[1])
            if owner is None:
                if bracket == '"':
                    errors.append(f'{where}: unknown header "{spelled}"')
                continue
            if kind != 'other' and owner not in allowed:
                errors.append(f'{where}: {comp} may not include {owner}\'s "{spelled}"')
            continue
        if bracket == '<':
            continue  # system and third-party headers
        if spelled in GENERATED:
            owner = GENERATED[spelled]
            if kind == 'public':
                errors.append(f'{where}: a public header includes generated "{spelled}"')
            elif kind != 'other' and owner not in allowed:
                errors.append(f'{where}: {comp} may not include {owner}\'s "{spelled}"')
            continue
        if len(parts) == 2 and parts[0] in LAYERS and LAYERS[parts[0]][0]:
            owner = parts[0]
            root = LAYERS[owner][0]
            if not public_header_exists(repo + '/' + root, owner, parts[1]):
                errors.append(f'{where}: "{spelled}" is not a public header of {owner} '
                              f'({root}/include/{owner}/)')
            elif kind != 'other' and owner not in allowed:
                errors.append(f'{where}: {comp} ({kind}) may not include {owner} '
                              f'("{spelled}"): {owner} is not below {comp}')
            continue
        if len(parts) > 1:
            errors.append(f'{where}: "{spelled}" is not a component\'s public header')
            continue
        # A private header, by its bare name.
        if kind == 'public':
            errors.append(f'{where}: public header includes private "{spelled}"')
            continue
        candidates = [here]
        if comp in LAYERS and LAYERS[comp][0]:
            root = LAYERS[comp][0]
            candidates.append(f'{root}/src')
            if comp == 'agent':
                candidates += ['agent/src', 'agent/gpu', 'agent/posix']
        if path.startswith('tests/unit/') and comp is not None:
            candidates.append('tests/unit/' + comp)
        if path.startswith('bench/'):
            candidates += ['bench/' + d for d in sorted(os.listdir(os.path.join(repo, 'bench')))]
        if path.startswith(('tests/', 'bench/')):
            candidates += ['tests/support', 'tests/support/engine']
        if not any(os.path.isfile(os.path.join(repo, d, spelled)) for d in candidates):
            errors.append(f'{where}: "{spelled}" is not a private header of '
                          f'{comp or path.split("/")[0]} (looked in {", ".join(candidates)})')


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..', '..'))
    errors = []
    checked = 0
    for top in ('agent', 'bench', 'collector', 'dashboard', 'schema', 'tests'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(repo, top)):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for name in filenames:
                if name.endswith(SOURCE_EXT):
                    rel = os.path.relpath(os.path.join(dirpath, name), repo)
                    check_file(repo, rel, errors)
                    checked += 1
    for e in errors:
        print(e)
    print(f'check_layering: {checked} files, {len(errors)} violation(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
