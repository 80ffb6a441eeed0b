#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scaling table of clforge-mpi-bench: distributed sum, scan, copy_if and sort of int32 on 1, 2
# and 4 ranks (oversubscribed where the machine has fewer cores), strong scaling (2^LOG2 in
# all) and weak scaling (2^WEAK_LOG2 per rank), and the stencil job (halo exchange + 3-D Jacobi
# sweep of a SIDE^3 float cube, strong and weak), written to bench/results/mpi-<name>-<date>.md
# with the commands and the machine's load.
#   bash bench/run-mpi.sh [build-dir] [log2, default 26] [weak log2, default log2 - 1]
#                         [name for the results file, default pocl] [repetitions, default 7]
#                         [stencil side, default 128]
# GPUs: bash bench/run-mpi.sh build 29 28 h100 (one rank per GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
log2=${2:-26}
weak_log2=${3:-$((log2 - 1))}
name=${4:-pocl}
repetitions=${5:-7}
side=${6:-128}
bench=$build/bin/clforge-mpi-bench
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=bench/results/mpi-$name-$(date +%Y-%m-%d).md
{
  echo "# clforge-mpi-bench: distributed sum, scan, copy_if and sort of int32; stencil on $side^3 float"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Command: \`bash bench/run-mpi.sh $build $log2 $weak_log2 $name $repetitions\` (each row: \`mpirun -np R --oversubscribe $bench --log2 K --scaling S --repetitions $repetitions\`)."
  echo "Strong scaling: 2^$log2 elements in all; weak scaling: 2^$weak_log2 per rank."
  echo "time: median over $repetitions repetitions of the slowest rank's wall time (barrier to return,"
  echo "the scan to completion). local: the rank's device work and host staging; MPI: time inside MPI"
  echo "calls (exchanges and agreements, waiting for slower ranks included). GB/s: nominal bytes per"
  echo "element over that time: sum 4, scan 8, copy_if 6 (read, about half written), sort 8 (uint32"
  echo "keys read and written once). \"blocks only\": each rank's single-device template on its block"
  echo "alone, all ranks at once (the device work without the MPI layer's totals and exchanges)."
  echo "stencil: one time step of a 7-point Jacobi on a float field with periodic ends split in slabs"
  echo "(mpi::distributed_field): exchange_halos, then the sweep of each slab; GB/s: 8 bytes per"
  echo "point. Strong: $side^3 points over the ranks; weak: $side^3 per rank. \"sweep only\": the"
  echo "sweeps without the exchange."
  for threads in default per-rank-share; do
    echo
    if [ $threads = default ]; then
      echo "## PoCL default threads (every rank starts a thread per core)"
    else
      echo "## PoCL threads per rank = cores / ranks (POCL_MAX_PTHREAD_COUNT)"
    fi
    echo
    first=1
    for scaling in strong weak; do
      k=$log2; [ $scaling = weak ] && k=$weak_log2
      for ranks in 1 2 4; do
        env=()
        if [ $threads = per-rank-share ]; then
          share=$(( $(nproc) / ranks )); [ $share -ge 1 ] || share=1
          env=(-x POCL_MAX_PTHREAD_COUNT=$share -x POCL_CPU_MAX_CU_NUM=$share)
        fi
        mpirun -np $ranks --oversubscribe "${env[@]}" "$bench" --log2 "$k" --scaling $scaling \
            --jobs sum,scan,sort,copy_if --repetitions "$repetitions" |
          { if [ $first = 1 ]; then grep '^|'; else grep -E '^\| [a-z]'; fi; } | grep -v '^| job' |
          { if [ $first = 1 ]; then
              echo "| job | ranks | scaling | n | time ms (slowest rank, median) | GB/s | per rank: local ms / MPI ms (median) |"
              echo "|---|---|---|---|---|---|---|"
            fi; grep -v '^|---' || true; }
        first=0
      done
    done
    echo
    for ranks in 1 2 4; do
      env=()
      if [ $threads = per-rank-share ]; then
        share=$(( $(nproc) / ranks )); [ $share -ge 1 ] || share=1
        env=(-x POCL_MAX_PTHREAD_COUNT=$share -x POCL_CPU_MAX_CU_NUM=$share)
      fi
      mpirun -np $ranks --oversubscribe "${env[@]}" "$bench" --jobs stencil --stencil-side "$side" \
          --repetitions "$repetitions" |
        { if [ $ranks = 1 ]; then grep '^|'; else grep -E '^\| stencil'; fi; }
    done
  done
  echo
  echo "Load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out"
echo "written: $out"
