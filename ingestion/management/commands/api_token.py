"""Issue an account's API token and print its key, once (only its hash is stored).

    python manage.py api_token USERNAME

Replaces any token the account had: the old key stops working at once. Exit status 0
with the key on stdout; 1 (CommandError) when there is no such account.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ingestion.services.api_tokens import api_token_rotate


class Command(BaseCommand):
    help = "Issue USERNAME a new API token and print its key (shown this once)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")

    def handle(self, *args, username: str, **options) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no such account: {username!r}")
        self.stdout.write(api_token_rotate(user=user).key)
