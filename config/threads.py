"""How often a long-running process's threads take turns holding the interpreter lock.

A web process (32 threads) and a turn worker (32) spend most of a turn waiting on the
database, Redis or the model, a few milliseconds of Python between two waits. A thread
coming back from a wait needs the interpreter lock, and CPython lets the thread holding
it keep it for its switch interval (5 ms by default) before handing it over: with
several threads running Python at once, each statement of a turn waited up to a few
intervals for the lock. With 1 ms the waiting thread gets it sooner and the CPU-bound
thread loses little (bench/README.md, "Session 14": the POST and the stream's last
event shortened by a fifth to a third at 64 clients).
"""

import sys

from django.conf import settings


def share_the_interpreter() -> None:
    """Set this process's switch interval (``THREAD_SWITCH_SECONDS``; 0 keeps CPython's default).

    Called once a process has started (gunicorn's ``post_worker_init``, Celery's
    ``worker_ready`` and ``worker_process_init``), like ``config.process_gc``.
    """
    if settings.THREAD_SWITCH_SECONDS > 0:
        sys.setswitchinterval(settings.THREAD_SWITCH_SECONDS)
