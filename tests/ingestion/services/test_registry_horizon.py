"""The registry's time-horizon fields: a task's human_minutes and family, a suite's
horizon_mode; each checked with a named problem, and stored."""

from __future__ import annotations

import pytest

from ingestion.models import Suite, Task
from ingestion.services.registry import registry_load
from ingestion.services.registry_format import registry_format_text, registry_problems
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

WHERE = "suites[0] (solo-bench 1.0.0) tasks[0] (solve-it)"


@pytest.mark.parametrize(
    ("minutes", "problem"),
    [
        (0, "must be a finite number of minutes above 0"),
        (-3.5, "must be a finite number of minutes above 0"),
        (float("inf"), "must be a finite number of minutes above 0"),
        (float("nan"), "must be a finite number of minutes above 0"),
        ("30", "must be a number of minutes"),
        (True, "must be a number of minutes"),
        (None, "must be a number of minutes"),
    ],
)
def test_it_names_a_bad_human_minutes(minutes, problem):
    data = a_registry([a_suite(tasks=[a_task(human_minutes=minutes)])])
    assert registry_problems(data) == [f'{WHERE}: "human_minutes" {problem}']


def test_it_names_a_bad_family_and_a_bad_horizon_mode():
    data = a_registry(
        [a_suite(horizon_mode="weighted", tasks=[a_task(family="x" * 101), a_task("b", family=3)])]
    )
    assert registry_problems(data) == [
        'suites[0] (solo-bench 1.0.0): "horizon_mode" must be one of "headline", "cross_domain"',
        f'{WHERE}: "family" is longer than 100 characters',
        'suites[0] (solo-bench 1.0.0) tasks[1] (b): "family" must be a string',
    ]


def test_it_accepts_whole_and_fractional_minutes():
    data = a_registry([a_suite(tasks=[a_task(human_minutes=7.5), a_task("b", human_minutes=480)])])
    assert registry_problems(data) == []


def test_it_documents_the_fields_in_the_format_text():
    text = registry_format_text()
    assert "human_minutes (number > 0, optional)" in text
    assert "family (string, optional)" in text
    assert 'horizon_mode (one of "headline", "cross_domain", optional)' in text


@pytest.mark.django_db
def test_it_stores_the_lengths_families_and_mode():
    tasks = [a_task(human_minutes=30, family="django"), a_task("plain")]
    registry_load(data=a_registry([a_suite(horizon_mode="cross_domain", tasks=tasks)]))
    assert Suite.objects.get(slug="solo-bench").horizon_mode == "cross_domain"
    stored = {t.task_id: (t.human_minutes, t.family) for t in Task.objects.all()}
    assert stored == {"solve-it": (30.0, "django"), "plain": (None, "")}
    # The default mode is headline.
    registry_load(data=a_registry([a_suite(tasks=tasks)]))
    assert Suite.objects.get(slug="solo-bench").horizon_mode == "headline"


def test_it_names_the_methodologys_modes():
    from ingestion.bundles.limits import HORIZON_MODES
    from leaderboard.methodology.time_horizon import MODES

    assert set(HORIZON_MODES) == set(MODES)
