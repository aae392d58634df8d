#!/bin/bash
# SPDX-License-Identifier: MIT
# The long fuzz run, outside the test command: every libFuzzer target of the
# fuzz preset runs RUNS inputs (10^7 by default) from its seeds, split over
# JOBS processes that share one corpus, under ASan, UBSan (a report stops the
# run and keeps the input, as a crash does) and LeakSanitizer. Prints one line
# per target (inputs, seconds, inputs/s, corpus, result) and exits 1 when any
# target crashed, leaked, reported undefined behaviour or ran out of memory.
#
#   cmake --preset fuzz && cmake --build --preset fuzz
#   scripts/fuzz-long.sh [--build build/fuzz] [--runs 10000000] [--jobs N]
#                        [--out DIR] [TARGET ...]
#
# TARGET: validator_fuzz journal_reader_fuzz trace_reader_fuzz
# kineto_element_fuzz router_fuzz config_toml_fuzz agent_env_fuzz
# tree_report_fuzz tree_series_fuzz tui_api_fuzz execution_trace_fuzz
# ingest_engine_fuzz (all by default).
# DIR (default build/fuzz/long) keeps each target's corpus, logs and any crash
# input; running again goes on from the corpus. Inputs are capped at 4 KiB,
# 8 KiB for ingest_engine_fuzz, 16 KiB for tree_report_fuzz, 32 KiB for
# execution_trace_fuzz and 64 KiB for tui_api_fuzz (the seeds are cut to that
# size); trace files are written under /dev/shm.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/fuzz
runs=10000000
jobs=$(nproc)
out=
targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(realpath "$2"); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz-long.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
out=${out:-$build/long}
[[ ${#targets[@]} -gt 0 ]] || targets=(validator_fuzz journal_reader_fuzz trace_reader_fuzz
  kineto_element_fuzz router_fuzz config_toml_fuzz agent_env_fuzz tree_report_fuzz tree_series_fuzz tui_api_fuzz
  execution_trace_fuzz ingest_engine_fuzz)

# name: the binary under the build, its seeds (folders, space-separated),
# extra libFuzzer flags (space-separated).
declare -A binary=(
  [validator_fuzz]=collector/ingest/fuzz/validator_fuzz
  [journal_reader_fuzz]=collector/ingest/journal_reader_fuzz
  [trace_reader_fuzz]=collector/traces/trace_reader_fuzz
  [kineto_element_fuzz]=collector/traces/kineto_element_fuzz
  [router_fuzz]=collector/serve/router_fuzz
  [config_toml_fuzz]=collector/daemon/config_toml_fuzz
  [agent_env_fuzz]=agent/agent_env_fuzz
  [tree_report_fuzz]=collector/daemon/tree_report_fuzz
  [tree_series_fuzz]=collector/tree/tree_series_fuzz
  [tui_api_fuzz]=dashboard/tui/tui_api_fuzz
  [execution_trace_fuzz]=collector/analyze/execution_trace_fuzz
  [ingest_engine_fuzz]=collector/daemon/ingest_engine_fuzz
)
declare -A seeds=(
  [validator_fuzz]=$build/collector/ingest/fuzz/corpus
  [journal_reader_fuzz]=$root/collector/ingest/fuzz/journal_seeds
  [trace_reader_fuzz]=$root/collector/traces/fuzz/seeds
  [kineto_element_fuzz]=$root/collector/traces/fuzz/kineto_element_seeds
  [router_fuzz]=$root/collector/serve/fuzz/seeds
  [config_toml_fuzz]=$root/collector/daemon/fuzz/seeds
  [agent_env_fuzz]=$root/agent/fuzz/seeds
  [tree_report_fuzz]="$build/collector/daemon/tree_report_fuzz_seeds $root/collector/daemon/fuzz/tree_regressions"
  [tree_series_fuzz]=$root/collector/tree/fuzz/series_seeds
  [tui_api_fuzz]="$root/dashboard/tui/fuzz/seeds $root/dashboard/tui/fuzz/regressions"
  [execution_trace_fuzz]=$root/collector/analyze/fuzz/et_seeds
  [ingest_engine_fuzz]=$root/collector/daemon/fuzz/engine_seeds
)
# tree_report_fuzz: a report frame of two ranks is 4 KiB and its seeds hold
# up to three ticks of frames; tui_api_fuzz's seeds are a real collector's
# answers, up to 36 KiB; execution_trace_fuzz's are Execution Traces of 18 KiB.
# config_toml_fuzz and tree_report_fuzz: their inputs reach tens of thousands
# of coverage features each, and the entropic schedule's bookkeeping per
# feature took half (TOML) and a quarter (tree) of their time; without it the
# TOML target runs ~3.5x the inputs per second and found more coverage.
declare -A flags=(
  [validator_fuzz]=-dict=$root/collector/ingest/fuzz/validator_fuzz.dict
  [config_toml_fuzz]=-entropic=0
  [tree_report_fuzz]="-max_len=16384 -entropic=0"
  [tui_api_fuzz]=-max_len=65536
  [execution_trace_fuzz]=-max_len=32768
  [ingest_engine_fuzz]="-max_len=8192 -entropic=0"
)

shm=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && shm=/dev/shm
failed=0
printf '%-22s %12s %8s %9s %8s  %s\n' target inputs seconds inputs/s corpus result
for name in "${targets[@]}"; do
  bin=$build/${binary[$name]:-}
  if [[ -z ${binary[$name]:-} || ! -x $bin ]]; then
    echo "fuzz-long.sh: $name: no such target in $build (cmake --build --preset fuzz)" >&2
    exit 2
  fi
  dir=$out/$name
  mkdir -p "$dir/corpus"
  rm -f "$dir"/fuzz-*.log
  extra=()
  [[ -n ${flags[$name]:-} ]] && read -r -a extra <<< "${flags[$name]}"
  read -r -a seed_dirs <<< "${seeds[$name]}"
  start=$(date +%s)
  # -jobs runs JOBS processes of RUNS/JOBS inputs each, logs in fuzz-J.log.
  (cd "$dir" &&
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TMPDIR=$shm \
      "$bin" -jobs="$jobs" -workers="$jobs" -runs=$(((runs + jobs - 1) / jobs)) -max_len=4096 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/" "${extra[@]}" \
      corpus "${seed_dirs[@]}" > run.log 2>&1) || true
  seconds=$(($(date +%s) - start))
  inputs=$(cat "$dir"/fuzz-*.log 2>/dev/null |
    awk '/^stat::number_of_executed_units:/ {n += $2} END {print n + 0}')
  corpus=$(find "$dir/corpus" -type f | wc -l)
  result=ok
  if grep -lqE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' \
    "$dir"/fuzz-*.log 2>/dev/null; then
    result="FAILED (see $dir/fuzz-*.log and $dir/crash-*, leak-*, oom-*)"
    failed=1
  elif ((inputs < runs)); then
    result="ended early (see $dir/fuzz-*.log)"
    failed=1
  fi
  printf '%-22s %12d %8d %9d %8d  %s\n' "$name" "$inputs" "$seconds" \
    $((inputs / (seconds > 0 ? seconds : 1))) "$corpus" "$result"
done
exit $failed
