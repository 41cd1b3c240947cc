"""gunicorn's settings, read from the working directory (the README's production command).

Its access log, when switched on (``--access-logfile``), holds no query string and no
referrer: search words and other parameters are people's content (``liamemory/logs.py``
does the same for runserver). ``%(U)s`` is the path alone.

Once a web process has loaded the application, its start-up objects are left out of the
garbage collector's passes (``config.process_gc``), and its threads take turns at the
interpreter lock every millisecond (``config.threads``).
"""

from config.process_gc import freeze_startup_objects
from config.threads import share_the_interpreter

access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(L)s'


def post_worker_init(worker) -> None:
    """After the application is loaded in a web process: ``config.process_gc``, ``config.threads``."""
    freeze_startup_objects()
    share_the_interpreter()
