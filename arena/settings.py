"""Arena settings: one module, every deployment knob read from the environment.

Nothing here behaves differently in production except through these variables:
DATABASE_URL, CELERY_BROKER_URL, SECRET_KEY, ALLOWED_HOSTS, DEBUG, plus the
ARENA_* limits. A misconfiguration fails loudly with ImproperlyConfigured.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from ingestion.bundles.limits import BundleLimits

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off", ""}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None


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
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "corsheaders",
    "django_htmx",
    "template_partials",
    "ingestion",
    "leaderboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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
                "leaderboard.context_processors.data_terms",
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
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/submit/"
LOGOUT_REDIRECT_URL = "/"

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
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedStaticFilesStorage"
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
# Django must accept a whole bundle as one request body; the bundle limit decides.
DATA_UPLOAD_MAX_MEMORY_SIZE = ARENA_MAX_UPLOAD_BYTES + 1024**2
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

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

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "uploads": os.environ.get("ARENA_UPLOAD_RATE", "30/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena API",
    "DESCRIPTION": "Public leaderboard for AI agents: boards, signals, runs and submissions.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}
# The read API is public data: any origin may read it.
CORS_URLS_REGEX = r"^/api/v1/(boards|signals|runs|schema)/.*$"
CORS_ALLOW_ALL_ORIGINS = True

# How long a process may keep serving the snapshot it last saw before asking again.
ARENA_SNAPSHOT_POLL_SECONDS = env_int("ARENA_SNAPSHOT_POLL_SECONDS", 2)

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if os.environ.get("REDIS_CACHE_URL"):
    CACHES["default"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ["REDIS_CACHE_URL"],
    }

if not DEBUG:
    SESSION_COOKIE_HTTPONLY = True
    CSRF_COOKIE_SAMESITE = "Lax"
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"pgserver": {"level": "WARNING"}},
}

# Seconds of quiet after the last ingest before boards are recomputed (coalescing a
# burst into one recompute). Zero when tasks run eagerly: there is nothing to batch.
ARENA_RECOMPUTE_DEBOUNCE_S = env_int(
    "ARENA_RECOMPUTE_DEBOUNCE_S", 0 if CELERY_TASK_ALWAYS_EAGER else 3
)
