#!/bin/bash
# SPDX-License-Identifier: MIT
# Stages what the GPU checks and the agent's benchmarks need on a machine that
# cannot build stallwatch (no package registry, another distribution: a GPU
# host with its own CUDA and PyTorch): the release build's binaries and Python
# package, the Debian libraries they link, and wrappers that put those on the
# loader's path for the binaries alone. Copy the checkout with OUT inside it
# (.device/ is ignored by git) and run bench/run_on_host.sh there.
#
#   bench/stage_host.sh [OUT (default .device)] [BUILD (default build/gpu-rel)]
#
# The host's Python loads stallwatch's extension with OUT/pylib on
# LD_LIBRARY_PATH (ZeroMQ and what it links); glibc, libstdc++ and libgcc
# are the host's own (they must be as new as Debian 12's, or newer).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/.device}")
build=$(realpath -m "${2:-$root/build/gpu-rel}")
binaries=(bin/stallwatchd bin/stallwatch bench/agent/bench_agent_posix bench/agent/bench_agent_clock
  bench/agent/bench_agent_gpu_records)

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake --preset release -B "$build" -DSTALLWATCH_BUILD_BENCH=ON
fi
cmake --build "$build" --target stallwatch_python stallwatch_posix stallwatchd stallwatch_cli \
  bench_agent_posix bench_agent_clock bench_agent_gpu_records

case $out in
  "$root" | / | "$HOME") echo "stage_host.sh: refusing to replace $out" >&2 && exit 2 ;;
esac
rm -rf "$out"
mkdir -p "$out/build/bin" "$out/real" "$out/lib" "$out/pylib"
cp -r "$build/python" "$out/build/python"

# Copies into $1 the libraries the other arguments link, but the C and C++
# runtimes every host has (and stallwatch's own, in the Python package).
copy_linked() {
  local into=$1
  shift
  ldd "$@" | awk '/=> \//{print $3}' | sort -u |
    { grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libgcc_s|libstdc\+\+|ld-linux[^/]*|libstallwatch[^/]*)\.so' || true; } |
    while read -r lib; do cp -L "$lib" "$into/"; done
}

for binary in "${binaries[@]}"; do
  name=$(basename "$binary")
  cp "$build/$binary" "$out/real/$name"
  # shellcheck disable=SC2016 # the wrapper expands them
  printf '%s\n' '#!/bin/sh' 'd=$(cd "$(dirname "$0")/../.." && pwd)' \
    "LD_LIBRARY_PATH=\"\$d/lib:\$d/pylib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\" exec \"\$d/real/$name\" \"\$@\"" \
    > "$out/build/bin/$name"
  chmod +x "$out/build/bin/$name"
done
copy_linked "$out/lib" "$out"/real/*
mapfile -t modules < <(find "$out/build/python" -name '*.so*')
copy_linked "$out/pylib" "${modules[@]}"

echo "staged in $out ($(du -sh "$out" | cut -f1)); there: bench/run_on_host.sh $out RESULTS_DIR"
