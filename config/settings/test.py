"""Test settings: the base settings, never a real model, never an outside call."""

import os

# Cleared before base reads the environment: no test may reach the real API or a
# tracing service, whatever the developer's shell holds.
for _name in list(os.environ):
    if _name in {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} or _name.startswith(("LANGSMITH_", "LANGCHAIN_")):
        del os.environ[_name]

from .base import *  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A test (or a worker a test starts) may point the product at the fake Messages API
# server on loopback; nothing else is allowed.
_fake = os.environ.get("LIAMEMORY_FAKE_ANTHROPIC_URL", "")
if _fake:
    if not _fake.startswith(("http://127.0.0.1:", "http://localhost:")):
        raise RuntimeError("LIAMEMORY_FAKE_ANTHROPIC_URL must point at loopback")
    ANTHROPIC_API_KEY = "test-key"
    ANTHROPIC_BASE_URL = _fake

# A remember must not spend a scripted fake-model reply unasked: the tests of the
# contradiction model switch it on.
MEMORY_CONTRADICTION_MODEL = False

# Tests use their own broker folder and queue, so a `make run` worker on the same
# machine never takes a test's task (nor a test worker a real one).
CELERY_TASK_DEFAULT_QUEUE = "liamemory-test"
EMBEDDING_QUEUE = "liamemory-test-embeddings"
CELERY_TASK_ROUTES = {
    **CELERY_TASK_ROUTES,
    **{name: {"queue": EMBEDDING_QUEUE} for name in ("conversations.embed_*", "memories.embed_*")},
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR = VAR_DIR / "test-broker"
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "store_processed": False,
        # Celery's control exchanges; kombu's default is a "control" folder in the CWD.
        "control_folder": str(BROKER_DIR / "control"),
    }
else:
    # Redelivery tests want a lost task back quickly.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=10)}
