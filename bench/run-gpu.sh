#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build clforge and run the whole benchmark on a GPU host with one command:
#   bash bench/run-gpu.sh [device] [extra clforge-bench options]
# device defaults to "gpu". Results go to bench/results/<device-name>-<date>/: the console
# table, result.json, summary.md (with the command and date), and plot.png if matplotlib is
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."
device="${1:-gpu}"
shift || true
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)" --target clforge-bench clforge-info > /dev/null
name=$(CLFORGE_DEVICE="$device" ./build/bin/clforge-info | awk '/^\*/ {$1=""; $2=""; print; exit}' |
       sed 's/^ *//; s/[^A-Za-z0-9]\+/-/g; s/-$//')
out="bench/results/${name:-device}-$(date -u +%Y-%m-%d)"
mkdir -p "$out"
command="clforge-bench --device $device --json $out/result.json --markdown $out/summary.md $*"
./build/bin/clforge-bench --device "$device" --json "$out/result.json" --markdown "$out/summary.md" "$@" \
  | tee "$out/console.txt"
{ echo; echo "Produced $(date -u '+%Y-%m-%d %H:%M UTC') by: \`bash bench/run-gpu.sh $device $*\` (\`$command\`)"; } >> "$out/summary.md"
python3 bench/plot.py "$out/result.json" "$out/plot.png" || echo "(no plot)"
echo "results in $out"
