"""What every benchmark module shares: percentiles, the results file (Django is set up by ``bootstrap``).

Benchmarks run against the database ``DATABASE_URL`` names (use one of its own: some
modules generate millions of rows there and reuse them between runs) and never call a
provider: the API key variables are removed before Django starts.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from config.celery import app as celery_app

RESULTS = Path(__file__).resolve().parent / "results"


def tasks_inline() -> None:
    """Celery tasks run in the benchmark's process, as they are sent (no worker)."""
    celery_app.conf.task_always_eager = True


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def timings(values_ms: list[float]) -> dict[str, float]:
    return {
        "n": len(values_ms),
        "median_ms": round(statistics.median(values_ms), 3),
        "p95_ms": round(percentile(values_ms, 95), 3),
        "max_ms": round(max(values_ms), 3),
    }


def timed(fn: Callable[[], Any], repeat: int, warmup: int = 2, max_seconds: float = 60.0) -> dict[str, float]:
    """Time ``repeat`` calls (fewer, but at least 5, when they take longer than ``max_seconds``)."""
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    cpu: list[float] = []
    deadline = time.monotonic() + max_seconds
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
        if len(samples) >= 5 and time.monotonic() > deadline:
            break
    # This process's CPU time (not the database's): the part the machine's load inflates least.
    return {**timings(samples), "cpu_median_ms": round(statistics.median(cpu), 3)}


def fmt(t: dict[str, float]) -> str:
    cpu = f", client CPU {t['cpu_median_ms']:.2f} ms" if "cpu_median_ms" in t else ""
    return f"median {t['median_ms']:.2f} ms, p95 {t['p95_ms']:.2f} ms (n={t['n']}{cpu})"


def load_average() -> float:
    """The machine's 1-minute load average (2 cores here): read every figure next to it."""
    return round(os.getloadavg()[0], 2)


def write_result(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    data = {
        "benchmark": name,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_at_end": load_average(),
        **data,
    }
    path.write_text(json.dumps(data, indent=2, default=str) + "\n")
    print(f"-> {path.relative_to(RESULTS.parent.parent)} (load average {data['load_average_at_end']} on 2 cores)")
    return path
