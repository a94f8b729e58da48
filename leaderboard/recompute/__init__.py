"""The recompute room: the one place that decides what to recompute, and when.

Ingestion and moderation never ask for a recompute; they announce that evidence changed
(`ingestion.evidence`). `receivers` hears each announcement once its transaction has
committed and records the request (`requests`); the coalesced Celery task (`tasks`)
computes a new snapshot (`services`) once requests have been quiet for the debounce.
"""
