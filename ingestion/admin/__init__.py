"""Ingestion in the Django admin: the registry and evidence (`registry`), models and
their merge (`language_models`), organisations (`organisations`), verifiers (`verifiers`), sharing the evidence
announcement of `base`.
Importing the package registers them all (admin autodiscovery imports it)."""

from ingestion.admin import language_models, organisations, registry, verifiers
from ingestion.admin.base import AnnouncesEvidence

__all__ = [
    "AnnouncesEvidence",
    "language_models",
    "organisations",
    "registry",
    "verifiers",
]
