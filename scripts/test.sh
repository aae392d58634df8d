#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command (also what .ci/run runs): installs what is missing,
# configures, builds and runs every test on a fresh Debian 12 machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
ctest --preset default "$@"
