"""Registry files: every problem is a named error, the command lists them and fails,
and `--help` describes the format."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from ingestion.models import LanguageModel, Suite, Task
from ingestion.services.registry import RegistryError, registry_load
from ingestion.services.registry_format import registry_problems
from tests.ingestion.services.registry_builders import a_model, a_registry, a_suite, a_task


def test_it_finds_no_problem_in_a_well_formed_file():
    assert registry_problems(a_registry(models=[a_model()])) == []


def test_it_names_the_suite_the_task_and_the_missing_field():
    task = a_task("fix-it")
    del task["category"]
    problems = registry_problems(a_registry([a_suite(tasks=[a_task(), task])]))
    assert problems == [
        'suites[0] (solo-bench 1.0.0) tasks[1] (fix-it): "category" is missing '
        "(string (letters, digits, - and _))"
    ]


@pytest.mark.parametrize(
    ("suite", "problem"),
    [
        ({"slug": None}, '"slug" must be a string'),
        ({"version": 1}, '"version" must be a string'),
        ({"official": "yes"}, '"official" must be true or false'),
        ({"joins": "overall"}, '"joins" must be a list of "overall", "coding"'),
        ({"joins": ["overall", "signals"]}, "\"joins\" item 'signals' must be one of"),
        ({"tasks": {"task_id": "x"}}, '"tasks" must be a list of objects'),
        ({"slug": "has space"}, '"slug" may hold only letters, digits, - and _'),
        ({"name": "n" * 201}, '"name" is longer than 200 characters'),
        ({"slug": "category"}, '"slug" may not be "category" nor begin with "category-"'),
        ({"slug": "category-x"}, '"slug" may not be "category" nor begin with "category-"'),
    ],
)
def test_it_names_a_wrong_typed_suite_field(suite, problem):
    problems = registry_problems(a_registry([a_suite(**suite)]))
    assert len(problems) == 1 and problem in problems[0], problems


def test_it_names_every_problem_at_once():
    model = a_model(input_price_per_mtok="5")
    del model["name"]
    data = a_registry(
        [a_suite(tasks=[a_task(approved="no"), {"category": "bugfix"}]), {"version": "2"}],
        models=[model],
    )
    problems = registry_problems(data)
    assert problems == [
        'suites[0] (solo-bench 1.0.0) tasks[0] (solve-it): "approved" must be true or false',
        'suites[0] (solo-bench 1.0.0) tasks[1]: "task_id" is missing (string)',
        'suites[1] (2): "slug" is missing (string (letters, digits, - and _))',
        'models[0]: "name" is missing (string)',
        'models[0]: "input_price_per_mtok" must be a number or null',
    ]


def test_it_names_duplicate_suites_and_tasks():
    data = a_registry([a_suite(tasks=[a_task("t"), a_task("t")]), a_suite()])
    assert registry_problems(data) == [
        "suites[0] (solo-bench 1.0.0) tasks: 't' appears 2 times",
        "suites: 'solo-bench 1.0.0' appears 2 times",
    ]


@pytest.mark.django_db
def test_it_loads_nothing_from_a_file_with_a_problem():
    data = a_registry([a_suite(), a_suite("broken", tasks=[{"task_id": "x"}])])
    with pytest.raises(RegistryError) as refused:
        registry_load(data=data)
    assert refused.value.problems == [
        'suites[1] (broken 1.0.0) tasks[0] (x): "category" is missing '
        "(string (letters, digits, - and _))"
    ]
    assert not Suite.objects.exists() and not Task.objects.exists()


@pytest.mark.django_db
def test_the_command_lists_the_problems_and_fails(tmp_path):
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(a_registry([a_suite(tasks=[{"task_id": "x"}, {"task_id": 7}])])))
    with pytest.raises(CommandError) as failed:
        call_command("load_registry", str(path))
    message = str(failed.value)
    assert "3 problem(s)" in message
    assert 'tasks[0] (x): "category" is missing' in message
    assert 'tasks[1] (7): "task_id" must be a string' in message
    assert not Suite.objects.exists()


def test_the_command_help_describes_the_file_format(capsys):
    with pytest.raises(SystemExit):
        call_command("load_registry", "--help")
    text = capsys.readouterr().out
    for field in ["coding_categories", "slug", "joins", "task_id", "category", "aliases"]:
        assert f"  {field} (" in text, field
    assert "output_price_per_mtok (number or null, optional)" in text
    assert '"joins": []' in text  # the example keeps its line breaks


@pytest.mark.parametrize(
    "price", [999999.99995, 1_000_000, -0.5, float("inf"), float("nan"), 1e300, 10**30]
)
def test_it_names_a_price_the_column_cannot_hold_once_rounded(price):
    problems = registry_problems(a_registry(models=[a_model(input_price_per_mtok=price)]))
    assert problems == [
        'models[0] (claude-opus-4-6): "input_price_per_mtok" must be at least 0 and below '
        "1000000 once rounded to 4 decimals"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("price", "stored"),
    [(999999.99994, "999999.9999"), (0.00005, "0.0001"), (0.00004, "0.0000"), (7, "7.0000")],
)
def test_it_stores_an_accepted_price_as_the_check_rounded_it(price, stored):
    registry_load(data=a_registry(models=[a_model(input_price_per_mtok=price)]))
    model = LanguageModel.objects.get()
    assert str(model.input_price_per_mtok) == stored
