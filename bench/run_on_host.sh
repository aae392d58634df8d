#!/bin/bash
# SPDX-License-Identifier: MIT
# On a host staged by bench/stage_host.sh, from the checkout's root: the
# agent's per-call costs (clock, --posix per call and on a loader), then, with
# a CUDA device, the GPU checks and each GPU source's overhead on step time.
# Each step's output goes to RESULTS/<step>.log and to stdout; a step that
# runs past its limit is cut off and the next one runs.
#
#   bench/run_on_host.sh STAGED RESULTS [--quick] [--no-gpu]
#
# --quick skips the agreement with torch.profiler (gpu_checks.py --quick);
# all steps take about 8 minutes with --quick on one H200, 12 without.
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: bench/run_on_host.sh STAGED RESULTS [--quick] [--no-gpu]" >&2
  exit 2
fi
staged=$(realpath "$1")
results=$(realpath -m "$2")
shift 2
quick=() gpu=1
for arg in "$@"; do
  case $arg in
    --quick) quick=(--quick) ;;
    --no-gpu) gpu=0 ;;
    *) echo "run_on_host.sh: unknown option $arg" >&2 && exit 2 ;;
  esac
done
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$results"
build=$staged/build
export PYTHONUNBUFFERED=1 PYTHONPATH=$build/python
export LD_LIBRARY_PATH=$staged/pylib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name ($(date +%T), at most ${limit} s)"
  timeout "$limit" "$@" 2>&1 | tee "$results/$name.log"
  echo "== $name: exit ${PIPESTATUS[0]}"
}

{
  uname -a
  cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null
  nproc
  python3 -c 'import sys; print(sys.version)'
  python3 -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>&1
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv
} 2>&1 | tee "$results/host.log"

python3 -c 'import stallwatch' || {
  echo "run_on_host.sh: the staged Python package does not load" >&2
  exit 1
}
step clock 60 "$build/bin/bench_agent_clock" --benchmark_color=false
step posix 180 "$build/bin/bench_agent_posix"
step posix_loader 240 python3 bench/agent/posix_loader_bench.py \
  --stallwatchd "$build/bin/stallwatchd" --rounds 5 --seconds 1.5
if [[ $gpu == 1 ]] && python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2> /dev/null; then
  step gpu_checks 540 python3 bench/python/gpu_checks.py --build "$build" "${quick[@]}"
  step gpu_overhead 300 python3 bench/python/gpu_sources.py --build "$build" --skip-agreement \
    --rounds 3 --sources cupti,cuda-events --variants cupti-unfiltered,cupti-no-launches
fi
echo "results in $results"
