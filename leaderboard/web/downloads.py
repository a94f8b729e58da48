"""Board downloads: the rows of a board page as CSV or JSON, with the data terms.

The view (leaderboard.web.board.board_export) reads the rows exactly as the page
does; this module only writes them. Bundle text goes through the shared spreadsheet
rule (leaderboard.exports) on its way into a CSV cell.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ingestion.traces.figures import FIGURES
from leaderboard.exports import csv_text
from leaderboard.methodology import stats
from leaderboard.models import Board, BoardEntry
from leaderboard.presentation.board import rank_label
from leaderboard.presentation.horizons import HORIZON_CSV_COLUMNS, horizon_csv_cells
from leaderboard.web.api.board_serializers import BoardEntrySerializer
from leaderboard.web.csv_api import CsvTable
from leaderboard.web.terms import ATTRIBUTION, DATA_TERMS

EXPORT_FIELDS = (
    "rank", "rank_display", "harness", "harness_version", "model", "minimal_baseline",
    "runs", "n", "passes", "pass_rate", "wilson_low", "wilson_high", "infra_errors",
    "infra_error_rate", "under_review", "conflict_excluded", "cost_per_success",
    "cost_per_success_status", "tokens_per_success", "token_saving_ratio",
    "token_saving_awarded", "partial_score", "ttft_ms_p50", "ttft_ms_p95",
    "duration_s_p50", "duration_s_p95", "mean_steps", "mean_tool_calls",
    # Last, so that the earlier columns keep their positions for existing readers.
    "independent_by", "verification", "reported_cost_per_success",
    "reported_cost_per_success_status", "cost_disagrees", "latest_submission_at",
    "model_organisation", "open_weights", "model_release_date", "knowledge_cutoff",
    "harness_organisation", "harness_open_source", "after_cutoff_tasks", "after_cutoff_n",
    "after_cutoff_passes", "after_cutoff_pass_rate", "after_cutoff_low", "after_cutoff_high",
)  # fmt: skip
# The intervals, after the pass^k columns so that every earlier column keeps its position.
INTERVAL_COLUMNS = (
    "rank_best", "rank_worst", "tied_with_leader", "partial_score_low", "partial_score_high",
    "mean_steps_low", "mean_steps_high", "mean_tool_calls_low", "mean_tool_calls_high",
    "ttft_ms_mean", "ttft_ms_mean_low", "ttft_ms_mean_high", "duration_s_mean",
    "duration_s_mean_low", "duration_s_mean_high",
)  # fmt: skip
# Coverage (methodology §2.6) and the published rank (`rank` is among the rows kept),
# after everything earlier for the same reason.
COVERAGE_COLUMNS = (
    "coverage_tasks", "coverage_of", "rank_all", "run_config_status", "run_config_summary",
    "run_config_unstated", "run_configs",
)  # fmt: skip
# The trace figures (each with its interval and n) and the violation counts, last.
TRACE_COLUMNS = (
    *(f"trajectory_{f.key}{part}" for f in FIGURES for part in ("", "_low", "_high", "_n")),
    "violations_checked", "violations_any", "violations_by_rule",
)  # fmt: skip
# The columns whose text comes from bundles (or, independent_by, a chosen username).
BUNDLE_TEXT_FIELDS = ("harness", "harness_version", "independent_by", "model", "run_configs")


def export_row(entry: BoardEntry) -> dict:
    """One entry as the API shows it, plus the badge and rank as the page shows them."""
    row = dict(BoardEntrySerializer(entry).data)
    row["token_saving_ratio"] = row["token_saving"]["ratio"]  # finite or None, as in the API
    row["token_saving_awarded"] = entry.token_saving_awarded
    row["rank_display"] = rank_label(entry)
    return row


def board_csv(current: Board, rows: list[dict], terms_url: str) -> str:
    """The rows as CSV: a header line, one line per entry, the terms' address last.

    The shared writer (leaderboard.exports.csv_text): nothing before the header, so that
    pandas and spreadsheets read it without options.
    """
    table = board_csv_table(rows)
    return csv_text(table.columns, table.rows, terms_url=terms_url, text_columns=table.text_columns)


def board_csv_table(rows: list[dict]) -> CsvTable:
    """The rows under the download's columns: what both the page's CSV download and the
    board API's `?format=csv` write."""
    k_columns = [f"pass_hat_{k}" for k in range(1, stats.PASS_K_MAX + 1)]
    k_bounds = [
        f"pass_hat_{k}_{bound}" for k in range(1, stats.PASS_K_MAX + 1) for bound in ("low", "high")
    ]
    return CsvTable(
        columns=[
            *EXPORT_FIELDS,
            *k_columns,
            *INTERVAL_COLUMNS,
            *k_bounds,
            *COVERAGE_COLUMNS,
            *TRACE_COLUMNS,
            *HORIZON_CSV_COLUMNS,
            # Last: true while the row's bounds are still being computed (null till then).
            "intervals_pending",
        ],
        rows=[_cells(row) for row in rows],
        text_columns=BUNDLE_TEXT_FIELDS,
    )


def _cells(row: dict) -> dict:
    return {
        **row,
        **_pass_k_cells(row),
        **_rank_cells(row),
        **_coverage_cells(row),
        **_trace_cells(row),
        **horizon_csv_cells(row.get("horizon")),
    }


def _pass_k_cells(row: dict) -> dict:
    cells = {}
    for k, value in row["pass_hat_k"].items():
        cells[f"pass_hat_{k}"] = value["value"]
        cells[f"pass_hat_{k}_low"], cells[f"pass_hat_{k}_high"] = value["low"], value["high"]
    return cells


def _rank_cells(row: dict) -> dict:
    best, worst = row["rank_range"] or (None, None)
    return {"rank_best": best, "rank_worst": worst}


def _coverage_cells(row: dict) -> dict:
    config = row["run_config"]
    return {
        "coverage_tasks": row["coverage"]["tasks"],
        "coverage_of": row["coverage"]["of"],
        "run_config_status": config["status"],
        "run_config_summary": config["summary"],
        "run_config_unstated": config["unstated"],
        # One cell: the configurations as compact JSON (bundle text: guarded as such).
        "run_configs": json.dumps(config["configs"], sort_keys=True, separators=(",", ":")),
    }


def _trace_cells(row: dict) -> dict:
    cells: dict = {}
    for key, found in (row.get("trajectory") or {}).items():
        for part in ("value", "low", "high", "n"):
            cells[f"trajectory_{key}{'' if part == 'value' else '_' + part}"] = found.get(part)
    violations = row.get("violations") or {}
    cells["violations_checked"] = violations.get("checked")
    cells["violations_any"] = violations.get("any", 0 if violations.get("checked") else None)
    # Rule ids are the registry's (slugs), one compact JSON cell like run_configs.
    rules = violations.get("rules")
    cells["violations_by_rule"] = json.dumps(rules, sort_keys=True) if rules else ""
    return cells


def board_json(current: Board, rows: list[dict], terms_url: str) -> str:
    """The rows as one JSON document with the terms, the board and its snapshot time."""
    document = {
        "attribution": ATTRIBUTION,
        "terms": DATA_TERMS,
        "terms_url": terms_url,
        "slug": current.slug,
        "title": current.title,
        "computed_at": current.snapshot.computed_at.isoformat(),
        "entries": rows,
    }
    # Strict JSON: the rows are finite (BoardEntrySerializer), and a NaN or infinity
    # that slipped through would fail here rather than be written as bare `Infinity`.
    return json.dumps(document, indent=1, allow_nan=False)


# Download format -> (writer, content type).
EXPORTERS: dict[str, tuple[Callable[[Board, list[dict], str], str], str]] = {
    "csv": (board_csv, "text/csv"),
    "json": (board_json, "application/json"),
}
