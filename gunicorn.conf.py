"""gunicorn's settings, read from the working directory (the README's production command).

Its access log, when switched on (``--access-logfile``), holds no query string and no
referrer: search words and other parameters are people's content (``liamemory/logs.py``
does the same for runserver). ``%(U)s`` is the path alone.
"""

access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(b)s %(L)s'
