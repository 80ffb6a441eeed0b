#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cuRAND peer for clforge-bench's philox_uniform job: uniform float32 numbers in [0, 1) from
Philox4x32-10 on an NVIDIA GPU, through CuPy (cupy.random.Generator with the Philox4x3210 bit
generator, i.e. cuRAND's CURAND_RNG_PSEUDO_PHILOX4_32_10) and PyTorch (torch.rand on CUDA, whose
default generator is Philox4x32-10 too). Also a device-to-device copy of the same bytes as the
write-bandwidth reference.

    python3 bench/peer_random.py [--log2 28] [--repeats 30]

Prints the median time and GB/s (4 bytes written per number) of each; compare with
philox_uniform/clforge in clforge-bench's table (same n) on the same device.
"""
import argparse

from peer_cuda import median_time


def report(name, seconds, n):
    print(f"{name:32s} {seconds * 1e3:9.3f} ms  {4.0 * n / seconds / 1e9:8.1f} GB/s")


def run_cupy(n, repeats):
    import cupy

    gen = cupy.random.Generator(cupy.random.Philox4x3210(seed=2026))
    out = cupy.empty(n, dtype=cupy.float32)
    src = cupy.zeros(n, dtype=cupy.float32)
    t = median_time(cupy, lambda: gen.random(n, dtype=cupy.float32, out=out), repeats)
    report("cupy Philox4x3210 random()", t, n)
    # cuRAND's own host API (generate_uniform into an existing buffer)
    from cupy.cuda import curand

    g = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    curand.setPseudoRandomGeneratorSeed(g, 2026)
    t = median_time(cupy, lambda: curand.generateUniform(g, out.data.ptr, n), repeats)
    report("curand generateUniform (Philox)", t, n)
    t = median_time(cupy, lambda: out.__setitem__(slice(None), src), repeats)
    report("cupy device copy (write ref.)", t, n)


def run_torch(n, repeats):
    import torch

    if not torch.cuda.is_available():
        print("torch: no CUDA device")
        return
    torch.manual_seed(2026)
    out = torch.empty(n, dtype=torch.float32, device="cuda")
    t = median_time(torch, lambda: out.uniform_(), repeats)
    report("torch uniform_ (Philox)", t, n)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log2", type=int, default=28)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    n = 1 << args.log2
    print(f"n = 2^{args.log2} float32 numbers, median of {args.repeats} runs (CUDA events)")
    for runner in (run_cupy, run_torch):
        try:
            runner(n, args.repeats)
        except ImportError as e:
            print(f"{runner.__name__}: not installed ({e})")


if __name__ == "__main__":
    main()
