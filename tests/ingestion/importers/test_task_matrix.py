"""Task matrices (ingestion/importers/task_matrix.py) become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader.
"""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import BundleRejected
from ingestion.importers import NativeParams, convert_native, detect_format
from tests.ingestion.importers.builders import read_back

HARNESS = {"name": "OpenHarness", "version": "0.9.2", "contributors": []}
SUITE = {"suite": "terminal-bench", "suite_version": "4.0.0"}
HEADER = "task,agent,model,outcome,cost_usd,tool_calls,trial"


def write_csv(folder, *rows: str, header: str = HEADER, name: str = "matrix.csv"):
    path = folder / name
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def write_rows(folder, rows: list, name: str = "matrix.json"):
    path = folder / name
    path.write_text(json.dumps(rows))
    return path


def matrix(path, out, **params):
    given = {"harness": HARNESS, **SUITE, **params}
    return convert_native("task-matrix", path, params=NativeParams(**given), out=out)


def rejection(path, tmp_path, **params) -> list[tuple[str, int | None, str, str]]:
    with pytest.raises(BundleRejected) as info:
        matrix(path, tmp_path / "out.tar.gz", **params)
    return [(e.file, e.line, e.field, e.message) for e in info.value.errors]


def test_it_converts_a_csv_matrix(tmp_path):
    path = write_csv(
        tmp_path,
        "fix-git,oh,frontier-large,pass,0.12,31,",
        "fix-git,oh,frontier-large,FAIL,,,2",
        "regex-log,oh,frontier-large,1,0.5,7,1",
        "regex-log,oh,frontier-small,False,,,",
        "hello,oh,frontier-small,infra_error,,,",
    )
    assert detect_format(path) == "task-matrix"
    conversion = matrix(path, tmp_path / "out.tar.gz")
    manifest, runs = read_back(tmp_path / "out.tar.gz")
    assert conversion.format == "task-matrix" and conversion.runs == 5
    assert manifest.source == {"name": "task-matrix", "kind": "runs"}
    assert manifest.run_config.trials == 2
    assert [(r.task_id, r.model, r.trial, r.outcome, r.infra_error) for r in runs] == [
        ("fix-git", "frontier-large", 1, "pass", None),
        ("fix-git", "frontier-large", 2, "fail", None),
        ("regex-log", "frontier-large", 1, "pass", None),
        ("regex-log", "frontier-small", 1, "fail", None),
        ("hello", "frontier-small", 1, "infra_error", "other"),
    ]
    assert (runs[0].cost_usd, runs[0].tool_calls) == (0.12, 31)
    assert (runs[1].cost_usd, runs[1].tool_calls) == (None, None)
    assert runs[0].run_id == "oh/fix-git/frontier-large/1"
    assert conversion.source_of(2) == "matrix.csv:3"
    assert conversion.report == {}


def test_it_converts_json_rows_with_booleans_and_numbers(tmp_path):
    rows = [
        {"task": "a", "agent": "oh", "model": "m", "outcome": True, "cost_usd": 0.1},
        {"task": "b", "agent": "oh", "model": "m", "outcome": 0, "tool_calls": 3, "note": "x"},
        {"task": 7, "agent": "oh", "model": "m", "outcome": "infra_error"},
    ]
    path = write_rows(tmp_path, rows)
    assert detect_format(path) == "task-matrix"
    matrix(path, tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert [(r.task_id, r.outcome) for r in runs] == [
        ("a", "pass"), ("b", "fail"), ("7", "infra_error")
    ]  # fmt: skip
    assert runs[1].extra["note"] == "x"


def test_it_needs_the_agent_when_there_are_several_and_lists_them(tmp_path):
    path = write_csv(tmp_path, "a,oh,m,pass,,,", "a,swe,m,fail,,,", "b,swe,m,pass,,,")
    assert rejection(path, tmp_path) == [
        ("matrix.csv", None, "entry", "holds 2 agents: give entry, one of 'oh', 'swe'")
    ]
    assert rejection(path, tmp_path, entry="mini") == [
        ("matrix.csv", None, "entry", "has no agent 'mini': give entry, one of 'oh', 'swe'")
    ]
    conversion = matrix(path, tmp_path / "out.tar.gz", entry="swe")
    assert conversion.runs == 2
    assert conversion.report == {"refused": {"another agent's row": 1}}


def test_it_names_each_problem_with_its_file_line_and_column(tmp_path):
    path = write_csv(
        tmp_path,
        ",oh,m,pass,,,",
        "a,oh,,maybe,,,",
        "b,oh,m,pass,-1,2.5,0",
        "c,oh,m,pass,cheap,,",
        "d,oh,m,pass,,,",
        "d,oh,m,fail,,,1",
    )
    assert rejection(path, tmp_path) == [
        ("matrix.csv", 2, "task", 'must be a non-empty name, got ""'),
        ("matrix.csv", 3, "model", 'must be a non-empty name, got ""'),
        ("matrix.csv", 3, "outcome",
         'must be pass, fail, infra_error, 1, 0, true or false, got "maybe"'),
        ("matrix.csv", 4, "cost_usd", 'must be a number ≥ 0, got "-1"'),
        ("matrix.csv", 4, "tool_calls", 'must be a whole number ≥ 0, got "2.5"'),
        ("matrix.csv", 4, "trial", "must be an integer ≥ 1, got 0"),
        ("matrix.csv", 5, "cost_usd", 'must be a number ≥ 0, got "cheap"'),
        ("matrix.csv", 7, "trial", "task 'd' model 'm' trial 1 is already row 6"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("task,agent,outcome\na,oh,pass\n", "model", "the header row has no column model"),
        ("task,agent,model,outcome,task\na,oh,m,pass,a\n", "task", "names 'task' twice"),
        (HEADER + "\na,oh,m,pass\n", "", "line 2 has 4 values for 7 columns"),
        ('{"rows": []}', "", "not a JSON object"),
        ('[{"task": "a", "agent": "oh", "outcome": "pass"}]', "model", "item 1 has no model"),
        ("[1]", "", "item 1 must be an object, not a number"),
        ("[NaN]", "", "NaN is not allowed in JSON"),
        (HEADER + "\n", "", "holds no rows"),
    ],
)
def test_it_rejects_a_table_it_cannot_read(tmp_path, text, field, message):
    path = tmp_path / "matrix.csv"
    path.write_text(text)
    [(file, _, got_field, got)] = rejection(path, tmp_path)
    assert file == "matrix.csv" and got_field == field and message in got


def test_its_source_ids_are_the_rows_not_the_file(tmp_path):
    write_csv(tmp_path, "a,oh,m,pass,0.5,3,", "b,oh,m,0,,,1")
    rows = [
        {"agent": "oh", "task": "b", "model": "m", "outcome": "fail", "trial": 1},
        {"agent": "oh", "task": "a", "model": "m", "outcome": "true", "cost_usd": 0.5,
         "tool_calls": 3},
    ]  # fmt: skip
    matrix(tmp_path / "matrix.csv", tmp_path / "csv.tar.gz")
    matrix(write_rows(tmp_path, rows, name="other.json"), tmp_path / "json.tar.gz")
    from_csv = {r.task_id: r.source_id for r in read_back(tmp_path / "csv.tar.gz")[1]}
    from_json = {r.task_id: r.source_id for r in read_back(tmp_path / "json.tar.gz")[1]}
    assert from_csv == from_json
    assert all(s.startswith("task-matrix:") for s in from_csv.values())
    assert len(set(from_csv.values())) == 2
