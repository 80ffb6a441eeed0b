#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scaling table of clforge-mpi-bench: distributed sum and scan of 2^LOG2 ints and the stencil job
# (halo exchange + 3-D Jacobi sweep of a SIDE^3 float cube, strong and weak scaling) on 1, 2 and
# 4 ranks (oversubscribed where the machine has fewer cores), written to
# bench/results/mpi-<device>-<date>.md with the commands and the machine's load.
#   bash bench/run-mpi.sh [build-dir] [log2] [name for the results file, default pocl] [side]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
log2=${2:-26}
side=${4:-128}
bench=$build/bin/clforge-mpi-bench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=bench/results/mpi-${3:-pocl}-$(date +%Y-%m-%d).md
{
  echo "# clforge-mpi-bench: distributed sum and scan of 2^$log2 int32, stencil on $side^3 float"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Command: \`bash bench/run-mpi.sh $build $log2 ${3:-pocl} $side\` (each row: \`mpirun -np R --oversubscribe $bench --log2 $log2 --stencil-side $side --repetitions 7\`)."
  echo "time: median over 7 repetitions of the slowest rank's wall time (barrier to return, the scan"
  echo "to completion). local: the rank's device work and host staging; MPI: time inside MPI calls"
  echo "(exchanges and agreements, waiting for slower ranks included). GB/s: 4 (sum) or 8 (scan)"
  echo "bytes per element over that time. \"blocks only\": each rank's single-device clforge::sum /"
  echo "clforge::inclusive_scan on its block alone, all ranks at once (the device work without the"
  echo "MPI layer's totals, carries and exchanges). stencil: one time step of a 7-point Jacobi on"
  echo "a float field with periodic ends split in slabs (mpi::distributed_field): exchange_halos,"
  echo "then the sweep of each slab; GB/s: 8 bytes per point (one read, one write). Strong: $side^3"
  echo "points over the ranks; weak: $side^3 points per rank. \"sweep only\": the sweeps without the"
  echo "exchange."
  for threads in default per-rank-share; do
    echo
    if [ $threads = default ]; then
      echo "## PoCL default threads (every rank starts a thread per core)"
    else
      echo "## PoCL threads per rank = cores / ranks (POCL_MAX_PTHREAD_COUNT)"
    fi
    echo
    for ranks in 1 2 4; do
      env=()
      if [ $threads = per-rank-share ]; then
        share=$(( $(nproc) / ranks )); [ $share -ge 1 ] || share=1
        env=(-x POCL_MAX_PTHREAD_COUNT=$share -x POCL_CPU_MAX_CU_NUM=$share)
      fi
      mpirun -np $ranks --oversubscribe "${env[@]}" "$bench" --log2 "$log2" \
        --stencil-side "$side" --repetitions 7 |
        { if [ $ranks = 1 ]; then grep '^|'; else grep -E '^\| (sum|scan|stencil)'; fi; }
    done
  done
  echo
  echo "Load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out"
echo "written: $out"
