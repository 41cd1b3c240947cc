"""Build every large data set the latency benchmarks read, ahead of a timed run.

Generating them takes far longer than measuring (the 10,000-message thread's vectors
alone take minutes), so a quiet-machine run must find them ready: run this first, into
the same ``DATABASE_URL`` the benchmarks will use. Data sets already current are kept.

    .venv/bin/python -m bench.prepare_data            # what the full runs read
    .venv/bin/python -m bench.prepare_data --quick    # what the --quick runs read
    .venv/bin/python -m bench.prepare_data --check    # are they current? (builds nothing)
"""

from __future__ import annotations

import argparse
import sys
import time

from bench import overhead, scale_data, vectors


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--check", action="store_true", help="only say whether they are current (exit 1 if not)")
    args = parser.parse_args()

    msgs, mems = overhead.specs()
    history, memories = vectors.specs(args.quick)
    specs = (*mems.values(), memories, msgs, history)
    if args.check:
        stale = [spec.name for spec in specs if not scale_data.current(spec)]
        print(f"data sets not current: {', '.join(stale)}" if stale else "every data set is current")
        return 1 if stale else 0
    for spec in specs:
        started = time.monotonic()
        spent = scale_data.ensure(spec)
        state = f"built in {spent:.0f} s" if spent else "current"
        print(f"{spec.name}: {state} ({time.monotonic() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
