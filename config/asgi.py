import os

from django.core.asgi import get_asgi_application

from liamemory.embedded_db import use_when_no_database_url

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
use_when_no_database_url()
application = get_asgi_application()
