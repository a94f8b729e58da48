"""API tokens, kept as the SHA-256 of their key: the key itself is shown once and never
stored (docs/decisions.md, "API tokens hashed at rest")."""

from __future__ import annotations

from django.conf import settings
from django.db import models

# Hex SHA-256.
KEY_HASH_LENGTH = 64


class ApiToken(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    key_hash = models.CharField(max_length=KEY_HASH_LENGTH, unique=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"API token of {self.user_id}"
