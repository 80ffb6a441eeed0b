#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The airfoil-like solver (examples/airfoil-like) on one process (clforge::op) and on 1, 2 and 4
# MPI ranks (clforge::mpi::op, oversubscribed where the machine has fewer cores; PoCL threads per
# rank = cores / ranks), each run REPEAT times, written to
# bench/results/mpi-op-<name>-<date>.md with the commands and the machine's load.
#   bash bench/run-mpi-op.sh [build-dir] [nx] [ny] [iterations] [name, default pocl] [repeat]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
nx=${2:-400}
ny=${3:-200}
iterations=${4:-20}
repeat=${6:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=bench/results/mpi-op-${5:-pocl}-$(date +%Y-%m-%d).md
cores=$(nproc)
ms() { grep -o '[0-9.]* ms per iteration' | cut -d' ' -f1; }
{
  echo "# The airfoil-like solver on 1, 2 and 4 MPI ranks: ${nx}x${ny} cells, $iterations iterations"
  echo
  echo "Machine: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Command: \`bash bench/run-mpi-op.sh $build $nx $ny $iterations ${5:-pocl} $repeat\`. Each figure: ms per"
  echo "iteration (10 loops, their halo exchanges, the residual's reduction over the ranks and its"
  echo "read-back; the first iteration, which builds, left out), the best and the median of $repeat runs."
  echo "Every run checks each iteration's residual and the final state against the serial C++"
  echo "reference (relative 1e-9)."
  echo
  echo "| run | PoCL threads per rank | best ms | median ms | all runs |"
  echo "|---|---:|---:|---:|---|"
  row() {
    local name=$1 threads=$2; shift 2
    local times=()
    for ((k = 0; k < repeat; ++k)); do times+=("$("$@" | ms)"); done
    local sorted=($(printf '%s\n' "${times[@]}" | sort -g))
    echo "| $name | $threads | ${sorted[0]} | ${sorted[$((repeat / 2))]} | ${times[*]} |"
  }
  row "one process, clforge::op" "$cores" env POCL_MAX_PTHREAD_COUNT=$cores \
    $build/bin/clforge-example-airfoil-like $nx $ny $iterations
  for ranks in 1 2 4; do
    share=$((cores / ranks)); [ $share -lt 1 ] && share=1
    row "mpirun -np $ranks, clforge::mpi::op" "$share" mpirun -np $ranks \
      -x POCL_MAX_PTHREAD_COUNT=$share -x POCL_CPU_MAX_CU_NUM=$share \
      $build/bin/clforge-example-airfoil-like-mpi $nx $ny $iterations
  done
  echo
  echo "Load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out"
