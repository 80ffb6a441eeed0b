#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README's test command: install dependencies, build, run the whole suite on the default device
# (PoCL where there is no GPU). Extra arguments go to ctest, e.g. `-L large` or `-R cache`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
cd build
ctest --output-on-failure -j 2 "$@"
