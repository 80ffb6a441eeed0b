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
(--only: the cases whose name contains TEXT, e.g. "sum"; the device copies always run)
"""
import argparse
import os
import statistics
import sys

# Before cupy's import: its reductions, scans and histograms then run through CUB.
os.environ.setdefault("CUPY_ACCELERATORS", "cub")


ONLY = ""


def wanted(name):
    return ONLY in name or "device copy" in name


def report(name, n, seconds, bytes_per_element):
    print(f"{name:52s} n=2^{n.bit_length() - 1}  {seconds * 1e6:10.2f} us  "
          f"{n * bytes_per_element / seconds / 1e9:8.1f} GB/s", flush=True)


def median_time(fn, repetitions, event, synchronize, elapsed):
    times = []
    for r in range(repetitions + 2):
        synchronize()
        start, end = event(), event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        if r >= 2:  # two warm-ups
            times.append(elapsed(start, end))
    return statistics.median(times)


def run_torch(n, repetitions, torch):
    def timed(name, fn, bytes_per_element):
        if wanted(name):
            report(name, n, median_time(fn, repetitions,
                                        lambda: torch.cuda.Event(enable_timing=True),
                                        torch.cuda.synchronize,
                                        lambda s, e: s.elapsed_time(e) * 1e-3), bytes_per_element)

    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.rand(n, dtype=torch.float32, device="cuda", generator=g)
    y = torch.empty_like(x)
    timed("torch copy_ (device copy)", lambda: y.copy_(x), 8)
    timed("torch.sum float32", lambda: torch.sum(x), 4)
    del y
    ints = torch.randint(-100, 101, (n,), dtype=torch.int32, device="cuda", generator=g)
    out = torch.empty_like(ints)
    timed("torch.cumsum int32 (out=, dtype int32)",
          lambda: torch.cumsum(ints, 0, dtype=torch.int32, out=out), 8)
    del out
    timed("torch.masked_select(x, x >= 0) int32", lambda: torch.masked_select(ints, ints >= 0),
          6)
    del ints
    h = torch.rand(n, dtype=torch.float32, device="cuda", generator=g) * 2 - 1
    timed("torch.histc 256 bins float32",
          lambda: torch.histc(h, bins=256, min=-1.0, max=1.0), 4)


def run_cupy(n, repetitions, cupy):
    def timed(name, fn, bytes_per_element):
        if wanted(name):
            report(name, n, median_time(fn, repetitions, cupy.cuda.Event,
                                        cupy.cuda.Device().synchronize,
                                        lambda s, e: cupy.cuda.get_elapsed_time(s, e) * 1e-3),
                   bytes_per_element)

    rng = cupy.random.default_rng(7)
    x = rng.random(n, dtype=cupy.float32)
    y = cupy.empty_like(x)
    timed("cupy copyto (device copy)", lambda: cupy.copyto(y, x), 8)
    timed("cupy.sum float32", lambda: x.sum(), 4)
    del y
    ints = rng.integers(-100, 101, n, dtype=cupy.int32)
    out = cupy.empty_like(ints)
    timed("cupy.cumsum int32 (out=, dtype int32)",
          lambda: cupy.cumsum(ints, dtype=cupy.int32, out=out), 8)
    del out
    timed("cupy x[x >= 0] int32", lambda: ints[ints >= 0], 6)
    del ints
    h = rng.random(n, dtype=cupy.float32) * 2 - 1
    timed("cupy.histogram 256 bins float32",
          lambda: cupy.histogram(h, bins=256, range=(-1.0, 1.0)), 4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=28)
    parser.add_argument("--repetitions", type=int, default=30)
    parser.add_argument("--only", default="", help="time only the cases whose name has this")
    args = parser.parse_args()
    global ONLY
    ONLY = args.only
    n = 1 << args.log2
    ran = False
    try:
        import torch
        if torch.cuda.is_available():
            print(f"# device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
            run_torch(n, args.repetitions, torch)
            torch.cuda.empty_cache()
            ran = True
        else:
            print("# torch: no CUDA device; its cases are left out")
    except ImportError:
        print("# torch is not importable: its cases are left out")
    try:
        import cupy
        print(f"# cupy {cupy.__version__}, CUPY_ACCELERATORS={os.environ['CUPY_ACCELERATORS']}")
        run_cupy(n, args.repetitions, cupy)
        ran = True
    except ImportError:
        print("# cupy is not importable: its cases are left out")
    if not ran:
        print("peer_reduce_scan: nothing to time", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
