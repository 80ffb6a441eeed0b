#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot a clforge-bench JSON result: GB/s against n, one panel per job, one line per impl.

    python3 bench/plot.py result.json plot.png

result.json: clforge-bench --json. Needs matplotlib (Debian and Ubuntu: apt-get install
python3-matplotlib, which tools/install-deps.sh installs).

The device-copy bandwidth of the same run is drawn in every panel as a dashed reference line,
and the hand-written kernel as a dotted one, so each primitive's standing shows at a glance.
"""
import json
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        import matplotlib
    except ImportError:
        sys.exit(
            "plot.py: matplotlib is not installed: apt-get install python3-matplotlib "
            "(Debian, Ubuntu), or your system's matplotlib package"
        )

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(sys.argv[1]) as f:
        data = json.load(f)
    # name = job/impl/n/min_time:.../manual_time
    series = defaultdict(lambda: defaultdict(list))
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or "bytes_per_second" not in b:
            continue
        parts = b["run_name"].split("/")
        job, impl, n = parts[0], parts[1], parts[2]
        n = 2 ** int(n[2:]) if n.startswith("2^") else int(n)
        rate = b["bytes_per_second"]
        if rate <= 0:
            continue
        series[job][impl].append((n, rate / 1e9))
    copy = sorted(series.pop("copy", {}).get("device_copy", []))
    jobs = sorted(series)
    if not jobs:
        sys.exit("no bandwidth results in " + sys.argv[1])
    cols = min(3, len(jobs))
    rows = (len(jobs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    device = data.get("context", {}).get("clforge_device", "")
    for ax, job in zip(axes.flat, jobs):
        for impl, points in sorted(series[job].items()):
            points.sort()
            xs, ys = zip(*points)
            style = {"handwritten": ":", "openmp": "-."}.get(impl, "-")
            ax.plot(xs, ys, style, marker="o", markersize=3, label=impl)
        if copy:
            xs, ys = zip(*copy)
            ax.plot(xs, ys, "--", color="gray", label="device copy")
        ax.set_xscale("log", base=2)
        ax.set_title(job)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(jobs):]:
        ax.axis("off")
    fig.suptitle("clforge-bench " + device)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
