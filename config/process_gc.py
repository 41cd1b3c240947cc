"""The cyclic garbage collector of the product's long-running processes, set once they have started.

A web or worker process holds ~175,000 objects from its start-up (Django, DRF, Celery,
LangGraph, the product's modules), which live as long as it does. Python's collector
went through all of them at every full collection, and a history search on a long
thread makes enough objects (one row tuple a vector read: 10,000 on the 10,000-message
thread) to trigger one every few calls: on ``lm_bench`` the collector took 28-63 ms a
search on average, one full pass 160-350 ms (loaded machine, 60 calls), the history
search's p95 (bench/README.md, "The collector"). Frozen (``gc.freeze``), the start-up
objects are left out of every pass (still freed by reference counting as ever); with a
first-generation threshold of 5,000 objects instead of 700, a search triggers a few
young collections instead of ~27: 3.9 ms a search, no pass above 1 ms.
"""

import gc

# Allocations (less deallocations) of tracked objects before a young collection; CPython's default is 700.
YOUNG_THRESHOLD = 5_000


def freeze_startup_objects() -> None:
    """Leave what the process has loaded so far out of the collector's passes, and collect young objects less often.

    Called once a process has started (gunicorn's ``post_worker_init``, Celery's
    ``worker_ready`` and ``worker_process_init``), before it serves anything. Garbage
    already made is collected first, so none of it is kept frozen.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
