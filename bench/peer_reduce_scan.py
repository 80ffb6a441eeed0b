#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peer timings for clforge's sum, inclusive scan, copy_if and histogram on NVIDIA GPUs: CuPy
(with CUPY_ACCELERATORS=cub, so that the calls CuPy routes to CUB run there: its whole-array sum
among them) and PyTorch, on the inputs of the bench's rows.

Prints one line per case: the median device time over the repetitions (CUDA events around the
call only) and GB/s with the bytes per element of the matching clforge-bench row, so the figures
compare with that row's and with the device copy printed first:
  copy                 8 B/element (read and write 4)
  sum float32          4 B/element, x uniform in [0, 1) (bench row sum)
  inclusive scan int32 8 B/element (inclusive_scan_int32)
  copy_if 50%          6 B/element: int32 in [-100, 100] kept where x >= 0 (copy_if_50); the
                       peers compute the mask as a separate pass, as their users would
  histogram 256 bins   4 B/element, floats uniform in [-1, 1) over [-1, 1] (histogram_256_float)
Results that reach the host (sum, the kept count) are synchronised inside the timed region only
where the peer's API returns them to the host; a device scalar is not read back.

Usage: python3 bench/peer_reduce_scan.py [--log2 28] [--repetitions 30] [--only TEXT]
(--only: the cases whose name contains TEXT, e.g. "sum float" for the sums alone, where "sum"
also picks the cumsums; the device copies always run; the other cases allocate nothing)
"""
import argparse
import os
import sys

# Before cupy's import: the calls CuPy routes to CUB then run there. That the whole-array sum
# does was checked (bench/results/NVIDIA-H200-2026-12-04); the other cases were not.
os.environ.setdefault("CUPY_ACCELERATORS", "cub")

from peer_cuda import median_time  # noqa: E402


def report(name, n, seconds, bytes_per_element):
    print(f"{name:52s} n=2^{n.bit_length() - 1}  {seconds * 1e6:10.2f} us  "
          f"{n * bytes_per_element / seconds / 1e9:8.1f} GB/s", flush=True)


def run_cases(lib, n, repetitions, only, cases):
    """Times each case (name, bytes per element, make, call) whose name contains `only` (the
    device copies always): make() builds its inputs, call(inputs) is timed; inputs are freed
    before the next case's are made, so skipped cases allocate nothing."""
    for name, bytes_per_element, make, call in cases:
        if only not in name and "device copy" not in name:
            continue
        inputs = make()
        seconds = median_time(lib, lambda: call(inputs), repetitions)
        inputs = None  # freed before the next case's inputs are made
        report(name, n, seconds, bytes_per_element)


def run_torch(n, repetitions, only, torch):
    g = torch.Generator(device="cuda").manual_seed(7)

    def floats():
        return torch.rand(n, dtype=torch.float32, device="cuda", generator=g)

    def ints():
        return torch.randint(-100, 101, (n,), dtype=torch.int32, device="cuda", generator=g)

    run_cases(torch, n, repetitions, only, [
        ("torch copy_ (device copy)", 8, lambda: (floats(), torch.empty(n, device="cuda")),
         lambda a: a[1].copy_(a[0])),
        ("torch.sum float32", 4, floats, torch.sum),
        ("torch.cumsum int32 (out=, dtype int32)", 8,
         lambda: (ints(), torch.empty(n, dtype=torch.int32, device="cuda")),
         lambda a: torch.cumsum(a[0], 0, dtype=torch.int32, out=a[1])),
        ("torch.masked_select(x, x >= 0) int32", 6, ints,
         lambda x: torch.masked_select(x, x >= 0)),
        ("torch.histc 256 bins float32", 4, lambda: floats() * 2 - 1,
         lambda h: torch.histc(h, bins=256, min=-1.0, max=1.0)),
    ])
    torch.cuda.empty_cache()


def run_cupy(n, repetitions, only, cupy):
    rng = cupy.random.default_rng(7)

    def floats():
        return rng.random(n, dtype=cupy.float32)

    def ints():
        return rng.integers(-100, 101, n, dtype=cupy.int32)

    run_cases(cupy, n, repetitions, only, [
        ("cupy copyto (device copy)", 8, lambda: (floats(), cupy.empty(n, dtype=cupy.float32)),
         lambda a: cupy.copyto(a[1], a[0])),
        ("cupy.sum float32", 4, floats, lambda x: x.sum()),
        ("cupy.cumsum int32 (out=, dtype int32)", 8,
         lambda: (ints(), cupy.empty(n, dtype=cupy.int32)),
         lambda a: cupy.cumsum(a[0], dtype=cupy.int32, out=a[1])),
        ("cupy x[x >= 0] int32", 6, ints, lambda x: x[x >= 0]),
        ("cupy.histogram 256 bins float32", 4, lambda: floats() * 2 - 1,
         lambda h: cupy.histogram(h, bins=256, range=(-1.0, 1.0))),
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=28)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--only", default="", help="time only the cases whose name has this")
    args = parser.parse_args()
    n = 1 << args.log2
    ran = False
    try:
        import torch
        if torch.cuda.is_available():
            print(f"# device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
            run_torch(n, args.repetitions, args.only, torch)
            ran = True
        else:
            print("# torch: no CUDA device; its cases are left out")
    except ImportError:
        print("# torch is not importable: its cases are left out")
    try:
        import cupy
        print(f"# cupy {cupy.__version__}, CUPY_ACCELERATORS={os.environ['CUPY_ACCELERATORS']}")
        run_cupy(n, args.repetitions, args.only, cupy)
        ran = True
    except ImportError:
        print("# cupy is not importable: its cases are left out")
    if not ran:
        print("peer_reduce_scan: nothing to time", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
