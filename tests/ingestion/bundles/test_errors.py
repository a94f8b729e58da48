"""Errors (ingestion/bundles/errors.py): their format, the cap and the count."""

from __future__ import annotations

import pytest

from ingestion.bundles import MAX_REPORTED_ERRORS, BundleError, BundleRejected, ErrorCollector

# --------------------------------------------------------------------------- errors


def test_it_formats_errors_as_file_line_field_message():
    assert str(BundleError("runs.jsonl", 3, "cost_usd", "must be a finite number")) == (
        "runs.jsonl:3: cost_usd: must be a finite number"
    )
    assert str(BundleError("manifest.json", None, "format", "x")) == "manifest.json: format: x"
    assert (
        str(BundleError("up.zip", None, "", "not a valid archive")) == "up.zip: not a valid archive"
    )
    assert (
        str(BundleError("runs.jsonl", 9, "", "is not valid JSON"))
        == "runs.jsonl:9: is not valid JSON"
    )


def test_it_caps_the_error_list_and_counts_them_all():
    errors = ErrorCollector()
    for line in range(1, 251):
        errors.add("runs.jsonl", line, "cost_usd", "must be a finite number")
    with pytest.raises(BundleRejected) as caught:
        errors.raise_if_any()
    assert len(caught.value.errors) == MAX_REPORTED_ERRORS == 200
    assert caught.value.total == 250
    assert caught.value.errors[-1].line == 200
    assert "250 errors" in str(caught.value)
