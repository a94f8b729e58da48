"""The agents of the current snapshot, searched by harness, model and contributor.

Matching is PostgreSQL trigram word similarity (pg_trgm, migration 0021): a typo
("opnharness") or a prefix ("quil") still finds the name, case does not matter, and the
best matches come first. The rows are the current snapshot's board entries grouped into
agents, each with its best figures over its boards: one query for a page, one to count.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.postgres.search import TrigramWordSimilarity
from django.core.paginator import Page, Paginator
from django.db.models import Count, F, FloatField, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Concat, Greatest

from ingestion.models import Harness
from leaderboard.models import BoardEntry

MAX_QUERY_LENGTH = 100
PAGE_SIZE = 50
# Word similarity at or above this is a match: 0.3 keeps one typo in a short name
# ("opnharness" ~ "OpenHarness") and leaves unrelated names out.
SIMILARITY_FLOOR = 0.3


@dataclass(frozen=True)
class AgentQuery:
    """What a visitor asked of /agents/, made canonical: one cache entry per meaning."""

    q: str = ""
    page: int = 1

    @classmethod
    def from_query(cls, query) -> AgentQuery:
        q = " ".join(query.get("q", "").split())[:MAX_QUERY_LENGTH]
        page = query.get("page", "")
        return cls(q=q, page=int(page) if page.isdigit() and 0 < int(page) < 10**6 else 1)

    def pairs(self, page: int | None = None) -> list[tuple[str, str]]:
        page = self.page if page is None else page
        pairs = [("q", self.q)] if self.q else []
        return pairs + ([("page", str(page))] if page > 1 else [])


def agent_search(q: str) -> QuerySet:
    """Agents (harness row x model) on the current snapshot's boards, matching `q`.

    Each row: harness_name, harness_version, model_name, independent_by (a username or
    None), best_pass_rate, best_rank, board_count, score. An empty `q` lists them all.
    """
    rows = (
        BoardEntry.objects.filter(board__snapshot__is_current=True)
        .values(
            "harness_name",
            "harness_version",
            "model_name",
            independent_by=F("harness__independent_by__username"),
        )
        .annotate(
            best_pass_rate=Max("pass_rate"),
            best_rank=Min("rank"),
            board_count=Count("board", distinct=True),
        )
    )
    if not q:
        return rows.order_by("harness_name", "harness_version", "model_name", "independent_by")
    agent_text = Concat("harness_name", Value(" "), "harness_version", Value(" "), "model_name")
    score = Greatest(
        TrigramWordSimilarity(Value(q), agent_text),
        Coalesce(Subquery(_contributor_score(q)), Value(0.0), output_field=FloatField()),
    )
    return (
        rows.annotate(score=score)
        .filter(
            Q(score__gte=SIMILARITY_FLOOR)
            | Q(harness_name__icontains=q)
            | Q(model_name__icontains=q)
        )
        .order_by("-score", "harness_name", "harness_version", "model_name", "independent_by")
    )


def _contributor_score(q: str) -> QuerySet:
    """The best similarity of `q` to a contributor of the entry's harness version.

    Contributors live on the maintainers' harness row; an independent run's row keeps
    none and reads them there (same name and version), as the conflict rule does.
    """
    people = Harness.contributors.through.objects.filter(
        harness__name=OuterRef("harness_name"),
        harness__version=OuterRef("harness_version"),
        harness__independent_by__isnull=True,
    )
    similarity = Greatest(
        TrigramWordSimilarity(Value(q), "person__handle"),
        TrigramWordSimilarity(Value(q), "person__display_name"),
    )
    return people.annotate(similarity=similarity).order_by("-similarity").values("similarity")[:1]


def agent_page(query: AgentQuery) -> Page:
    """The asked page of results; a page past the end shows the last one."""
    return Paginator(agent_search(query.q), PAGE_SIZE).get_page(query.page)
