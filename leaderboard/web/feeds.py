"""Atom feeds of published changes (Django's syndication framework, Atom1Feed).

* `/feeds/boards/<slug>/`: one entry per recompute that changed the board: every
  entry it moved (rank, pass rate and interval), and why (the snapshot's causes).
* `/feeds/agents/<harness>/<version>/<model>/` (and `/feeds/independent/<account>/…`):
  one entry per change of the agent on one board.
* `/feeds/signals/`: one entry per recompute that changed the signal boards' model view.
* `/feeds/signals/models/<model>/`: one entry per change of that model's signal figures.

Each change says when a figure moved past its previous 95% interval (or a rank range
stopped overlapping), the rule of the alert e-mails (leaderboard.methodology.moves).
Entries are read from history, which outlives snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import Http404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import format_html, format_html_join

from leaderboard.boards import selectors as board_selectors
from leaderboard.history import selectors as history
from leaderboard.history import signal_selectors
from leaderboard.history.moves import entry_changes, signal_changes
from leaderboard.history.selectors import Cause
from leaderboard.models import SignalHistory
from leaderboard.presentation.moves import change_text
from leaderboard.web.links import agent_url_for

# Entries of an agent's feed (its latest changes, every board).
AGENT_ENTRIES = 50


@dataclass(frozen=True)
class BoardItem:
    slug: str
    snapshot: history.SnapshotChanges


@dataclass(frozen=True)
class AgentItem:
    url: str
    point: history.HistoryPoint


class ChangesFeed(Feed):
    feed_type = Atom1Feed
    author_name = "Arena"

    def item_pubdate(self, item: Any):
        return self.item_time(item)

    def item_updateddate(self, item: Any):
        return self.item_time(item)

    def item_time(self, item: Any):
        raise NotImplementedError


def _causes_html(causes: list[Cause]) -> str:
    if not causes:
        return format_html("<p>Why: {}.</p>", "no cause recorded (a full recompute)")
    listed = format_html_join(
        ", ", "{}{}", ((c.kind_label, f": {c.label}" if c.label else "") for c in causes)
    )
    return format_html("<p>Why: {}.</p>", listed)


def _changes_html(lines: list[tuple[str, list[str]]]) -> str:
    """(who, [change texts]) as a list, escaped."""
    return format_html(
        "<ul>{}</ul>",
        format_html_join(
            "", "<li>{}: {}</li>", ((who, "; ".join(texts) or "changed") for who, texts in lines)
        ),
    )


def _causes_title(causes: list[Cause]) -> str:
    return ", ".join(c.kind_label for c in causes) or "a full recompute"


class BoardChangesFeed(ChangesFeed):
    """The last recomputes that changed a board (its change log's first page)."""

    def get_object(self, request, slug: str) -> history.ChangeLog:
        title = history.board_title(slug)
        if title is None:
            raise Http404(f"no board {slug!r}")
        return history.board_change_log(slug=slug, title=title)

    def title(self, log: history.ChangeLog) -> str:
        return f"Arena · changes to {log.title}"

    def subtitle(self, log: history.ChangeLog) -> str:
        return "Every recompute that changed an entry of this board: what moved, and why."

    def link(self, log: history.ChangeLog) -> str:
        return reverse("board-changes", args=[log.slug])

    def items(self, log: history.ChangeLog) -> list[BoardItem]:
        # Feed instances serve every request: each item carries what its link needs.
        return [BoardItem(log.slug, snapshot) for snapshot in log.snapshots]

    def item_title(self, item: BoardItem) -> str:
        count = item.snapshot.changed_total
        causes = _causes_title(item.snapshot.causes)
        return f"{count} entr{'y' if count == 1 else 'ies'} changed ({causes})"

    def item_description(self, item: BoardItem) -> str:
        snapshot = item.snapshot
        lines = [(_agent_name(c.row), _texts(entry_changes(c.row))) for c in snapshot.changes]
        omitted = snapshot.changes_omitted
        more = format_html("<p>…and {} more.</p>", omitted) if omitted else ""
        return _changes_html(lines) + more + _causes_html(snapshot.causes)

    def item_link(self, item: BoardItem) -> str:
        anchor = f"#snapshot-{item.snapshot.snapshot_id}"
        return reverse("board-changes", args=[item.slug]) + anchor

    def item_time(self, item: BoardItem):
        return item.snapshot.computed_at


class AgentChangesFeed(ChangesFeed):
    """An agent's changes on every board, newest first."""

    def get_object(
        self, request, harness: str, version: str, model: str, account: str | None = None
    ) -> dict[str, Any]:
        found = board_selectors.find_agent(harness, version, model, independent_by=account)
        if found is None:
            raise Http404("no such agent")
        return {
            "name": f"{harness} {version} · {model}",
            "url": agent_url_for(harness, version, model, account),
            "history": history.agent_history(
                harness_id=found[0].pk, model_id=found[1].pk, limit=AGENT_ENTRIES
            ),
        }

    def title(self, agent: dict[str, Any]) -> str:
        return f"Arena · {agent['name']}"

    def subtitle(self, agent: dict[str, Any]) -> str:
        return "This agent's entries as they changed on every board, and why."

    def link(self, agent: dict[str, Any]) -> str:
        return f"{agent['url']}#history"

    def items(self, agent: dict[str, Any]) -> list[AgentItem]:
        return [AgentItem(agent["url"], point) for point in agent["history"].points]

    def item_title(self, item: AgentItem) -> str:
        point = item.point
        if point.row.removed:
            return f"{point.board_title}: left the board"
        return f"{point.board_title}: " + ("; ".join(_texts(entry_changes(point.row))) or "changed")

    def item_description(self, item: AgentItem) -> str:
        texts = _texts(entry_changes(item.point.row)) or ["n or another figure changed"]
        listed = format_html_join("", "<li>{}</li>", ((t,) for t in texts))
        return format_html("<ul>{}</ul>", listed) + _causes_html(item.point.causes)

    def item_link(self, item: AgentItem) -> str:
        row = item.point.row
        return reverse("board-changes", args=[row.board_slug]) + f"#snapshot-{row.snapshot_id}"

    def item_guid(self, item: AgentItem) -> str:
        return f"{item.url}#change-{item.point.row.pk}"

    item_guid_is_permalink = False

    def item_time(self, item: AgentItem):
        return item.point.row.valid_from


class SignalChangesFeed(ChangesFeed):
    """The last recomputes that changed the signal boards (the model view)."""

    title = "Arena · changes to the signal boards"
    subtitle = "Every recompute that changed a model's signal figures: what moved, and why."

    def link(self) -> str:
        return reverse("signals")

    def items(self) -> list[signal_selectors.SignalSnapshotChanges]:
        return signal_selectors.signal_change_log()

    def item_title(self, item: signal_selectors.SignalSnapshotChanges) -> str:
        count = item.changed_total
        return f"{count} model{'' if count == 1 else 's'} changed ({_causes_title(item.causes)})"

    def item_description(self, item: signal_selectors.SignalSnapshotChanges) -> str:
        lines = [(row.model_name, _signal_texts(row)) for row in item.rows]
        more = item.changed_total - len(item.rows)
        tail = format_html("<p>…and {} more.</p>", more) if more else ""
        return _changes_html(lines) + tail + _causes_html(item.causes)

    def item_link(self, item: signal_selectors.SignalSnapshotChanges) -> str:
        return reverse("signals")

    def item_guid(self, item: signal_selectors.SignalSnapshotChanges) -> str:
        return f"{reverse('signals')}#snapshot-{item.snapshot_id}"

    item_guid_is_permalink = False

    def item_time(self, item: signal_selectors.SignalSnapshotChanges):
        return item.computed_at


class SignalModelFeed(ChangesFeed):
    """One model's signal figures as they changed."""

    def get_object(self, request, model: str) -> dict[str, Any]:
        if not SignalHistory.objects.filter(model_name=model).exists():
            raise Http404("no signal history for this model")
        return {"model": model, "points": signal_selectors.model_signal_history(model_name=model)}

    def title(self, found: dict[str, Any]) -> str:
        return f"Arena · {found['model']} on the signal boards"

    def subtitle(self, found: dict[str, Any]) -> str:
        return "This model's signal figures as they changed, and why."

    def link(self, found: dict[str, Any]) -> str:
        return reverse("signals")

    def items(self, found: dict[str, Any]) -> list[signal_selectors.SignalPoint]:
        return found["points"]

    def item_title(self, point: signal_selectors.SignalPoint) -> str:
        if point.row.removed:
            return f"{point.row.model_name}: left the signal boards"
        return f"{point.row.model_name}: " + _headline(_signal_texts(point.row))

    def item_description(self, point: signal_selectors.SignalPoint) -> str:
        texts = _signal_texts(point.row) or ["sessions or another figure changed"]
        listed = format_html_join("", "<li>{}</li>", ((t,) for t in texts))
        return format_html("<ul>{}</ul>", listed) + _causes_html(point.causes)

    def item_link(self, point: signal_selectors.SignalPoint) -> str:
        return reverse("signals")

    def item_guid(self, point: signal_selectors.SignalPoint) -> str:
        return reverse("signal-model-feed", args=[point.row.model_name]) + f"#change-{point.row.pk}"

    item_guid_is_permalink = False

    def item_time(self, point: signal_selectors.SignalPoint):
        return point.row.valid_from


def _agent_name(row: Any) -> str:
    return f"{row.harness_name} {row.harness_version} · {row.model_name}"


def _texts(changes: list) -> list[str]:
    return [change_text(change) for change in changes]


def _signal_texts(row: SignalHistory) -> list[str]:
    return _texts(signal_changes(row))


def _headline(texts: list[str]) -> str:
    """The first change (the NIR comes first) and how many more."""
    if not texts:
        return "changed"
    return texts[0] + (f" and {len(texts) - 1} more" if len(texts) > 1 else "")
