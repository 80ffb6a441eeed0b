#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README's main command: install dependencies, build, list the devices and run the demo on the
# default device (PoCL where there is no GPU). Extra arguments go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
# Only what the demo needs (the library, clforge-info, clforge-demo): not every test and benchmark.
cmake --build build -j "$(nproc)" --target clforge-info clforge-demo
./build/bin/clforge-info
./build/bin/clforge-demo "$@"
