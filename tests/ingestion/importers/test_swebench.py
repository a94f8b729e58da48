"""SWE-bench results (ingestion/importers/swebench.py) become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader.
"""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import BundleRejected
from ingestion.importers import detect_format
from tests.ingestion.importers.builders import read_back
from tests.ingestion.importers.swebench_builders import (
    detail,
    entry,
    instances,
    leaderboards,
    run_report,
    swebench,
    write_json,
)


def rejection(path, tmp_path, **params) -> list[tuple[str, str, str]]:
    with pytest.raises(BundleRejected) as info:
        swebench(path, tmp_path / "out.tar.gz", **params)
    return [(e.file, e.field, e.message) for e in info.value.errors]


# ------------------------------------------------------------------ per instance


def test_it_converts_one_entry_of_the_leaderboard_file(tmp_path):
    details = instances([True, False, True])
    path = write_json(tmp_path, leaderboards(entry("Frontier Large", details)))
    conversion = swebench(path, tmp_path / "out.tar.gz", model="frontier-large")
    manifest, runs = read_back(tmp_path / "out.tar.gz")

    assert conversion.format == "swebench" and conversion.runs == 3
    assert manifest.source == {"name": "swebench", "kind": "runs"}
    assert manifest.run_config.trials == 1
    assert [(r.task_id, r.outcome, r.trial) for r in runs] == [
        ("django__django-1000", "pass", 1),
        ("django__django-1001", "fail", 1),
        ("django__django-1002", "pass", 1),
    ]
    run = runs[1]
    assert (run.model, run.cost_usd, run.tool_calls, run.steps) == (
        "frontier-large",
        0.51,
        11,
        None,
    )
    assert run.infra_error is None
    assert run.run_id == "20250101_mini-v1.0.0_frontier-large/django__django-1001"
    assert run.source_id.startswith("swebench:") and len(run.source_id) == 9 + 32
    assert conversion.source_of(2) == (
        'leaderboards.json:leaderboards[0].results[0].per_instance_details["django__django-1001"]'
    )
    assert conversion.report["totals"] == {
        "instances": 3, "resolved": 2, "resolved_pct": 66.6667, "infra_errors": 0,
        "with_cost": 3, "cost_usd": 1.53, "with_api_calls": 3, "api_calls": 33,
    }  # fmt: skip
    assert conversion.report.get("warnings") is None  # its figures agree, the model given


def test_it_takes_the_model_from_the_entry_name_and_says_so(tmp_path):
    path = write_json(tmp_path, leaderboards(entry("Frontier Large", instances([True]))))
    conversion = swebench(path, tmp_path / "out.tar.gz")
    assert {r.model for r in read_back(tmp_path / "out.tar.gz")[1]} == {"Frontier Large"}
    assert conversion.report["warnings"] == [
        "the model is the entry's name 'Frontier Large' (give model to name it)"
    ]


def test_it_needs_the_entry_when_the_file_holds_several_and_lists_them(tmp_path):
    path = write_json(tmp_path, leaderboards(
        entry("Model A", instances([True])), entry("Model B", instances([False])),
        entry("Totals Only", None, resolved=40.0),
    ))  # fmt: skip
    [(file, field, message)] = rejection(path, tmp_path)
    assert (file, field) == ("leaderboards.json", "entry")
    assert message == (
        "holds 2 entries: give entry, one of '20250101_mini-v1.0.0_model-a', "
        "'20250101_mini-v1.0.0_model-b'"
    )
    [(_, _, unknown)] = rejection(path, tmp_path, entry="Model C")
    assert unknown.startswith("has no entry 'Model C': give entry, one of '20250101_mini")
    [(_, where, totals)] = rejection(path, tmp_path, entry="Totals Only")
    assert where == "leaderboards[0].results[2].per_instance_details"
    assert "publishes only its totals" in totals

    # By name, by folder, or as board/name.
    for chosen in ("Model B", "20250101_mini-v1.0.0_model-b", "bash-only/Model B"):
        swebench(path, tmp_path / "out.tar.gz", entry=chosen, model="m")
        assert [r.outcome for r in read_back(tmp_path / "out.tar.gz")[1]] == ["fail"]


def test_it_converts_an_entry_published_on_two_boards_once(tmp_path):
    details = instances([True, False])
    doc = leaderboards(entry("Model A", details))
    doc["leaderboards"].append({"name": "Verified", "results": [entry("Model A", details)]})
    conversion = swebench(write_json(tmp_path, doc), tmp_path / "out.tar.gz", model="m")
    assert conversion.runs == 2
    assert conversion.report["warnings"] == [
        "entry 'bash-only/Model A' is published again as Verified/Model A: converted once"
    ]


def test_it_reads_details_keyed_by_entry_and_one_entrys_alone(tmp_path):
    by_entry = write_json(tmp_path, {"a": instances([True]), "b": instances([False, False])},
                          name="info.json")  # fmt: skip
    assert swebench(by_entry, tmp_path / "b.tar.gz", entry="b", model="m").runs == 2
    alone = write_json(tmp_path, instances([True, True, False]), name="one.json")
    assert swebench(alone, tmp_path / "one.tar.gz", model="m").runs == 3
    assert detect_format(by_entry) == detect_format(alone) == "swebench"


def test_it_names_each_problem_with_the_file_instance_and_field(tmp_path):
    details = {
        "a__a-1": detail(resolved="yes"),
        "a__a-2": detail(cost=-1),
        "a__a-3": detail(api_calls=2.5),
        "a__a-4": ["not", "an", "object"],
        "a__a-5": {"cost": 0.1},
    }
    bad = entry("Model A", None, resolved=1.0) | {"per_instance_details": details}
    path = write_json(tmp_path, leaderboards(bad))
    errors = rejection(path, tmp_path, model="m")
    where = "leaderboards[0].results[0].per_instance_details"
    assert errors == [
        ("leaderboards.json", f'{where}["a__a-1"].resolved', 'must be true or false, got "yes"'),
        ("leaderboards.json", f'{where}["a__a-2"].cost', "must be a number ≥ 0, got -1"),
        ("leaderboards.json", f'{where}["a__a-3"].api_calls', "must be a whole number, got 2.5"),
        ("leaderboards.json", f'{where}["a__a-4"]',
         "must be an object {resolved, cost, api_calls}, not a list"),
        ("leaderboards.json", f'{where}["a__a-5"].resolved', "must be true or false, got null"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "must be a JSON object of SWE-bench results, not a list"),
        ('{"resolved": NaN}', "NaN is not allowed in JSON"),
        ('{"tasks": {"x": 1}}', "is not a SWE-bench results file"),
        ('{"leaderboards": [{"name": "x"}]}', "must be an object with a list of results"),
    ],
)
def test_it_rejects_what_is_not_swebench_results(tmp_path, text, message):
    path = tmp_path / "results.json"
    path.write_text(text)
    [(file, _, got)] = rejection(path, tmp_path, model="m")
    assert file == "results.json" and message in got


def test_it_reports_an_instance_given_twice(tmp_path):
    one = json.dumps(detail(True))
    text = '{"a": {"x__x-1": ONE, "x__x-1": ONE, "x__x-2": ONE}}'.replace("ONE", one)
    path = tmp_path / "info.json"
    path.write_text(text)
    conversion = swebench(path, tmp_path / "out.tar.gz", model="m")
    assert conversion.runs == 2
    assert conversion.report["warnings"] == [
        "entry 'a': instance 'x__x-1' is given 2 times (the same each time): converted once"
    ]
    path.write_text(text.replace(one, json.dumps(detail(False)), 1))
    [(_, field, message)] = rejection(path, tmp_path, model="m")
    assert (field, message) == (
        '["a"]["x__x-1"]',
        "instance 'x__x-1' is given 2 times, with different values",
    )


# ------------------------------------------------------------------ published figures


def test_it_reports_a_rate_published_over_another_count_of_instances(tmp_path):
    # 3 of 8 is 37.5%; the entry publishes 3 of 7.
    details = instances([True, True, True, False, False, False, False, False])
    path = write_json(tmp_path, leaderboards(entry("Model A", details, resolved=42.86)))
    conversion = swebench(path, tmp_path / "out.tar.gz", model="m")
    assert conversion.report["warnings"] == [
        "entry 'bash-only/Model A': its published 42.86% resolved is 3 of 7 instances, "
        "not of the 8 it lists (37.50% of 8)"
    ]


def test_it_reports_a_rate_its_flags_contradict(tmp_path):
    details = instances([True, False, False, False])
    path = write_json(tmp_path, leaderboards(entry("Model A", details, resolved=60.0)))
    [warning] = swebench(path, tmp_path / "out.tar.gz", model="m").report["warnings"]
    assert warning == (
        "entry 'bash-only/Model A': its published 60.0% resolved contradicts its "
        "per-instance flags: 1 of 4 resolved (25.00%); 60.0% of 4 would be 2"
    )


def test_it_compares_each_figure_at_its_own_precision(tmp_path):
    details = instances([True, True, False])  # 66.666…%
    for rate in (66.67, 66.7, 67):
        path = write_json(tmp_path, leaderboards(entry("Model A", details, resolved=rate)))
        assert "warnings" not in swebench(path, tmp_path / "out.tar.gz", model="m").report
    path = write_json(tmp_path, leaderboards(entry("Model A", details, resolved=66.6)))
    assert swebench(path, tmp_path / "out.tar.gz", model="m").report["warnings"]


def test_it_reports_costs_and_calls_its_instances_do_not_give(tmp_path):
    details = instances([True, False])  # costs 0.5 + 0.51, calls 10 + 11
    doc = leaderboards(entry("Model A", details, cost=2.0, instance_cost=0.75, instance_calls=21.0))
    warnings = swebench(write_json(tmp_path, doc), tmp_path / "o.tar.gz", model="m").report[
        "warnings"
    ]
    assert warnings == [
        "entry 'bash-only/Model A': its published total cost 2.0 is not the $1.0100 its "
        "2 instances add up to",
        "entry 'bash-only/Model A': its published cost per instance 0.75 is not the 0.505 "
        "of its 2 instances",
        "entry 'bash-only/Model A': its published API calls per instance 21.0 is not the "
        "10.5 of its 2 instances (the total over 1 instances)",
    ]


# ------------------------------------------------------------------ id lists


def test_it_converts_the_harness_run_report(tmp_path):
    report = run_report(
        resolved_ids=["a__a-1", "a__a-2"], unresolved_ids=["a__a-3"],
        empty_patch_ids=["a__a-4"], error_ids=["a__a-5"], incomplete_ids=["a__a-6"],
        completed_ids=["a__a-1", "a__a-2", "a__a-3"],
    )  # fmt: skip
    path = write_json(tmp_path, report, name="gpt-4o.run1.json")
    assert detect_format(path) == "swebench"
    conversion = swebench(path, tmp_path / "out.tar.gz", model="gpt-4o")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert {r.task_id: (r.outcome, r.infra_error) for r in runs} == {
        "a__a-1": ("pass", None), "a__a-2": ("pass", None), "a__a-3": ("fail", None),
        "a__a-4": ("fail", None), "a__a-5": ("infra_error", "other"), "a__a-6": ("fail", None),
    }  # fmt: skip
    assert {(r.cost_usd, r.tool_calls) for r in runs} == {(None, None)}
    assert conversion.report["totals"]["infra_errors"] == 1
    assert "warnings" not in conversion.report


def test_it_converts_the_older_results_json(tmp_path):
    results = {
        "generated": ["a__a-1", "a__a-2", "a__a-3"], "applied": ["a__a-1", "a__a-2"],
        "resolved": ["a__a-1"], "no_generation": ["a__a-4"], "no_logs": ["a__a-4"],
    }  # fmt: skip
    swebench(write_json(tmp_path, results, name="results.json"), tmp_path / "o.tar.gz", model="m")
    runs = read_back(tmp_path / "o.tar.gz")[1]
    assert {r.task_id: r.outcome for r in runs} == {
        "a__a-1": "pass",
        "a__a-2": "fail",
        "a__a-3": "fail",
        "a__a-4": "fail",
    }


def test_it_refuses_an_id_listed_as_resolved_and_as_not(tmp_path):
    report = run_report(resolved_ids=["a__a-1"], unresolved_ids=["a__a-1", 7])
    [first, second] = rejection(write_json(tmp_path, report, name="r.json"), tmp_path, model="m")
    assert first == ("r.json", "unresolved_ids[1]", "must be an instance id, got 7")
    assert second == (
        "r.json", "unresolved_ids",
        "instance 'a__a-1' is listed as resolved (resolved_ids) and in unresolved_ids",
    )  # fmt: skip


def test_it_reports_counts_its_lists_do_not_give(tmp_path):
    report = run_report(resolved_ids=["a__a-1", "a__a-1"], unresolved_ids=["a__a-2"])
    report |= {"resolved_instances": 3, "total_instances": 4}
    conversion = swebench(write_json(tmp_path, report, name="r.json"), tmp_path / "o", model="m")
    assert conversion.report["warnings"] == [
        "resolved_ids: instance 'a__a-1' is listed more than once",
        "resolved_instances is 3, but the file lists 1 such instance(s)",
        "total_instances is 4, but the file lists outcomes for 2: 1 resolved is 25.00% of 4, "
        "50.00% of the 2 runs converted",
    ]


# ------------------------------------------------------------------ identity


def test_its_source_ids_stay_whatever_the_file_that_carries_the_record(tmp_path):
    details = instances([True, False, True])
    site = write_json(tmp_path, leaderboards(entry("Model A", details)))
    info = write_json(tmp_path, {"model-a": details}, name="info.json", indent=2)
    swebench(site, tmp_path / "site.tar.gz", model="m")
    swebench(info, tmp_path / "info.tar.gz", model="another name")
    ids = [r.source_id for r in read_back(tmp_path / "site.tar.gz")[1]]
    assert ids == [r.source_id for r in read_back(tmp_path / "info.tar.gz")[1]]
    assert len(set(ids)) == 3

    details["django__django-1001"]["resolved"] = True  # another verdict: another record
    swebench(
        write_json(tmp_path, {"model-a": details}, name="info.json"), tmp_path / "x", model="m"
    )
    changed = [r.source_id for r in read_back(tmp_path / "x")[1]]
    assert changed[0] == ids[0] and changed[1] != ids[1]


def test_its_id_list_source_ids_are_the_runs_not_the_files_name(tmp_path):
    report = run_report(resolved_ids=["a__a-1"], unresolved_ids=["a__a-2"])
    swebench(write_json(tmp_path, report, name="one.json"), tmp_path / "a", model="m")
    swebench(write_json(tmp_path, report, name="two.json", indent=4), tmp_path / "b", model="m")
    other = run_report(resolved_ids=["a__a-1"], unresolved_ids=["a__a-2", "a__a-3"])
    swebench(write_json(tmp_path, other, name="three.json"), tmp_path / "c", model="m")
    swebench(write_json(tmp_path, report, name="four.json"), tmp_path / "d", model="m2")
    a, b, c, d = ([r.source_id for r in read_back(tmp_path / x)[1]] for x in "abcd")
    assert a == b
    assert not set(a) & set(c) and not set(a) & set(d)


def test_it_asks_which_of_two_different_entries_of_one_name(tmp_path):
    doc = leaderboards(entry("Model A", instances([True])))
    doc["leaderboards"].append(
        {"name": "Verified", "results": [entry("Model A", instances([False]))]}
    )
    [(_, field, message)] = rejection(write_json(tmp_path, doc), tmp_path, entry="Model A")
    assert field == "entry"
    assert message == (
        "has several entries named 'Model A': give one of 'bash-only/Model A', 'Verified/Model A'"
    )
    swebench(
        write_json(tmp_path, doc), tmp_path / "out.tar.gz", entry="Verified/Model A", model="m"
    )
    assert [r.outcome for r in read_back(tmp_path / "out.tar.gz")[1]] == ["fail"]
