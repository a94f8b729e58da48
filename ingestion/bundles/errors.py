"""Errors of a bundle: one problem (`BundleError`), a refusal (`BundleRejected`), and
the collector that gathers them so one pass reports every problem."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ingestion.bundles.limits import MAX_REPORTED_ERRORS


@dataclass(frozen=True, slots=True)
class BundleError:
    """One problem, shown to users as `file:line: field: message`."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where = f"{where}:{self.line}"
        head = f"{where}: " if where else ""
        return f"{head}{self.field}: {self.message}" if self.field else head + self.message


class BundleRejected(Exception):
    """The bundle is refused whole. `errors` holds the first MAX_REPORTED_ERRORS."""

    def __init__(self, errors: list[BundleError] | str, total: int | None = None):
        if isinstance(errors, str):
            errors = [BundleError("", None, "", errors)]
        self.errors: list[BundleError] = list(errors[:MAX_REPORTED_ERRORS])
        self.total: int = len(errors) if total is None else total
        super().__init__(self._summary())

    def _summary(self) -> str:
        shown = "\n".join(f"  {e}" for e in self.errors[:10])
        more = self.total - min(len(self.errors), 10)
        tail = f"\n  … and {more} more" if more > 0 else ""
        noun = "error" if self.total == 1 else "errors"
        return f"bundle rejected ({self.total} {noun}):\n{shown}{tail}"


def rejected(file: str, message: str, field: str = "") -> BundleRejected:
    """A rejection with a single error (container-level problems)."""
    return BundleRejected([BundleError(file, None, field, message)])


class ErrorCollector:
    """Collects errors without stopping; keeps the first `limit`, counts them all."""

    __slots__ = ("errors", "limit", "total")

    def __init__(self, limit: int = MAX_REPORTED_ERRORS):
        self.errors: list[BundleError] = []
        self.total = 0
        self.limit = limit

    def add(self, file: str, line: int | None, field: str, message: str) -> None:
        self.total += 1
        if len(self.errors) < self.limit:
            self.errors.append(BundleError(file, line, field, message))

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[BundleError]:
        return iter(self.errors)

    def raise_if_any(self) -> None:
        if self.total:
            raise BundleRejected(self.errors, self.total)


def human_size(n: int) -> str:
    """2 GiB, 200 MiB, 10 MiB, or an exact byte count (for messages naming a limit)."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def too_big_document(size: int, cap: int) -> str:
    """The message for a member too large to be read as one JSON document."""
    return f"is {size:,} bytes, over the limit of {human_size(cap)} for one JSON document"
