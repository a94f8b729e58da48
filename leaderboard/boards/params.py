"""What a visitor asked of a benchmark board: the query string, parsed and made safe.

Filters, the unranked toggle, the column picker and the sort, with the canonical
query string of each (only what differs from the defaults). The selectors read it; the
board page (leaderboard.web.board) parses it from the request and links its headers.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import urlencode

from leaderboard import sorting
from leaderboard.boards import versions as board_versions
from leaderboard.methodology.stats import PASS_K_MAX
from leaderboard.sorting import valid_sort


class QueryDict(Protocol):
    """What is read of a query string (Django's QueryDict has it)."""

    def get(self, key: str, default: str = ...) -> str: ...

    def getlist(self, key: str) -> list[str]: ...

    def __contains__(self, key: object) -> bool: ...


@dataclass(frozen=True)
class SortKey:
    fields: tuple[str, ...]
    # The direction a first click sorts in: the better end first.
    descending_first: bool
    label: str


# Only these columns can be sorted; anything else in ?sort= is ignored.
SORT_KEYS: dict[str, SortKey] = {
    "rank": SortKey(("position",), False, "rank"),
    "agent": SortKey(("harness_name", "harness_version", "model_name"), False, "agent name"),
    "pass_rate": SortKey(("pass_rate",), True, "pass rate"),
    "wilson_low": SortKey(("wilson_low",), True, "lower end of the interval"),
    "wilson_high": SortKey(("wilson_high",), True, "upper end of the interval"),
    "n": SortKey(("n",), True, "n"),
    "cost_per_success": SortKey(("cost_per_success",), False, "cost per success"),
    "tokens_per_success": SortKey(("tokens_per_success",), False, "tokens per success"),
    "ttft_ms_p50": SortKey(("ttft_ms_p50",), False, "median time to first token"),
    "duration_s_p50": SortKey(("duration_s_p50",), False, "median duration"),
}

# Optional column groups of the column picker, in display order.
COLUMNS: dict[str, str] = {
    "cost": "Cost",
    "tokens": "Tokens",
    "passk": "pass^k",
    "latency": "Latency",
    "trajectory": "Trajectory",
    "horizon": "Time horizon",
}
DEFAULT_COLUMNS = frozenset({"cost", "tokens"})
MAX_FILTER_LENGTH = 100


@dataclass(frozen=True)
class BoardParams:
    """What a visitor asked of a board, parsed from the query string and made safe."""

    model: str = ""
    harness: str = ""
    show_unranked: bool = True
    # Only entries whose every run is Verified (?verified=1).
    verified_only: bool = False
    # Only complete entries (?complete=1): coverage of every task they can be counted on.
    complete_only: bool = False
    # Only entries not known to differ from their suites' standard configurations
    # (?standard=1); an unstated setting is not a difference (docs/decisions.md).
    standard_only: bool = False
    # Only entries whose model has open weights (?open_weights=1).
    open_weights_only: bool = False
    # Only entries whose model was released after this date (?released_after=YYYY-MM-DD).
    released_after: datetime.date | None = None
    sort: str = ""
    columns: frozenset[str] = DEFAULT_COLUMNS
    # "latest": each harness's highest version per model only (leaderboard.boards.versions).
    versions: str = board_versions.LATEST
    # The k of the pass^k column (?k=3); None: each entry's largest k over every task.
    k: int | None = None

    @classmethod
    def from_query(cls, query: QueryDict) -> BoardParams:
        columns = _columns(query)
        return cls(
            model=query.get("model", "").strip()[:MAX_FILTER_LENGTH],
            harness=query.get("harness", "").strip()[:MAX_FILTER_LENGTH],
            # The filter form sends "0" then, when ticked, "1": the last value wins.
            show_unranked=query.get("unranked", "1") != "0",
            verified_only=verified_only(query),
            complete_only=ticked(query, "complete"),
            standard_only=ticked(query, "standard"),
            open_weights_only=ticked(query, "open_weights"),
            released_after=date_given(query, "released_after"),
            sort=valid_sort(query.get("sort", ""), SORT_KEYS),
            columns=columns,
            versions=versions_shown(query),
            # Without the pass^k column a k changes nothing: dropped, so the URL and the
            # cache key stay canonical.
            k=pass_k_given(query) if "passk" in columns else None,
        )

    @property
    def latest_only(self) -> bool:
        return self.versions == board_versions.LATEST

    @property
    def sort_key(self) -> str:
        return sorting.sort_key(self.sort)

    def shows(self, column: str) -> bool:
        return column in self.columns

    def query_pairs(self) -> list[tuple[str, str]]:
        """Only what differs from the defaults, in a stable order: canonical URLs."""
        pairs = [("model", self.model), ("harness", self.harness)]
        pairs = [(key, value) for key, value in pairs if value]
        if not self.show_unranked:
            pairs.append(("unranked", "0"))
        if self.verified_only:
            pairs.append(("verified", "1"))
        if self.complete_only:
            pairs.append(("complete", "1"))
        if self.standard_only:
            pairs.append(("standard", "1"))
        if self.open_weights_only:
            pairs.append(("open_weights", "1"))
        if self.released_after:
            pairs.append(("released_after", self.released_after.isoformat()))
        if not self.latest_only:
            pairs.append(("versions", self.versions))
        if self.columns != DEFAULT_COLUMNS:
            pairs += [("col", c) for c in COLUMNS if c in self.columns] or [("col", "")]
        if self.k is not None:
            pairs.append(("k", str(self.k)))
        if self.sort:
            pairs.append(("sort", self.sort))
        return pairs

    def filter_labels(self) -> list[str]:
        """The row filters in force, as the board's caption names them."""
        labels = [
            ("Verified only", self.verified_only),
            ("complete only", self.complete_only),
            ("standard configuration only", self.standard_only),
            ("open weights", self.open_weights_only),
        ]
        named = [label for label, on in labels if on]
        if self.released_after:
            named.append(f"released after {self.released_after.isoformat()}")
        return named

    @property
    def narrowed(self) -> bool:
        """Whether any search or filter hides rows (the caption then gives the total)."""
        return bool(self.model or self.harness or not self.show_unranked or self.filter_labels())

    def querystring(self) -> str:
        pairs = self.query_pairs()
        return "?" + urlencode(pairs) if pairs else ""

    def with_sort(self, sort: str) -> BoardParams:
        return replace(self, sort=sort)


def verified_only(query: QueryDict) -> bool:
    """The "Verified only" filter: on for ?verified=1 (or true/yes/on), off otherwise.

    The form sends a hidden "0" then, when ticked, "1": the last value wins. The API
    reads the same parameter with this function.
    """
    return ticked(query, "verified")


def ticked(query: QueryDict, key: str) -> bool:
    """A checkbox filter: on for 1 (or true/yes/on); the last value wins."""
    values = query.getlist(key)
    return bool(values) and values[-1].strip().lower() in {"1", "true", "yes", "on"}


def date_given(query: QueryDict, key: str) -> datetime.date | None:
    """A YYYY-MM-DD parameter's date; anything else (or nothing) is no filter."""
    value = query.get(key, "").strip()
    if len(value) != 10:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def versions_shown(query: QueryDict) -> str:
    """?versions=latest (the default) or all; anything else is the default. The form
    sends a hidden "latest" then, when ticked, "all": the last value wins. The API reads
    the same parameter with this function."""
    values = query.getlist("versions")
    value = values[-1].strip().lower() if values else ""
    return value if value in board_versions.CHOICES else board_versions.LATEST


def pass_k_given(query: QueryDict) -> int | None:
    """?k=1 … PASS_K_MAX, the k of the pass^k column; anything else (or nothing) is each
    entry's largest k."""
    value = query.get("k", "").strip()
    if not (value.isascii() and value.isdigit()):
        return None
    k = int(value)
    return k if 1 <= k <= PASS_K_MAX else None


def _columns(query: QueryDict) -> frozenset[str]:
    # The form always sends an empty `col` marker, so an unticked picker is "none"
    # rather than "the defaults".
    if "col" not in query:
        return DEFAULT_COLUMNS
    return frozenset(c for c in query.getlist("col") if c in COLUMNS)
