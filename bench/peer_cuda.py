# SPDX-License-Identifier: MIT
"""The timing shared by the CUDA peer scripts (peer_sort.py, peer_random.py, peer_reduce_scan.py):
the median device time of a call between two CUDA events recorded on the current stream, through
PyTorch or CuPy. The scripts import it as a sibling module (python3 bench/peer_x.py puts bench/
on the import path)."""
import statistics


def median_time(lib, fn, repetitions, prepare=None, warmups=2):
    """Median seconds, over `repetitions` timed runs after `warmups` untimed ones, of fn() or, with
    `prepare`, of fn(prepare()): prepare makes each run's input before the timed region (a sort's
    fresh copy of the keys). lib is the torch or the cupy module."""
    if lib.__name__ == "torch":
        def event():
            return lib.cuda.Event(enable_timing=True)
        synchronize = lib.cuda.synchronize

        def elapsed_ms(start, end):
            return start.elapsed_time(end)
    else:
        event = lib.cuda.Event
        synchronize = lib.cuda.Device().synchronize
        elapsed_ms = lib.cuda.get_elapsed_time
    times = []
    for r in range(warmups + repetitions):
        data = prepare() if prepare is not None else None
        synchronize()
        start, end = event(), event()
        start.record()
        if prepare is not None:
            fn(data)
        else:
            fn()
        end.record()
        end.synchronize()
        if r >= warmups:
            times.append(elapsed_ms(start, end) * 1e-3)
    return statistics.median(times)
