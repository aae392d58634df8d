#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs exactly what stallwatch's build, tests and demo need, from Debian 12
# packages (and the web page's npm packages from package-lock.json).
# Idempotent: packages already present are skipped; safe to re-run.
#
#   scripts/install-deps.sh            build + test + demo dependencies
#   scripts/install-deps.sh --no-npm   skip `npm ci` for the web page
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
with_npm=1
for arg in "$@"; do
  case "$arg" in
    --no-npm) with_npm=0 ;;
    *) echo "install-deps: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  libzmq3-dev cppzmq-dev libflatbuffers-dev flatbuffers-compiler
  libboost-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libsimdjson-dev
  libtoml11-dev zlib1g-dev libisal-dev libsystemd-dev libncurses-dev libsodium-dev libcurl4-openssl-dev libssl-dev
  libcli11-dev
  python3-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev clang clang-format libclang-rt-14-dev
  python3-pytest python3-numpy python3-torch python3-pandas python3-zmq
  tmux chromium prometheus prometheus-alertmanager curl openssl
  systemd mypy
  # packaging: the Python wheel (pip wheel with Debian's setuptools/wheel,
  # patchelf to bundle libraries, venvs for its tests) and the .deb (CPack
  # with dpkg-shlibdeps, man pages from --help and man to render them in the
  # tests, lintian)
  python3-pip python3-setuptools python3-wheel python3-venv patchelf
  dpkg-dev help2man man-db lintian
)

# Node.js may come from another repository (nodesource bundles npm); only
# install Debian's when no npm is on PATH, or apt refuses the mix.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

if [ "$with_npm" -eq 1 ] && [ -f "$here/dashboard/web/package-lock.json" ]; then
  if [ ! -d "$here/dashboard/web/node_modules" ] || \
     [ "$here/dashboard/web/package-lock.json" -nt "$here/dashboard/web/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci in dashboard/web"
    (cd "$here/dashboard/web" && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
