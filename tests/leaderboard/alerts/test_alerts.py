"""Alert e-mails after a recompute: to the accounts that follow what moved past its
interval, once per snapshot, with an unsubscribe link that works without logging in."""

from __future__ import annotations

import socket

import pytest
from django.conf import settings
from django.core import mail
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from ingestion.models import Harness, LanguageModel
from leaderboard.alerts.selectors import snapshot_alerts
from leaderboard.alerts.services import follow_set
from leaderboard.methodology.stats import wilson_interval
from leaderboard.models import AlertDelivery, BoardSnapshot, EntryHistory, Follow
from leaderboard.recompute.services import boards_recompute_pending
from leaderboard.web.alert_mail import AlertsNotSent, alerts_send
from tests.accounts.mailbox import last_email_to, link_in
from tests.builders import board_tasks_only, outcomes, submit
from tests.conftest import make_user
from tests.leaderboard.alerts import refusing_mail
from tests.leaderboard.history_builders import FIRST_SNAPSHOT, entry_chain, signal_chain
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.django_db

FAN = "fan@example.org"
SECOND = "second@example.org"
REFUSING = "tests.leaderboard.alerts.refusing_mail.EmailBackend"
SMTP = "django.core.mail.backends.smtp.EmailBackend"


@pytest.fixture
def unused_port() -> int:
    """A local port nothing listens on: a mail server that is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def fan(db):
    return make_user("fan", email=FAN)


@pytest.fixture
def bystander(db):
    return make_user("bystander", email="bystander@example.org")


def agent() -> tuple[Harness, LanguageModel]:
    return Harness.objects.get(name="H", version="1.0.0"), LanguageModel.objects.get(name="m")


def follow_agent(user) -> None:
    harness, model = agent()
    follow_set(user=user, harness=harness, model=model, follow=True)


@pytest.fixture
def moved(registry, submitter, fan, bystander):
    """The fan follows H 1.0.0 · m; its pass rate then leaves its interval (1 in 10,
    then 21 in 30). Returns the snapshot of the move."""
    submit(submitter, outcomes("pass", *["fail"] * 9))
    boards_recompute_pending()
    follow_agent(fan)
    submit(submitter, outcomes(*["pass"] * 20, prefix="b"))
    return boards_recompute_pending()


def test_a_follower_gets_one_message_listing_the_move(moved):
    assert alerts_send(moved.pk) == f"sent 1 alert e-mails for snapshot {moved.pk}"
    message = last_email_to(FAN)
    # One move per board the agent is on (Overall and its suite's boards).
    moves = AlertDelivery.objects.get(snapshot_id=moved.pk).moves
    assert moves == message.body.count("past its interval,") + message.body.count(
        "past its interval\n"
    )
    assert message.subject == f"[Arena] {moves} moves past their intervals"
    assert "H 1.0.0 · m, on Overall:" in message.body
    assert "- Pass rate 10.0% [" in message.body and "past its interval" in message.body
    assert f"{settings.ARENA_SITE_URL}/agents/H/1.0.0/m/" in message.body
    assert "Why the boards were recomputed: New submission" in message.body


def test_two_deliveries_of_the_task_for_one_snapshot_send_one_message(moved):
    alerts_send(moved.pk)
    alerts_send(moved.pk)
    assert [m.to for m in mail.outbox] == [[FAN]]
    assert AlertDelivery.objects.filter(snapshot_id=moved.pk).count() == 1


@pytest.fixture
def second_fan(moved):
    """Another follower of the agent that moved (after the fan: sent to second)."""
    fan = make_user("second", email=SECOND)
    follow_agent(fan)
    return fan


def test_a_refused_message_leaves_the_others_sent_and_is_sent_by_the_retry(moved, fan, second_fan):
    refusing_mail.REFUSED.add(FAN)
    try:
        with override_settings(EMAIL_BACKEND=REFUSING), pytest.raises(AlertsNotSent):
            alerts_send(moved.pk)  # Celery retries the task on AlertsNotSent
    finally:
        refusing_mail.REFUSED.discard(FAN)
    assert [m.to for m in mail.outbox] == [[SECOND]]
    assert list(AlertDelivery.objects.values_list("user_id", flat=True)) == [second_fan.pk]
    alerts_send(moved.pk)  # the retry, the server taking mail again
    assert [m.to for m in mail.outbox] == [[SECOND], [FAN]]
    alerts_send(moved.pk)
    assert len(mail.outbox) == 2


def test_a_mail_server_that_is_down_records_no_delivery(moved, fan, second_fan, unused_port):
    down = {"EMAIL_BACKEND": SMTP, "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": unused_port}
    with override_settings(**down), pytest.raises(AlertsNotSent, match="2 alert e-mails"):
        alerts_send(moved.pk)
    assert not AlertDelivery.objects.exists()
    alerts_send(moved.pk)
    assert sorted(m.to[0] for m in mail.outbox) == [FAN, SECOND]


def test_the_task_is_retried_when_a_message_was_not_sent():
    assert AlertsNotSent in alerts_send.autoretry_for
    assert alerts_send.max_retries and alerts_send.acks_late


def test_nothing_goes_to_an_account_that_did_not_opt_in(moved):
    alerts_send(moved.pk)
    assert not [m for m in mail.outbox if "bystander@example.org" in m.to]


def test_no_message_when_nothing_moved_past_its_interval(registry, submitter, fan):
    submit(submitter, outcomes("pass", "fail", "pass", "fail"))
    boards_recompute_pending()
    follow_agent(fan)
    submit(submitter, outcomes("pass", prefix="b"))  # 3 of 5: inside the interval of 2 of 4
    snapshot = boards_recompute_pending()
    alerts_send(snapshot.pk)
    assert mail.outbox == []


def test_the_alert_is_queued_when_the_swap_commits(
    registry, submitter, fan, django_capture_on_commit_callbacks
):
    submit(submitter, outcomes("pass", *["fail"] * 9))
    boards_recompute_pending()
    follow_agent(fan)
    submit(submitter, outcomes(*["pass"] * 20, prefix="b"))
    with django_capture_on_commit_callbacks(execute=True):
        boards_recompute_pending()
    assert [m.to for m in mail.outbox] == [[FAN]]


def test_the_unsubscribe_link_works_without_logging_in(client, moved, fan):
    alerts_send(moved.pk)
    message = last_email_to(FAN)
    path = link_in(message, "/alerts/unsubscribe/")
    assert message.extra_headers["List-Unsubscribe"].endswith(f"{path}>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    page = client.get(path)  # not logged in; a GET changes nothing
    assert page.status_code == 200 and b"Stop all alert e-mails" in page.content
    assert Follow.objects.filter(user=fan).exists()
    done = client.post(path)
    assert done.status_code == 200 and b"no more alert e-mails" in done.content
    assert not Follow.objects.filter(user=fan).exists()


def test_an_altered_unsubscribe_token_is_refused(client, moved, fan):
    alerts_send(moved.pk)
    path = link_in(last_email_to(FAN), "/alerts/unsubscribe/")
    response = client.post(path.rstrip("/") + "x/")
    assert response.status_code == 400
    assert Follow.objects.filter(user=fan).exists()


def test_a_follower_of_a_signal_model_hears_of_its_moves(registry, staff, fan):
    ingest_sessions(staff, [session(f"a{i}", confirmation="yes") for i in range(3)])
    boards_recompute_pending()
    follow_set(
        user=fan, harness=None, model=LanguageModel.objects.get(name="tiny-model"), follow=True
    )
    ingest_sessions(staff, [session(f"b{i}", confirmation="no") for i in range(9)])
    snapshot = boards_recompute_pending()
    alerts_send(snapshot.pk)
    body = last_email_to(FAN).body
    assert "tiny-model, on the signal boards:" in body
    assert "- Confirmed success 100.0% [" in body and "past its interval" in body


def test_one_message_batches_every_followed_item(registry, submitter, staff, fan):
    submit(submitter, outcomes("pass", *["fail"] * 9))
    ingest_sessions(staff, [session(f"a{i}", confirmation="yes") for i in range(3)])
    boards_recompute_pending()
    follow_agent(fan)
    follow_set(
        user=fan, harness=None, model=LanguageModel.objects.get(name="tiny-model"), follow=True
    )
    submit(submitter, outcomes(*["pass"] * 20, prefix="b"))
    ingest_sessions(staff, [session(f"b{i}", confirmation="no") for i in range(9)])
    snapshot = boards_recompute_pending()
    alerts_send(snapshot.pk)
    (message,) = mail.outbox
    assert "H 1.0.0 · m, on Overall:" in message.body
    assert "tiny-model, on the signal boards:" in message.body


def overtake(submitter, fan, capture, *, passes: int, fails: int = 0) -> BoardSnapshot:
    """The fan follows H 1.0.0 · m, alone on the boards with 7 passes in 10 (rank range
    [1, 1]); then J 1.0.0 · m arrives with these outcomes, and the recompute's swap
    commits (queueing the alerts). H gets no new runs: only its rank can move."""
    board_tasks_only("regex-log")  # complete entries are ranked (methodology §2.6)
    submit(submitter, outcomes(*["pass"] * 7, *["fail"] * 3))
    boards_recompute_pending()
    follow_agent(fan)
    runs = outcomes(*["pass"] * passes, *["fail"] * fails, prefix="j")
    submit(submitter, runs, harness="J")
    with capture(execute=True):
        return boards_recompute_pending()


def test_a_follower_hears_of_a_rank_range_that_stopped_overlapping(
    registry, submitter, fan, django_capture_on_commit_callbacks
):
    # J's low, 50 / (50 + 1.96²) ≈ 0.929, lies above H's high, ≈ 0.892: H ranks [2, 2].
    assert wilson_interval(50, 50)[0] > wilson_interval(7, 10)[1]
    snapshot = overtake(submitter, fan, django_capture_on_commit_callbacks, passes=50)
    (message,) = mail.outbox
    assert message.to == [FAN]
    body = message.body
    assert "H 1.0.0 · m, on Overall:\n  - Rank #1 → #2, past its interval\n" in body
    assert "Pass rate" not in body
    # One rank move per board H is on (Overall, its suite's and its categories').
    moves = AlertDelivery.objects.get(snapshot_id=snapshot.pk, user=fan).moves
    assert moves == body.count("- Rank #1 → #2, past its interval") > 1
    assert message.subject == f"[Arena] {moves} moves past their intervals"
    alerts_send(snapshot.pk)  # a second delivery of the task sends nothing
    assert len(mail.outbox) == 1


def test_a_rank_change_within_overlapping_ranges_sends_nothing(
    registry, submitter, fan, django_capture_on_commit_callbacks
):
    # J, 8 in 10 ([49.0%, 94.3%]), ranks above H by its low end, but the two intervals
    # overlap: H's rank goes 1 → 2 with range [1, 2], which still holds rank 1.
    j_low, _ = wilson_interval(8, 10)
    h_low, h_high = wilson_interval(7, 10)
    assert h_low < j_low <= h_high
    snapshot = overtake(submitter, fan, django_capture_on_commit_callbacks, passes=8, fails=2)
    row = EntryHistory.objects.get(snapshot_id=snapshot.pk, board_slug="overall", harness_name="H")
    assert (row.previous.rank, row.rank, row.rank_best, row.rank_worst) == (1, 2, 1, 2)
    assert mail.outbox == []


def run_queries(run) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        run()
    return [query["sql"] for query in captured.captured_queries]


def test_the_alert_queries_do_not_grow_with_the_followed_items(db):
    """Up to 30 accounts each follow an agent and a signal model, every one of which
    moves past its interval in each recompute: more of them adds no query to finding
    what moved, and a fixed few per account to sending (its delivery row)."""
    model = LanguageModel.objects.create(name="m")
    signal_chain(model="m", snapshots=4)
    fans = []
    for i in range(30):
        harness = Harness.objects.create(name=f"A{i}", version="1.0.0")
        entry_chain(board="overall", harness_id=harness.pk, model_id=model.pk, name=f"A{i}",
                    snapshots=4)  # fmt: skip
        fans.append((make_user(f"fan{i}", email=f"fan{i}@example.org"), harness))
    first, second, third = (FIRST_SNAPSHOT + i for i in (1, 2, 3))

    def following(count: int) -> None:
        Follow.objects.all().delete()
        for user, harness in fans[:count]:
            follow_set(user=user, harness=harness, model=model, follow=True)
            follow_set(user=user, harness=None, model=model, follow=True)

    following(30)
    selected = run_queries(lambda: snapshot_alerts(first))
    assert len(snapshot_alerts(first).accounts) == 30
    following(2)
    assert len(run_queries(lambda: snapshot_alerts(first))) == len(selected)

    two = len(run_queries(lambda: alerts_send(second)))
    following(1)
    one = len(run_queries(lambda: alerts_send(third)))
    per_account = two - one
    following(30)
    sent = run_queries(lambda: alerts_send(first))
    assert len(sent) == one + 29 * per_account
    assert len(mail.outbox) == 2 + 1 + 30
    # Per account, only its delivery row (in a savepoint): no follow, harness or model.
    per_account_sql = sent[one - per_account :]
    assert all("alertdelivery" in sql or "SAVEPOINT" in sql for sql in per_account_sql)
