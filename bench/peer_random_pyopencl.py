#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyOpenCL peer for clforge-bench's philox_normal job: normally distributed float32 numbers
(mean 0, sd 1) from PyOpenCL's Philox generator (pyopencl.clrandom.PhiloxGenerator.normal,
Box-Muller on Random123's Philox4x32-10, the generator pyopencl.clrandom uses by default), on
the first OpenCL device whose name or platform contains --device (PoCL: "pthread").

    python3 bench/peer_random_pyopencl.py [--log2 22 24] [--repeats 30] [--device pthread]

Prints the median time of each fill from profiling events (as clforge-bench times its device
work) and GB/s (4 bytes written per number); compare with philox_normal/clforge in
clforge-bench's table at the same n on the same device, run right before or after.
PyOpenCL is needed for this measurement only (pip install pyopencl).
"""
import argparse
import statistics


def pick_device(cl, needle):
    for platform in cl.get_platforms():
        for device in platform.get_devices():
            if needle.lower() in (device.name + " " + platform.name).lower():
                return device
    raise SystemExit(f"no OpenCL device matching {needle!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log2", type=int, nargs="+", default=[22, 24])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--device", default="")
    args = parser.parse_args()

    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    import pyopencl.clrandom as clrandom

    device = pick_device(cl, args.device)
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    print(f"# {device.name} ({device.platform.name} {device.platform.version}), "
          f"pyopencl {cl.VERSION_TEXT}")
    gen = clrandom.PhiloxGenerator(ctx, seed=2026)
    for log2 in args.log2:
        n = 1 << log2
        out = cla.empty(queue, n, np.float32)
        gen.fill_normal(out)  # warm-up: builds the kernel
        queue.finish()
        times = []
        for _ in range(args.repeats):
            before = len(out.events)
            gen.fill_normal(out)
            queue.finish()
            events = out.events[before:] or out.events[-1:]
            times.append(sum(e.profile.end - e.profile.start for e in events) * 1e-9)
        t = statistics.median(times)
        print(f"pyopencl_normal 2^{log2}  {t * 1e3:9.3f} ms  {4.0 * n / t / 1e9:8.2f} GB/s")


if __name__ == "__main__":
    main()
