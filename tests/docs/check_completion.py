#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the bash completion of packaging/completion against the programs.

Usage: check_completion.py COMPLETION_DIR STALLWATCHD STALLWATCH

For every command (stallwatchd, stallwatchd keygen, stallwatch and each of
its subcommands) bash completes `<command> -` with the completion script
loaded, and the offered options must be exactly the long options that the
command's --help (keygen: its usage) lists. The commands offered after
`stallwatch ` must be those `stallwatch --help` lists. Exits 1 with every
difference printed.
"""

import re
import subprocess
import sys

OPTION_LINE = re.compile(r'^\s+(?:-\w,\s*)?(--[a-z][a-z0-9-]*)', re.M)
ANY_OPTION = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*)')
COMMAND_LINE = re.compile(r'^  ([a-z]+) ', re.M)


def run(argv):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.stdout + proc.stderr


def complete(script, words):
    """What bash offers for the last of `words` (the word being completed)."""
    quoted = ' '.join("'" + w.replace("'", "'\\''") + "'" for w in words)
    function = '_stallwatchd' if words[0] == 'stallwatchd' else '_stallwatch'
    code = (f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; '
            f'{function}; printf "%s\\n" "${{COMPREPLY[@]}}"')
    out = subprocess.run(['bash', '--norc', '--noprofile', '-c', code], capture_output=True,
                         text=True, check=True).stdout
    return {line for line in out.splitlines() if line}


def compare(name, offered, expected, problems):
    if offered != expected:
        problems.append(f'{name}: completion offers {sorted(offered - expected)} that --help does '
                        f'not list, and misses {sorted(expected - offered)}')


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    directory, stallwatchd, stallwatch = argv[1:]
    problems = []

    daemon_script = f'{directory}/stallwatchd'
    compare('stallwatchd', complete(daemon_script, ['stallwatchd', '--']),
            set(OPTION_LINE.findall(run([stallwatchd, '--help']))), problems)
    compare('stallwatchd keygen', complete(daemon_script, ['stallwatchd', 'keygen', '--']),
            set(ANY_OPTION.findall(run([stallwatchd, 'keygen', '--bogus']))), problems)

    cli_script = f'{directory}/stallwatch'
    commands = set(COMMAND_LINE.findall(run([stallwatch, '--help'])))
    if not commands:
        problems.append('stallwatch --help lists no command')
    compare('stallwatch', complete(cli_script, ['stallwatch', '']) - {'--help', '--version'},
            commands, problems)
    for command in sorted(commands):
        compare(f'stallwatch {command}', complete(cli_script, ['stallwatch', command, '--']),
                set(OPTION_LINE.findall(run([stallwatch, command, '--help']))), problems)

    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
