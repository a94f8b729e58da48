"""Errors of a bundle: one problem (`BundleError`), a refusal (`BundleRejected`), and
the collector that gathers them so one pass reports every problem.

A bundle with one mistake repeated on every line (the same unknown task, the same bad
field) would otherwise report hundreds of near-identical lines. The collector keeps the
first WHOLE_ERRORS errors whole, then one grouped entry per cause with the number of
further lines it stands for. A cause is the error without its place: its field and its
message (the line is not part of the message; the file is not part of the cause, so the
same problem in many native files of one upload is one cause). A message that embeds a
value, such as a task id, is one cause per value: "task a is not in the registry" and
"task b …" are two causes, each with its own count.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from ingestion.bundles.limits import MAX_REPORTED_ERRORS

# Errors reported line by line before the rest are grouped by cause.
WHOLE_ERRORS = 20


@dataclass(frozen=True, slots=True)
class BundleError:
    """One problem, shown to users as `file:line: field: message`.

    A grouped entry (`count` set, `line` None) stands for `count` more lines with the
    same cause after the errors shown whole; its `file` is "" when they are in several.
    """

    file: str
    line: int | None
    field: str
    message: str
    count: int | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where = f"{where}:{self.line}"
        head = f"{where}: " if where else ""
        text = f"{head}{self.field}: {self.message}" if self.field else head + self.message
        return text if self.count is None else f"{text} — {more_lines(self.count)}"

    def to_json(self) -> dict:
        """As Submission.errors stores it: a grouped entry adds its `count`."""
        data = {"file": self.file, "line": self.line, "field": self.field, "message": self.message}
        if self.count is not None:
            data["count"] = self.count
        return data

    @classmethod
    def from_json(cls, data: dict) -> BundleError:
        return cls(
            data.get("file", ""), data.get("line"), data.get("field", ""),
            data.get("message", ""), data.get("count"),
        )  # fmt: skip

    @property
    def cause(self) -> tuple[str, str]:
        """What makes two errors the same problem: everything but where it is."""
        return self.field, self.message

    @property
    def lines(self) -> int:
        """How many errors this entry stands for."""
        return 1 if self.count is None else self.count


def more_lines(count: int) -> str:
    return f"{count} more line{'' if count == 1 else 's'}"


class BundleRejected(Exception):
    """The bundle is refused whole. `errors` holds the first WHOLE_ERRORS errors whole
    and the rest grouped by cause (at most MAX_REPORTED_ERRORS entries); `total`
    counts every error."""

    def __init__(self, errors: list[BundleError] | str, total: int | None = None):
        if isinstance(errors, str):
            errors = [BundleError("", None, "", errors)]
        grouped = group_errors(errors)
        self.errors: list[BundleError] = grouped.errors
        self.total: int = grouped.total if total is None else total
        super().__init__(self._summary())

    def _summary(self) -> str:
        shown = self.errors[:10]
        more = self.total - sum(e.lines for e in shown)
        tail = f"\n  … and {more} more" if more > 0 else ""
        noun = "error" if self.total == 1 else "errors"
        lines = "\n".join(f"  {e}" for e in shown)
        return f"bundle rejected ({self.total} {noun}):\n{lines}{tail}"


def rejected(file: str, message: str, field: str = "") -> BundleRejected:
    """A rejection with a single error (container-level problems)."""
    return BundleRejected([BundleError(file, None, field, message)])


@dataclass(slots=True)
class _Cause:
    """The errors of one cause past the ones kept whole: the first, and how many."""

    first: BundleError
    count: int
    file: str

    def entry(self) -> BundleError:
        # A cause met once is shown as that line; more, as one entry with their count.
        if self.count == 1 and self.first.count is None:
            return self.first
        return replace(self.first, file=self.file, line=None, count=self.count)


class ErrorCollector:
    """Collects errors without stopping: the first `whole` as they are, then a count per
    cause (at most `limit` entries in all; errors past that are only counted)."""

    __slots__ = ("_causes", "_whole", "limit", "total", "whole")

    def __init__(self, limit: int = MAX_REPORTED_ERRORS, whole: int = WHOLE_ERRORS):
        self._whole: list[BundleError] = []
        self._causes: dict[tuple[str, str], _Cause] = {}
        self.total = 0
        self.limit = limit
        self.whole = whole

    def add(self, file: str, line: int | None, field: str, message: str) -> None:
        self.add_error(BundleError(file, line, field, message))

    def add_error(self, error: BundleError) -> None:
        """Add one error, or a grouped entry standing for `error.count` of them."""
        self.total += error.lines
        if error.count is None and len(self._whole) < min(self.whole, self.limit):
            self._whole.append(error)
            return
        cause = self._causes.get(error.cause)
        if cause is not None:
            cause.count += error.lines
            if cause.file != error.file:
                cause.file = ""  # the same problem in several files
        elif len(self._whole) + len(self._causes) < self.limit:
            self._causes[error.cause] = _Cause(error, error.lines, error.file)

    @property
    def errors(self) -> list[BundleError]:
        """The errors kept whole, then one entry per further cause, in order of appearance."""
        return self._whole + [cause.entry() for cause in self._causes.values()]

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[BundleError]:
        return iter(self.errors)

    def raise_if_any(self) -> None:
        if self.total:
            raise BundleRejected(self.errors, self.total)


def group_errors(errors: Iterable[BundleError]) -> ErrorCollector:
    """The errors as a collector keeps them: a list already grouped stays as it is."""
    collector = ErrorCollector()
    for error in errors:
        collector.add_error(error)
    return collector


def human_size(n: int) -> str:
    """2 GiB, 200 MiB, 10 MiB, or an exact byte count (for messages naming a limit)."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def too_big_document(size: int, cap: int) -> str:
    """The message for a member too large to be read as one JSON document."""
    return f"is {size:,} bytes, over the limit of {human_size(cap)} for one JSON document"


def empty_file_error(kind: str) -> str:
    """The message for a runs or sessions file that holds no record."""
    return f"holds no {kind}: it is empty or blank (leave it out if the bundle has none)"
