"""Project wiring: settings, the URL table, the Celery app, ASGI/WSGI and ``/healthz``.

It sits above every app and names them all; no app imports it.
"""

import os

# numpy's OpenBLAS runs a matrix product on one thread, as the embedding engine does
# (``EMBEDDING_THREADS``): set before numpy loads it, which every process of the product
# does after importing this package. Its own pool of one thread a core busy-waits after
# each product; in processes that already share the cores (web and worker threads, the
# database) that spinning took ~30 ms of CPU per history search on the 10,000-message
# thread (bench/README.md, "One BLAS thread"). An operator may still set it otherwise.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .celery import app as celery_app

__all__ = ("celery_app",)
