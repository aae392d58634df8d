#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's demo command. Installs what is missing, builds what the demo
# needs, starts stallwatchd, trains a real PyTorch model with a slow and then a
# fast data loader under `python -m stallwatch.run` (no change to the scripts),
# and prints the dashboard URL and the verdicts the collector reached.
# Ctrl-C stops everything cleanly at any point.
#
#   scripts/demo.sh [--seconds N] [--no-wait]
#     --seconds N  training time per loader (default 40)
#     --no-wait    exit after printing the verdicts instead of keeping the
#                  dashboard up (the default when stdin is not a terminal)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

seconds=40
wait_at_end=1
[ -t 0 ] || wait_at_end=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --no-wait) wait_at_end=0; shift ;;
    *) echo "demo: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target stallwatchd stallwatch_cli stallwatch_python

build=$root/build/default
http_port=${STALLWATCH_DEMO_HTTP_PORT:-8787}
ingest_port=${STALLWATCH_DEMO_INGEST_PORT:-5557}
url="http://127.0.0.1:$http_port"
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/stallwatch-demo.XXXXXX")
daemon_pid=""
trainer_pid=""

cleanup() {
  trap - EXIT INT TERM
  [ -n "$trainer_pid" ] && kill -INT "$trainer_pid" 2>/dev/null && wait "$trainer_pid" 2>/dev/null
  if [ -n "$daemon_pid" ]; then
    kill -TERM "$daemon_pid" 2>/dev/null
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$run_dir"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, stopping"; exit 130' INT TERM

api() { curl -fsS --max-time 5 "$url$1"; }

if api /healthz >/dev/null 2>&1; then
  echo "demo: a collector already answers on $url; using it"
else
  "$build/bin/stallwatchd" --http "127.0.0.1:$http_port" \
    --ingest "tcp://127.0.0.1:$ingest_port" --ingest "ipc://$run_dir/ingest.sock" \
    >"$run_dir/stallwatchd.log" 2>&1 &
  daemon_pid=$!
  for _ in $(seq 100); do
    api /healthz >/dev/null 2>&1 && break
    if ! kill -0 "$daemon_pid" 2>/dev/null; then
      echo "demo: stallwatchd did not start:" >&2
      cat "$run_dir/stallwatchd.log" >&2
      exit 1
    fi
    sleep 0.1
  done
fi

echo
echo "  Dashboard:  $url/      Terminal:  $build/bin/stallwatch top"
echo

train() {  # job script
  echo "demo: training $2 for ${seconds}s as job '$1'"
  STALLWATCH_COLLECTOR="tcp://127.0.0.1:$ingest_port" STALLWATCH_JOB="$1" \
    PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" \
    /usr/bin/python3 -m stallwatch.run "examples/$2" --seconds "$seconds" &
  trainer_pid=$!
  wait "$trainer_pid"
  trainer_pid=""
}

run_id=$$
train "demo-slow-$run_id" slow_loader.py
train "demo-fast-$run_id" fast_loader.py

# The final batches arrive within a tick or two of the process exiting.
sleep 1.5
echo
printf '%-22s %-16s %-12s %-12s %-12s %s\n' job verdict data_stall device_idle overlap steps/s
for job in "demo-slow-$run_id" "demo-fast-$run_id"; do
  api "/api/v1/jobs/$job" | /usr/bin/python3 -c '
import json, sys
job = json.load(sys.stdin)
m = job["summary"]["total"]["mean"]
pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"
num = lambda v: "-" if v is None else f"{v:.2f}"
name, verdict = job["job"], m["verdict"]
stall, idle, overlap = pct(m["data_stall_ratio"]), pct(m["device_idle_ratio"]), pct(m["overlap_ratio"])
rate = num(m["steps_per_second"])
print(f"{name:<22} {verdict:<16} {stall:<12} {idle:<12} {overlap:<12} {rate}")
'
done
echo
echo "(over each whole run; device idle uses compute as a proxy: no GPU signal on a CPU run)"

if [ "$wait_at_end" = 1 ] && [ -n "$daemon_pid" ]; then
  echo
  echo "The dashboard stays up at $url/ — press Ctrl-C to stop."
  wait "$daemon_pid"
fi
