"""Following, unsubscribing, and sending each account one alert per snapshot.

An alert is sent at most once per (snapshot, account): the AlertDelivery row is created
in the transaction that sends the message, under a unique constraint, so a second
delivery of the task for the same snapshot (a retry, the broker's redelivery, a
concurrent worker) finds it and sends nothing; a send that the mail server refuses
rolls the row back and is counted as failed, the other accounts' messages still go out,
and a retry sends the failed ones then.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.core.mail import EmailMessage
from django.db import transaction

from ingestion.models import Harness, LanguageModel
from leaderboard.alerts.selectors import AccountAlert, SnapshotAlerts, snapshot_alerts
from leaderboard.models import AlertDelivery, Follow

logger = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "leaderboard.alerts.unsubscribe"
# What a mail server that is down or refuses a message raises through Django's SMTP
# backend (a refused connection, a timeout, an SMTP error reply).
MAIL_ERRORS = (smtplib.SMTPException, OSError)

Compose = Callable[[AccountAlert, SnapshotAlerts], EmailMessage]


@transaction.atomic
def follow_set(*, user, model: LanguageModel, harness: Harness | None, follow: bool) -> bool:
    """Follow (or stop following) an agent (`harness` and `model`) or a signal model
    (`model` alone); returns whether the account follows it now. Signed-in accounts only."""
    if not getattr(user, "is_authenticated", False):
        raise PermissionDenied("Log in to follow.")
    if follow:
        Follow.objects.get_or_create(user=user, harness=harness, model=model)
    else:
        Follow.objects.filter(user=user, harness=harness, model=model).delete()
    return follow


def is_following(user, *, model: LanguageModel, harness: Harness | None) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return Follow.objects.filter(user=user, harness=harness, model=model).exists()


def followed_signal_models(user) -> set[str]:
    """The names of the signal models this account follows (one query; none anonymous)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    rows = Follow.objects.filter(user=user, harness__isnull=True)
    return set(rows.values_list("model__name", flat=True))


def unsubscribe_token(user_id: int) -> str:
    """A signed token naming the account: the e-mail's unsubscribe link carries it."""
    return signing.dumps(user_id, salt=UNSUBSCRIBE_SALT)


def unsubscribe_account(token: str):
    """The account a token names, or None when the token is not ours (or was altered)."""
    try:
        user_id = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return get_user_model().objects.filter(pk=user_id).first()


@transaction.atomic
def follows_unsubscribe(*, token: str) -> int | None:
    """Stop every alert of the account the token names: its follows are deleted. The
    number deleted, or None for a token that names no account."""
    user = unsubscribe_account(token)
    if user is None:
        return None
    deleted, _ = Follow.objects.filter(user=user).delete()
    return deleted


# What became of one account's message.
SENT, SKIPPED, FAILED = "sent", "skipped", "failed"


@dataclass(frozen=True)
class Delivered:
    sent: int  # messages sent now
    failed: int  # messages the mail server did not take: none recorded, a retry sends them


def snapshot_alerts_deliver(*, snapshot_id: int, compose: Compose) -> Delivered:
    """Send each account with a moved followed item its one message for the snapshot
    (never a second one). Each account in a transaction of its own (no
    @transaction.atomic here): one refused message leaves the others sent and recorded."""
    alerts = snapshot_alerts(snapshot_id)
    outcomes = [_deliver(alerts, account, compose) for account in alerts.accounts]
    return Delivered(sent=outcomes.count(SENT), failed=outcomes.count(FAILED))


def _deliver(alerts: SnapshotAlerts, account: AccountAlert, compose: Compose) -> str:
    try:
        with transaction.atomic():
            _, created = AlertDelivery.objects.get_or_create(
                snapshot_id=alerts.snapshot_id, user_id=account.user_id,
                defaults={"moves": account.moves},
            )  # fmt: skip
            if not created:
                return SKIPPED
            compose(account, alerts).send()
    except MAIL_ERRORS:
        logger.exception(
            "the alert of snapshot %s to account %s was not sent",
            alerts.snapshot_id,
            account.user_id,
        )
        return FAILED
    return SENT
