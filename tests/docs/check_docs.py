#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the user documentation: README.md and docs/*.md.

  check_docs.py check REPO [--stallwatchd PATH] [--cli PATH] [--pythonpath DIR]
                           [--include DIR] [--libdir DIR]
      * every relative link (and its #anchor) in README.md and docs/*.md
        resolves, and every docs/*.md is linked from the README;
      * every environment variable the agent reads is in docs/python.md, and
        every key of the daemon's configuration file (collector/daemon) is in
        docs/operations.md;
      * every fenced code block parses: python (compile()), toml (tomllib),
        sh/bash/console commands (bash -n), c/cpp (the compiler's
        -fsyntax-only against the agent's headers);
      * blocks whose info string says "runnable" (```bash runnable,
        ```python runnable, ```cpp runnable) run, in the order of the file,
        against a stallwatchd this check starts on loopback ports. Each block
        is one process: bash blocks run under `bash -euo pipefail` and python
        blocks under this interpreter, with PATH starting at the build's bin/,
        PYTHONPATH at the build's Python package, STALLWATCH_COLLECTOR and
        STALLWATCH_URL naming the daemon; cpp blocks are compiled with the
        agent's headers, linked with libstallwatch and run. A block fails the
        check when it exits non-zero (they assert what they show).

  check_docs.py man PAGE...
      Each man page renders (`man -l`) without a warning, with its NAME line,
      a DESCRIPTION holding the program's --help text (its usage line), and
      SEE ALSO.

A runnable block that needs something the build lacks (no --stallwatchd) is
an error, not a skip: the docs check runs where the project is built.
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request

FENCE = re.compile(r'^(\s*)(`{3,}|~{3,})(.*)$')
LINK = re.compile(r'(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
SHELL = {'sh', 'bash', 'shell', 'console'}
PARSERS = {'python', 'py', 'toml', 'c', 'cpp', 'c++'} | SHELL


class Block:
    def __init__(self, path, line, lang, flags, text):
        self.path, self.line, self.lang, self.flags, self.text = path, line, lang, flags, text

    @property
    def where(self):
        return f'{self.path}:{self.line}'

    @property
    def runnable(self):
        return 'runnable' in self.flags


def doc_files(repo):
    files = [os.path.join(repo, 'README.md')]
    docs = os.path.join(repo, 'docs')
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    return files


def split(text):
    """(prose lines with line numbers, code blocks as (line, info, text))."""
    prose, blocks = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3).strip(), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
            i += 1
        i += 1
        blocks.append((start, info, '\n'.join(body) + '\n'))
    return prose, blocks


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r'`|\*\*|__', '', heading).strip().lower()
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        seen = {}
        prose, _ = split(open(path, encoding='utf-8').read())
        for _, line in prose:
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f'{base}-{n}')
        cache[path] = found
    return cache[path]


def check_links(repo, path, prose):
    problems = []
    rel_doc = os.path.relpath(path, repo)
    for number, line in prose:
        line = re.sub(r'`[^`]*`', '', line)
        for target in LINK.findall(line):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue
            file_part, _, anchor = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(resolved):
                problems.append(f'{rel_doc}:{number}: link to {target}: no such file')
                continue
            if anchor and resolved.endswith('.md') and anchor not in anchors(resolved):
                problems.append(f'{rel_doc}:{number}: link to {target}: no heading with anchor '
                                f'#{anchor} in {os.path.relpath(resolved, repo)}')
    return problems


def agent_variables(repo):
    """The STALLWATCH_* variables the agent reads (not those of its build scripts)."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(os.path.join(repo, 'agent')):
        dirnames[:] = [d for d in dirnames if d not in ('build_support', '__pycache__')]
        for name in filenames:
            if name.endswith(('.c', '.cc', '.h', '.py', '.pth')) and name != 'setup.py':
                text = open(os.path.join(dirpath, name), encoding='utf-8').read()
                found |= set(re.findall(r'["\'](STALLWATCH_[A-Z0-9_]+)["\']', text))
    return found


def daemon_config_keys(repo):
    """`section.key` of every key the daemon's configuration accepts
    (collector/daemon/src/daemon_config.cc and tree_config.cc)."""
    text = ''
    for name in ('daemon_config.cc', 'tree_config.cc'):
        text += open(os.path.join(repo, 'collector/daemon/src', name), encoding='utf-8').read()
    keys = set()
    for section, body in re.findall(r'TomlFields s\(t, "(\w+)".*?allow_only\(\s*\{([^}]*)\}',
                                    text, re.S):
        keys |= {f'{section}.{key}' for key in re.findall(r'"(\w+)"', body)}
    return keys


def check_coverage(repo):
    problems = []
    python_md = open(os.path.join(repo, 'docs/python.md'), encoding='utf-8').read()
    for variable in sorted(agent_variables(repo)):
        if f'`{variable}`' not in python_md:
            problems.append(f'docs/python.md: the agent reads {variable}, which is not documented')
    operations_md = open(os.path.join(repo, 'docs/operations.md'), encoding='utf-8').read()
    keys = daemon_config_keys(repo)
    if not keys:
        problems.append('collector/daemon/src/daemon_config.cc: no configuration keys found')
    for key in sorted(keys):
        if f'`{key}`' not in operations_md:
            problems.append(f'docs/operations.md: the configuration key {key} is not documented')
    return problems


def parse_block(block, include_dir, tmp):
    lang, text = block.lang, block.text
    if lang in ('python', 'py'):
        try:
            compile(text, block.where, 'exec')
        except SyntaxError as exc:
            return f'{block.where}: python does not compile: {exc}'
    elif lang == 'toml':
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            return f'{block.where}: toml does not parse: {exc}'
    elif lang in SHELL:
        script = text
        if lang == 'console':
            script = '\n'.join(l[2:] for l in text.splitlines() if l.startswith('$ ')) + '\n'
        proc = subprocess.run(['bash', '-n'], input=script, capture_output=True, text=True)
        if proc.returncode != 0:
            return f'{block.where}: shell does not parse: {proc.stderr.strip()}'
    elif lang in ('c', 'cpp', 'c++'):
        if not include_dir:
            return None
        suffix, compiler, std = (('.c', 'gcc', '-std=c11') if lang == 'c'
                                 else ('.cc', 'g++', '-std=c++17'))
        source = os.path.join(tmp, 'block' + suffix)
        with open(source, 'w') as f:
            f.write(text)
        proc = subprocess.run([compiler, std, '-fsyntax-only', '-Wall', '-Werror',
                               '-I', include_dir, source], capture_output=True, text=True)
        if proc.returncode != 0:
            return f'{block.where}: {lang} does not compile:\n{proc.stderr.strip()}'
    return None


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Daemon:
    """A stallwatchd on loopback ports for the runnable blocks."""

    def __init__(self, binary, workdir):
        self.ingest = f'tcp://127.0.0.1:{free_port()}'
        self.url = f'http://127.0.0.1:{free_port()}'
        self.log = open(os.path.join(workdir, 'stallwatchd.log'), 'w+')
        env = dict(os.environ, XDG_RUNTIME_DIR=workdir)
        self.proc = subprocess.Popen(
            [binary, '--ingest', self.ingest, '--http', self.url[len('http://'):],
             '--log-level', 'warn'], stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f'stallwatchd exited: {self.output()}')
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                        self.url + '/healthz', timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('stallwatchd did not answer /healthz within 20 s')

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-4000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_block(block, env, args, tmp):
    if block.lang in SHELL:
        command = ['bash', '-euo', 'pipefail', '-c', block.text]
    elif block.lang in ('python', 'py'):
        command = [sys.executable, '-c', block.text]
    elif block.lang in ('cpp', 'c++', 'c'):
        if not (args.include and args.libdir):
            return f'{block.where}: a runnable {block.lang} block needs --include and --libdir'
        c = block.lang == 'c'
        source = os.path.join(tmp, 'example.c' if c else 'example.cc')
        binary = os.path.join(tmp, 'example')
        with open(source, 'w') as f:
            f.write(block.text)
        build = subprocess.run(
            ['gcc' if c else 'g++', '-std=c11' if c else '-std=c++17', '-Wall', '-Werror',
             '-I', args.include, source, '-o', binary, '-L', args.libdir, '-lstallwatch',
             f'-Wl,-rpath,{args.libdir}', '-pthread'], capture_output=True, text=True)
        if build.returncode != 0:
            return f'{block.where}: does not build:\n{build.stderr.strip()}'
        command = [binary]
    else:
        return f'{block.where}: "runnable" is not supported for {block.lang} blocks'
    try:
        proc = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        return f'{block.where}: still running after 120 s'
    if proc.returncode != 0:
        return (f'{block.where}: exited with {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}'
                f'\n--- stderr\n{proc.stderr[-3000:]}')
    return None


def check(args):
    repo = os.path.abspath(args.repo)
    # The daemon under test is on loopback: never through a proxy the machine names.
    for name in ('no_proxy', 'NO_PROXY'):
        os.environ[name] = ','.join(filter(None, ['127.0.0.1,localhost', os.environ.get(name)]))
    for name in ('stallwatchd', 'cli', 'pythonpath', 'include', 'libdir'):
        if getattr(args, name):
            setattr(args, name, os.path.abspath(getattr(args, name)))
    problems = []
    blocks = []
    files = doc_files(repo)
    for path in files:
        prose, raw_blocks = split(open(path, encoding='utf-8').read())
        problems += check_links(repo, path, prose)
        rel = os.path.relpath(path, repo)
        for line, info, text in raw_blocks:
            words = info.split()
            lang = words[0].lower() if words else ''
            blocks.append(Block(rel, line, lang, set(words[1:]), text))
    problems += check_coverage(repo)
    readme = open(os.path.join(repo, 'README.md'), encoding='utf-8').read()
    for path in files[1:]:
        if f'(docs/{os.path.basename(path)})' not in readme:
            problems.append(f'README.md: no link to docs/{os.path.basename(path)}')

    with tempfile.TemporaryDirectory(prefix='stallwatch-docs-') as tmp:
        parsed = 0
        for block in blocks:
            if block.lang in PARSERS:
                parsed += 1
                problem = parse_block(block, args.include, tmp)
                if problem:
                    problems.append(problem)
        runnable = [b for b in blocks if b.runnable]
        if args.parse_only:
            print(f'{len(runnable)} runnable blocks not run (--parse-only)')
            runnable = []
        elif runnable and not args.stallwatchd:
            problems.append('runnable blocks need --stallwatchd (a built daemon)')
            runnable = []
        ran = 0
        if runnable:
            daemon = Daemon(args.stallwatchd, tmp)
            try:
                env = dict(os.environ)
                path_dirs = [os.path.dirname(p) for p in (args.cli, args.stallwatchd) if p]
                path_dirs.append(os.path.dirname(sys.executable))  # python3 = this interpreter
                env['PATH'] = os.pathsep.join(path_dirs + [env.get('PATH', '')])
                if args.pythonpath:
                    env['PYTHONPATH'] = os.pathsep.join(
                        [args.pythonpath] + [p for p in [env.get('PYTHONPATH')] if p])
                env.update(STALLWATCH_COLLECTOR=daemon.ingest, STALLWATCH_URL=daemon.url,
                           PYTHONDONTWRITEBYTECODE='1', STALLWATCH_DOCS_REPO=repo)
                for block in runnable:
                    work = os.path.join(tmp, f'block-{ran}')
                    os.mkdir(work)
                    problem = run_block(block, env, args, work)
                    ran += 1
                    print(f'ran {block.where} ({block.lang})' + (': FAILED' if problem else ''))
                    if problem:
                        problems.append(problem)
                if daemon.proc.poll() is not None:
                    problems.append(f'stallwatchd died during the check:\n{daemon.output()}')
            finally:
                daemon.stop()
    for problem in problems:
        print(problem)
    print(f'{len(files)} documents, {parsed} code blocks parsed, {ran} run: '
          f'{len(problems)} problem(s)')
    return 1 if problems else 0


def check_man(pages):
    problems = []
    if not shutil.which('man'):
        print('man is not installed')
        return 1
    for page in pages:
        proc = subprocess.run(['man', '-l', '-Tutf8', '--warnings=w', page], capture_output=True,
                              text=True, env=dict(os.environ, MANWIDTH='100', LC_ALL='C.UTF-8'))
        text = re.sub(r'[ \t]+', ' ', re.sub(r'.\x08', '', proc.stdout))
        name = os.path.basename(page).split('.')[0]
        if proc.returncode != 0:
            problems.append(f'{page}: man exited with {proc.returncode}: {proc.stderr.strip()}')
            continue
        if proc.stderr.strip():
            problems.append(f'{page}: warnings: {proc.stderr.strip()}')
        if not re.search(rf'^NAME\n\s+{re.escape(name)}\s+-\s+\S', text, re.M):
            problems.append(f'{page}: the rendered page has no NAME line "{name} - ..."')
        # help2man turns CLI11's "Usage: NAME [OPTIONS]" (stallwatchd) into a
        # SYNOPSIS section; the dispatcher's "usage:" (stallwatch) stays text.
        if not re.search(rf'^SYNOPSIS\n\s+{re.escape(name)}\b', text, re.M) and \
                f'usage: {name}' not in text:
            problems.append(f'{page}: the rendered page shows no usage of {name}')
        for needed in ('DESCRIPTION', '--help', 'SEE ALSO'):
            if needed not in text:
                problems.append(f'{page}: the rendered page has no "{needed}"')
        print(f'{page}: {len(text.splitlines())} lines rendered')
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def main(argv):
    if len(argv) > 1 and argv[1] == 'man':
        return check_man(argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('command', choices=['check'])
    parser.add_argument('repo')
    parser.add_argument('--stallwatchd')
    parser.add_argument('--cli')
    parser.add_argument('--pythonpath')
    parser.add_argument('--include', help="the agent's include directory")
    parser.add_argument('--libdir', help='the folder holding libstallwatch.so')
    parser.add_argument('--parse-only', action='store_true',
                        help='do not run the runnable blocks (a build without the daemon, '
                             'the CLI or the Python agent)')
    return check(parser.parse_args(argv[1:]))


if __name__ == '__main__':
    sys.exit(main(sys.argv))
