#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peer timings for clforge's sort on NVIDIA GPUs: CUB's radix sort through torch.sort and, if
importable, cupy.sort, on 2^28 32-bit keys (keys only, and key-value pairs).

Prints one line per case with the median device time over the repetitions and GKeys/s. Each
repetition sorts a fresh copy of the same random keys; the copy is made before the timed region
(CUDA events around the sort only).

Notes on what each peer sorts:
  torch.sort returns the sorted keys and their int64 indices, so its "keys" case is really
  keys + int64 indices (CUB SortPairs); "key-value" passes int32 values along with
  torch.sort's indices through a gather, as a user would (both are listed).
  cupy.sort sorts keys only (CUB DeviceRadixSort::SortKeys).
  PyTorch's uint32 support is partial, so torch sorts int32 keys (the same radix passes).

Usage: python3 bench/peer_sort.py [--log2 28] [--repetitions 20]
"""
import argparse
import statistics
import sys


def time_cuda(fn, prepare, repetitions, torch):
    times = []
    for r in range(repetitions + 2):
        data = prepare()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(data)
        end.record()
        end.synchronize()
        if r >= 2:  # two warm-ups
            times.append(start.elapsed_time(end) * 1e-3)
    return statistics.median(times)


def report(name, n, seconds):
    print(f"{name:48s} n=2^{n.bit_length() - 1}  {seconds * 1e3:9.3f} ms  "
          f"{n / seconds / 1e9:7.2f} GKeys/s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=28)
    parser.add_argument("--repetitions", type=int, default=20)
    args = parser.parse_args()
    n = 1 << args.log2
    try:
        import torch
    except ImportError:
        print("peer_sort: torch is not importable; nothing to time", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("peer_sort: no CUDA device", file=sys.stderr)
        return 1
    print(f"# device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    generator = torch.Generator(device="cuda").manual_seed(21)
    keys = torch.randint(-2**31, 2**31 - 1, (n,), dtype=torch.int32, device="cuda",
                         generator=generator)
    values = torch.arange(n, dtype=torch.int32, device="cuda")

    report("torch.sort int32 (keys + int64 indices)", n,
           time_cuda(lambda k: torch.sort(k, stable=True), lambda: keys.clone(),
                     args.repetitions, torch))

    def key_value(k):
        sorted_keys, order = torch.sort(k, stable=True)
        return sorted_keys, values[order]

    report("torch.sort int32 + gather of int32 values", n,
           time_cuda(key_value, lambda: keys.clone(), args.repetitions, torch))

    try:
        import cupy
    except ImportError:
        print("# cupy is not importable: its case is left out")
        return 0
    cupy_keys = cupy.asarray(keys.view(torch.int32).cpu().numpy().view("uint32"))

    def cupy_time(fn, prepare):
        times = []
        for r in range(args.repetitions + 2):
            data = prepare()
            cupy.cuda.Device().synchronize()
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn(data)
            end.record()
            end.synchronize()
            if r >= 2:
                times.append(cupy.cuda.get_elapsed_time(start, end) * 1e-3)
        return statistics.median(times)

    report("cupy.sort uint32 (keys only, CUB SortKeys)", n,
           cupy_time(lambda k: k.sort(), lambda: cupy_keys.copy()))
    report("cupy.argsort uint32 (key-value: indices)", n,
           cupy_time(lambda k: cupy.argsort(k), lambda: cupy_keys.copy()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
