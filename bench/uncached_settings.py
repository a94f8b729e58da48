"""Settings of bench/pages.py's uncached server: arena's, with no page cache at all.

Django's DummyCache stores nothing, so every request renders its page from the
database (and asks which boards are current): what a new snapshot's first visitors
cost, measured apart from the cached case.
"""

from arena.settings import *  # noqa: F403

CACHES = {**CACHES, "pages": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}  # noqa: F405
