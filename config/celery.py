"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

import logging.config
import os

from celery import Celery
from celery.signals import setup_logging, task_postrun, task_prerun, worker_process_init, worker_ready
from django.db import close_old_connections, reset_queries

from config.process_gc import freeze_startup_objects
from config.threads import share_the_interpreter

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("liamemory")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The turn's tasks live with the turn (``usecases/turn/tasks.py``), below an installed app.
app.autodiscover_tasks(["usecases.turn"])


@setup_logging.connect
def _django_logging(**kwargs) -> None:
    """Workers log through Django's ``LOGGING`` (``liamemory/logs.py``: ids, never
    content) instead of the handlers Celery would install on the root logger."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@task_prerun.connect
def _forget_logged_queries(task=None, **kwargs) -> None:
    """Clear the statements Django logged on this thread's connections, as a web request does.

    With DEBUG on (the default outside production, ``make run`` included) Django keeps the
    last 9,000 statements of every thread's connection; a request clears them when it
    starts, a task never did. A turn worker's 64 threads each filled their log with
    statements and their parameters (vectors and texts): its memory grew with every turn
    (bench.footprint: ×1.71 over 1,301 turns). Celery's own fixup closes connections
    between tasks but keeps their log. An eager task runs inside its caller (a request, a
    test counting queries), whose log is the caller's.
    """
    if not getattr(getattr(task, "request", None), "is_eager", False):
        reset_queries()


@task_prerun.connect
@task_postrun.connect
def _connections_as_a_request_does(task=None, **kwargs) -> None:
    """Before and after a task, each database connection is handed back or kept as around a
    web request: back to the pool with ``DB_POOL_MAX_SIZE``, else closed unless
    ``DB_CONN_MAX_AGE`` keeps it, and a broken one is dropped.

    Celery's Django fixup closed every connection around every task and, in a prefork
    child, the whole connection pool: each task of the summary and embedding workers then
    opened a pool again, with new server sessions (bench.throughput: 14 sessions per
    turn). ``CELERY_DB_REUSE_MAX`` (settings) keeps the fixup's hands off; this does the
    rest. An eager task runs inside its caller, whose connections are the caller's.
    """
    if not getattr(getattr(task, "request", None), "is_eager", False):
        close_old_connections()


@worker_ready.connect
@worker_process_init.connect
def _after_startup(**kwargs) -> None:
    """A worker's start-up objects are left out of the collector's passes (``config.process_gc``):
    in the worker's own process (the thread pools run their tasks there) and in each prefork child;
    its threads take turns at the interpreter lock every millisecond (``config.threads``)."""
    freeze_startup_objects()
    share_the_interpreter()
