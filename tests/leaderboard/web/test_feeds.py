"""The Atom feeds of published changes, read as a feed reader reads them (parsed XML),
after real recomputes: a board's, an agent's, the signal boards' and a model's."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ingestion.models import Harness, LanguageModel
from ingestion.services.intake import submission_ingest
from leaderboard.history.selectors import SNAPSHOTS_PER_PAGE
from leaderboard.history.signal_selectors import MODEL_ROWS, SNAPSHOTS_LISTED
from leaderboard.methodology.stats import wilson_interval
from leaderboard.presentation.figures import percent
from leaderboard.recompute.services import boards_recompute_pending
from leaderboard.web.feeds import AGENT_ENTRIES
from tests.builders import board_tasks_only, harness_manifest, outcomes, submit, tar_gz_bundle
from tests.leaderboard.history_builders import causes, entry_chain, signal_chain
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.django_db

ATOM = {"a": "http://www.w3.org/2005/Atom"}


def feed(client, url: str) -> ET.Element:
    response = client.get(url)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/atom+xml")
    return ET.fromstring(response.content)


def interval(passes: int, n: int) -> str:
    """ "10.0% [1.8%–40.4%]": a share with its Wilson interval, as the feeds write it."""
    low, high = wilson_interval(passes, n)
    return f"{percent(passes / n)} [{percent(low)}–{percent(high)}]"


def entries(root: ET.Element) -> list[dict[str, str]]:
    return [
        {
            "title": entry.findtext("a:title", namespaces=ATOM),
            "summary": entry.findtext("a:summary", namespaces=ATOM),
            "id": entry.findtext("a:id", namespaces=ATOM),
            "link": entry.find("a:link", ATOM).get("href"),
        }
        for entry in root.findall("a:entry", ATOM)
    ]


@pytest.fixture
def two_recomputes(registry, submitter):
    """1 pass in 10, then 20 more passes: 21 of 30 lies past the first interval."""
    first = submit(submitter, outcomes("pass", *["fail"] * 9))
    boards_recompute_pending()
    second = submit(submitter, outcomes(*["pass"] * 20, prefix="b"))
    boards_recompute_pending()
    return first, second


def test_a_boards_feed_has_an_entry_per_recompute_that_changed_it(client, two_recomputes):
    low, high = wilson_interval(1, 10)
    assert not low <= 21 / 30 <= high
    root = feed(client, "/feeds/boards/overall/")
    assert root.findtext("a:title", namespaces=ATOM) == "Arena · changes to Overall"
    newest, oldest = entries(root)
    assert newest["title"] == "1 entry changed (New submission)"
    change = f"H 1.0.0 · m: Pass rate {interval(1, 10)} → {interval(21, 30)}, past its interval"
    assert change in newest["summary"]
    assert "Why: New submission" in newest["summary"]
    assert "(new)" in oldest["summary"] and "past its interval" not in oldest["summary"]
    assert newest["link"].startswith("http://testserver/boards/overall/changes/#snapshot-")
    assert newest["id"] != oldest["id"]


def test_an_agents_feed_lists_its_changes_on_every_board(client, two_recomputes):
    root = feed(client, reverse("agent-feed", args=["H", "1.0.0", "m"]))
    titles = [e["title"] for e in entries(root)]
    assert f"Overall: Pass rate {interval(1, 10)} → {interval(21, 30)}, past its interval" in titles
    assert len({e["id"] for e in entries(root)}) == len(titles)


def test_the_signal_feeds_list_a_models_changes(client, registry, staff):
    ingest_sessions(staff, [session(f"a{i}", confirmation="yes") for i in range(3)])
    boards_recompute_pending()
    ingest_sessions(staff, [session(f"b{i}", confirmation="no") for i in range(9)])
    boards_recompute_pending()
    newest, _ = entries(feed(client, "/feeds/signals/"))
    assert newest["title"].startswith("1 model changed")
    assert "tiny-model: " in newest["summary"]
    # 3 of 3 confirmed, then 3 of 12: past the first interval.
    low, _ = wilson_interval(3, 3)
    assert low > 3 / 12
    model_entries = entries(feed(client, reverse("signal-model-feed", args=["tiny-model"])))
    change = f"Confirmed success {interval(3, 3)} → {interval(3, 12)}, past its interval"
    assert change in model_entries[0]["summary"]


def test_unknown_boards_agents_and_models_have_no_feed(client, db):
    assert client.get("/feeds/boards/no-such/").status_code == 404
    assert client.get(reverse("agent-feed", args=["No", "1", "m"])).status_code == 404
    assert client.get(reverse("signal-model-feed", args=["no-model"])).status_code == 404


def test_names_are_escaped_in_the_feed(client, registry, submitter):
    submit(submitter, outcomes("pass"), harness="<b>H</b>")
    boards_recompute_pending()
    response = client.get("/feeds/boards/overall/")
    assert b"<b>H</b>" not in response.content  # escaped twice: XML around HTML
    ((entry),) = entries(ET.fromstring(response.content))
    assert "&lt;b&gt;H&lt;/b&gt;" in entry["summary"]


def test_the_pages_link_their_feeds(client, two_recomputes):
    changes = client.get("/boards/overall/changes/").content.decode()
    assert '<link rel="alternate" type="application/atom+xml"' in changes
    assert 'href="/feeds/boards/overall/"' in changes
    agent = client.get(reverse("agent", args=["H", "1.0.0", "m"])).content.decode()
    assert 'type="application/atom+xml"' in agent and 'href="/feeds/agents/H/1.0.0/m/"' in agent
    signals = client.get("/signals/").content.decode()
    assert 'href="/feeds/signals/"' in signals


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        feed(client, url)
    return len(captured)


def test_a_feeds_queries_do_not_grow_with_its_entries(client, two_recomputes):
    harness = Harness.objects.get(name="H")
    model = LanguageModel.objects.get(name="m")
    agent = reverse("agent-feed", args=["H", "1.0.0", "m"])
    few = {url: queries(client, url) for url in ("/feeds/boards/overall/", agent)}
    # A few dozen agents changing over a few dozen recomputes, with their causes.
    for i in range(30):
        entry_chain(board="overall", harness_id=10_000 + i, model_id=model.pk, name=f"A{i}",
                    snapshots=24)  # fmt: skip
    for board in ("overall", "other-board"):
        entry_chain(board=board, harness_id=harness.pk, model_id=model.pk, name="H",
                    snapshots=30)  # fmt: skip
    causes(30)
    many = {url: queries(client, url) for url in few}
    assert len(entries(feed(client, agent))) == AGENT_ENTRIES
    assert len(entries(feed(client, "/feeds/boards/overall/"))) == SNAPSHOTS_PER_PAGE
    assert many == few


def test_the_signal_feeds_queries_do_not_grow_with_their_entries(client, db):
    signal_chain(model="first", snapshots=2)
    urls = ("/feeds/signals/", reverse("signal-model-feed", args=["first"]))
    few = {url: queries(client, url) for url in urls}
    for i in range(30):
        signal_chain(model=f"model-{i}", snapshots=24)
    signal_chain(model="first", snapshots=60)
    causes(60)
    many = {url: queries(client, url) for url in urls}
    assert len(entries(feed(client, urls[0]))) == SNAPSHOTS_LISTED
    assert len(entries(feed(client, urls[1]))) == MODEL_ROWS
    assert many == few


@pytest.mark.filterwarnings("error::django.utils.deprecation.RemovedInDjango60Warning")
def test_an_entry_without_a_recorded_cause_says_so(client, db):
    signal_chain(model="first", snapshots=2)  # no cause recorded
    newest, _ = entries(feed(client, "/feeds/signals/"))
    assert "Why: no cause recorded (a full recompute)." in newest["summary"]


def test_an_agent_held_for_review_has_no_feed(client, registry, newcomer):
    bundle = tar_gz_bundle(harness_manifest("Held", "1.0.0"), outcomes("pass"))
    submission, _ = submission_ingest(upload=bundle, user=newcomer)
    assert submission.status == "pending_review"
    boards_recompute_pending()
    assert client.get(reverse("agent-feed", args=["Held", "1.0.0", "m"])).status_code == 404


@pytest.fixture
def overtaken(registry, submitter):
    """H 1.0.0 · m alone on the boards with 7 passes in 10, then J 1.0.0 · m arrives
    with 50 in 50: J's interval lies wholly above H's, so H's rank range goes from
    [1, 1] to [2, 2] while its own pass rate stays as it was."""
    board_tasks_only("regex-log")  # complete entries are ranked (methodology §2.6)
    submit(submitter, outcomes(*["pass"] * 7, *["fail"] * 3))
    boards_recompute_pending()
    submit(submitter, outcomes(*["pass"] * 50, prefix="j"), harness="J")
    boards_recompute_pending()


def test_a_rank_range_that_stops_overlapping_is_marked_in_the_feeds(client, overtaken):
    # By hand: J's low, 50 / (50 + 1.96²) ≈ 0.929, lies above H's high, ≈ 0.892.
    assert wilson_interval(50, 50)[0] > wilson_interval(7, 10)[1]
    newest, _ = entries(feed(client, "/feeds/boards/overall/"))
    assert newest["title"] == "2 entries changed (New submission)"
    # H's only change is its rank: its pass rate, with no new runs, did not move.
    assert "<li>H 1.0.0 · m: Rank #1 → #2, past its interval</li>" in newest["summary"]
    assert "J 1.0.0 · m: Rank #1 (new);" in newest["summary"]
    agent = entries(feed(client, reverse("agent-feed", args=["H", "1.0.0", "m"])))
    assert "Overall: Rank #1 → #2, past its interval" in [e["title"] for e in agent]
