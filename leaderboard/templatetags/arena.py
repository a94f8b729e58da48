"""Template filters of Arena pages (`{% load arena %}`).

The formats themselves live beside what they format: figures in leaderboard.presentation.figures,
board entries in leaderboard.presentation.board, signal figures in
leaderboard.presentation.signals. This library only registers them under their filter
names, plus the few filters that need Django itself (relative times, URLs).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import template
from django.utils import timezone

from leaderboard.presentation import board as board_formatting
from leaderboard.presentation import figures as formatting
from leaderboard.presentation import provenance as provenance_formatting
from leaderboard.presentation import signals as signal_formatting
from leaderboard.presentation import stability as stability_formatting
from leaderboard.presentation import traces as trace_formatting
from leaderboard.web.links import agent_url_for
from leaderboard.web.signals.tables import row_links

register = template.Library()

for _filter in (
    formatting.percent,
    formatting.money,
    formatting.compact,
    formatting.ratio,
    formatting.milliseconds,
    formatting.seconds,
    board_formatting.rank_label,
    board_formatting.interval_bar,
    board_formatting.interval_text,
    board_formatting.n_breakdown,
    board_formatting.cost_reason,
    board_formatting.reported_cost_reason,
    board_formatting.cost_disagreement_note,
    board_formatting.who_and_when,
    board_formatting.after_cutoff_text,
    board_formatting.unranked_reason,
    board_formatting.unranked_anchor,
    board_formatting.coverage_text,
    board_formatting.run_config_text,
    board_formatting.pass_k_headline,
    board_formatting.pass_k_at,
    board_formatting.pass_k_range,
    board_formatting.run_configs_differ,
    board_formatting.run_configs_title,
    board_formatting.is_verified,
    board_formatting.pass_k_top,
    board_formatting.pass_k_tooltip,
    signal_formatting.signal_cell,
    provenance_formatting.provenance_view,
    stability_formatting.stability_text,
    signal_formatting.p_value,
    signal_formatting.points,
    trace_formatting.board_trajectory_cells,
    trace_formatting.violations_text,
    trace_formatting.violations_total,
    trace_formatting.figure_rows,
    trace_formatting.arguments_brief,
    trace_formatting.figure_pairs,
):
    register.filter(_filter.__name__, _filter)

register.filter("pass_k_list", board_formatting.pass_k_rows)
register.simple_tag(trace_formatting.board_trajectory_labels, name="trajectory_labels")


@register.filter
def rules_broken_at(trace: Any, position: int) -> list[dict]:
    """The rules the run's call at `position` broke (a RunTraceView, or None)."""
    return trace.broken.get(position, []) if trace is not None else []


register.filter("rule_counts", trace_formatting.rule_counts)


@register.filter
def ago(moment: dt.datetime | None) -> str:
    """'just now', '3 min ago', '5 h ago', '2 days ago'."""
    if moment is None:
        return "never"
    elapsed = max((timezone.now() - moment).total_seconds(), 0)
    if elapsed < 60:
        return "just now"
    if elapsed < 3600:
        return f"{int(elapsed // 60)} min ago"
    if elapsed < 86400:
        return f"{int(elapsed // 3600)} h ago"
    days = int(elapsed // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


@register.filter
def agent_url(entry: Any) -> str | None:
    by = entry.harness.independent_by if entry.harness.independent_by_id else None
    return agent_url_for(
        entry.harness_name, entry.harness_version, entry.model_name, by and by.username
    )


@register.filter
def agent_row_url(row: dict) -> str | None:
    """The agent page of an /agents/ result row (leaderboard.boards.agent_search)."""
    return agent_url_for(
        row["harness_name"], row["harness_version"], row["model_name"], row["independent_by"]
    )


@register.filter
def agent_page(harness: Any, model: Any) -> str | None:
    """The page of a harness row (the maintainers' or an independent run's) with a model."""
    by = harness.independent_by if harness.independent_by_id else None
    return agent_url_for(harness.name, harness.version, model.name, by and by.username)


@register.filter
def http_url(url: str | None) -> str:
    """The URL when it is http(s), else "": a bundle's URL never becomes a javascript: link."""
    if url and url.lower().startswith(("https://", "http://")):
        return url
    return ""


@register.simple_tag
def signal_row_links(
    entry: Any, leader: str | None, runner_up: str | None, compare_url: str | None
):
    """A composite signal row's compare and release links (web.signals.tables.row_links)."""
    return row_links(entry, leader=leader, runner_up=runner_up, compare_url=compare_url)


@register.simple_tag
def signal_follow(entry: Any, follows: dict | None) -> dict | None:
    """A signal model row's follow button (leaderboard.web.follows), for a signed-in
    visitor; None for others and for models no follow address names."""
    url = (follows or {}).get("urls", {}).get(entry.model_name)
    if url is None:
        return None
    return {
        "url": url,
        "following": entry.model_name in follows["following"],
        "key": f"signals-{url.rstrip('/').rsplit('/', 1)[-1]}",
        "next": follows["next"],
    }
