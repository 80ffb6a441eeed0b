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
import sys

from peer_cuda import median_time


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
           median_time(torch, lambda k: torch.sort(k, stable=True), args.repetitions,
                       prepare=keys.clone))

    def key_value(k):
        sorted_keys, order = torch.sort(k, stable=True)
        return sorted_keys, values[order]

    report("torch.sort int32 + gather of int32 values", n,
           median_time(torch, key_value, args.repetitions, prepare=keys.clone))

    try:
        import cupy
    except ImportError:
        print("# cupy is not importable: its case is left out")
        return 0
    cupy_keys = cupy.asarray(keys.view(torch.int32).cpu().numpy().view("uint32"))

    report("cupy.sort uint32 (keys only, CUB SortKeys)", n,
           median_time(cupy, lambda k: k.sort(), args.repetitions, prepare=cupy_keys.copy))
    report("cupy.argsort uint32 (key-value: indices)", n,
           median_time(cupy, cupy.argsort, args.repetitions, prepare=cupy_keys.copy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
