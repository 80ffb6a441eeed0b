#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages clforge builds, tests and benchmarks with (skips when present).
# Extra package names given as arguments are installed too (tools/run-sanitizers.sh passes
# clang-14 and libclang-rt-14-dev for the fuzzers).
set -euo pipefail
packages=(
  cmake g++ make                                  # toolchain
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers   # OpenCL loader, C and C++ headers
  pocl-opencl-icd                                 # an OpenCL device on any CPU (tests, CI)
  libgtest-dev libbenchmark-dev                   # tests, clforge-bench
  libxxhash-dev                                   # program-cache keys
  libopenmpi-dev openmpi-bin                      # clforge::mpi and its tests (mpirun)
  libcli11-dev                                    # the tools' command lines
  nlohmann-json3-dev                              # the tools' JSON output
  zlib1g-dev                                      # clforge-demo's compressed mask.png
  pkg-config                                      # the pkg-config consumer test
  dpkg-dev file lintian                           # Debian packages: dpkg-shlibdeps, checks (ctest -R package_deb)
  doxygen                                         # the API reference (cmake --build build --target docs)
  python3-matplotlib                              # bench/plot.py (pip is refused on Debian 12)
  clinfo                                          # to see what the ICD loader finds
  clang-14                                        # the public headers under clang++ (ctest -L headers)
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
# .ci/run updates the package lists itself, once.
[ "${CLFORGE_APT_UPDATED:-}" = 1 ] || $sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
