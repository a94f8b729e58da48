"""The alert e-mails: composed here (templates, links), sent by the alerts room.

When a snapshot is swapped in, `alerts_kick` is queued on commit; the task
`alerts_send(snapshot_id)` asks leaderboard.alerts for every account whose followed
agents or signal models moved past their interval in that snapshot, and each gets one
message listing all of them (leaderboard.alerts.services makes a second delivery for the
same snapshot send nothing). Links are absolute (settings.ARENA_SITE_URL): the worker
has no request. Each message carries its unsubscribe link and the List-Unsubscribe
headers of one-click unsubscribe (RFC 8058).
"""

from __future__ import annotations

import logging
from functools import partial

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.dispatch import receiver
from django.template.loader import render_to_string
from django.urls import reverse
from kombu.exceptions import OperationalError as BrokerError

from leaderboard.alerts.selectors import AccountAlert, ItemMoves, SnapshotAlerts
from leaderboard.alerts.services import snapshot_alerts_deliver, unsubscribe_token
from leaderboard.models import Board, Follow
from leaderboard.presentation.moves import change_text
from leaderboard.recompute.announcements import snapshot_swapping
from leaderboard.web.links import agent_url_for

logger = logging.getLogger(__name__)

ALERT_RECEIVER = "leaderboard.web.alert_mail.snapshot_swapping"
TEMPLATE = "leaderboard/email/alert.txt"


def absolute(path: str) -> str:
    return settings.ARENA_SITE_URL + path


def alert_message(
    account: AccountAlert, alerts: SnapshotAlerts, *, titles: dict[str, str]
) -> EmailMessage:
    """One account's message for the snapshot: every followed item that moved."""
    unsubscribe = absolute(reverse("alerts-unsubscribe", args=[unsubscribe_token(account.user_id)]))
    moves = account.moves
    told = "1 move past its interval" if moves == 1 else f"{moves} moves past their intervals"
    subject = f"{settings.ACCOUNT_EMAIL_SUBJECT_PREFIX}{told}"
    context = {
        "username": account.username,
        "items": [_item(item, titles) for item in account.items],
        "causes": alerts.causes,
        "unsubscribe_url": unsubscribe,
        "methodology_url": absolute(reverse("methodology") + "#alerts"),
    }
    return EmailMessage(
        subject=subject,
        body=render_to_string(TEMPLATE, context),
        to=[account.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


def _item(item: ItemMoves, titles: dict[str, str]) -> dict:
    follow = item.follow
    if follow.harness_id:
        harness, model = follow.harness, follow.model
        account = harness.independent_by.username if harness.independent_by_id else None
        name = f"{harness.name} {harness.version} · {model.name}"
        where = titles.get(item.board_slug, item.board_slug)
        url = agent_url_for(harness.name, harness.version, model.name, account)
    else:
        name, where, url = follow.model.name, "the signal boards", reverse("signals")
    return {
        "name": name,
        "where": where,
        "url": absolute(url or reverse("home")),
        "lines": [change_text(change) for change in item.moves],
    }


class AlertsNotSent(Exception):
    """Some messages of a snapshot were refused by the mail server: the task is retried,
    and its retry sends only those (the others are recorded as sent)."""


# Retries of a snapshot's alerts: 30 s, 60 s, ... up to 10 minutes apart (far below the
# broker's visibility timeout), about an hour and a half in all.
RETRIES = 10


@shared_task(
    soft_time_limit=120, time_limit=150, acks_late=True,
    # A run cut short by its time limit (a slow mail server, many followers) is retried
    # too: the messages it sent are recorded, so the retry goes on from there.
    autoretry_for=(AlertsNotSent, SoftTimeLimitExceeded), max_retries=RETRIES,
    retry_backoff=30, retry_backoff_max=600, retry_jitter=False,
)  # fmt: skip
def alerts_send(snapshot_id: int) -> str:
    titles = dict(Board.objects.current().values_list("slug", "title"))
    compose = partial(alert_message, titles=titles)
    delivered = snapshot_alerts_deliver(snapshot_id=snapshot_id, compose=compose)
    if delivered.failed:
        raise AlertsNotSent(
            f"{delivered.failed} alert e-mails of snapshot {snapshot_id} were not sent "
            f"({delivered.sent} sent now)"
        )
    return f"sent {delivered.sent} alert e-mails for snapshot {snapshot_id}"


def alerts_kick(snapshot_id: int) -> None:
    """Queue the snapshot's alerts (run in place when Celery is eager); nothing when no
    account follows anything. A broker that cannot take it loses that snapshot's
    alerts (logged): the next snapshot's moves are still sent."""
    if not Follow.objects.exists():
        return
    try:
        alerts_send.delay(snapshot_id)
    except BrokerError:
        logger.exception("could not queue the alert e-mails of snapshot %s", snapshot_id)


@receiver(snapshot_swapping, dispatch_uid=ALERT_RECEIVER)
def snapshot_swapping_received(sender: str, *, snapshot_id: int, **kwargs: object) -> None:
    """In the swap's transaction: the alerts go out once it commits (its history with it)."""
    transaction.on_commit(partial(alerts_kick, snapshot_id), robust=True)
