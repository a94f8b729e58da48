"""The release gate on real sessions of two versions: its three answers, the command's
exit status and table, the API and the release page."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from leaderboard.management.commands.release_gate import Command as ReleaseGateCommand
from leaderboard.methodology.release_gate import MIN_SESSIONS, USAGE_ERROR
from tests.leaderboard.signalboard.helpers import EXACT
from tests.leaderboard.signalboard.release_builders import (
    AFTER,
    BEFORE,
    HARNESS,
    nir_difference_interval,
    publish_release,
)

API = f"/api/v1/signals/releases/{HARNESS}/gate/"
# 27 of 30 confirmed before, 10 of 30 after: the NIR falls by 56.7 points, its interval
# wholly below −2 points (hand-checked in release_builders).
REGRESSION = ((27, 30), (10, 30))
STEADY = ((15, 30), (15, 30))
TOO_FEW = ((15, 30), (15, MIN_SESSIONS - 1))


def gate(*extra: str) -> tuple[int, str]:
    """(exit status, stdout) of `release_gate` run as a CI job runs it."""
    out = StringIO()
    try:
        call_command(
            "release_gate", HARNESS, "--before", BEFORE, "--after", AFTER, *extra, stdout=out
        )
    except SystemExit as exit_:
        return exit_.code, out.getvalue()
    return 0, out.getvalue()


def figures(body: dict) -> dict[str, dict]:
    return {figure["figure"]: figure for figure in body["figures"]}


def test_a_regression_past_the_margin_fails_with_exit_status_1(registry, staff):
    publish_release(staff, *REGRESSION)
    status, out = gate("--json")
    body = json.loads(out)
    nir = figures(body)["net_improvement"]
    value, low, high = nir_difference_interval(*REGRESSION)
    assert (nir["difference"], nir["low"], nir["high"]) == (
        pytest.approx(value, **EXACT),
        pytest.approx(low, **EXACT),
        pytest.approx(high, **EXACT),
    )
    assert high < -nir["margin"]
    assert (status, body["verdict"], nir["verdict"]) == (1, "fail", "fail")
    assert figures(body)["confirmed_success"]["verdict"] == "fail"


def test_a_steady_release_passes_with_exit_status_0(registry, staff):
    publish_release(staff, *STEADY)
    status, out = gate()
    value, low, high = nir_difference_interval(*STEADY)
    assert (value, status) == (0, 0)
    assert low < 0 < high
    assert "release gate: pass" in out
    # The table: a line per figure, with its difference and margin.
    assert "Net improvement (NIR)" in out and "fails below -2.0 pp" in out
    assert "Bash recovery" in out and "not enough data: no interval" in out  # no episodes


def test_fewer_sessions_than_the_minimum_is_not_enough_data_with_exit_status_2(registry, staff):
    publish_release(staff, *TOO_FEW)
    status, out = gate("--json")
    body = json.loads(out)
    assert (status, body["verdict"], body["exit_status"]) == (2, "not_enough_data", 2)
    assert {f["verdict"] for f in body["figures"]} == {"not_enough_data"}


def test_a_version_without_sessions_is_a_usage_error_with_exit_status_3(registry, staff):
    publish_release(staff, *STEADY)
    with pytest.raises(CommandError, match="has no sessions") as raised:
        call_command("release_gate", HARNESS, "--before", BEFORE, "--after", "9.9")
    assert raised.value.returncode == USAGE_ERROR


def test_a_bad_argument_on_the_command_line_exits_3_not_2(capsys):
    # argparse's own exit status, 2, would read as "not enough data" to a CI job.
    with pytest.raises(SystemExit) as raised:
        ReleaseGateCommand().run_from_argv(["manage.py", "release_gate", HARNESS])
    assert raised.value.code == USAGE_ERROR
    assert "--before" in capsys.readouterr().err


def test_the_api_answers_the_same_verdict_as_the_command(registry, staff):
    publish_release(staff, *REGRESSION)
    response = APIClient().get(API, {"before": BEFORE, "after": AFTER})
    assert response.status_code == 200
    _, out = gate("--json")
    body = response.json()
    assert body["verdict"] == "fail" and body["exit_status"] == 1
    assert body["figures"] == json.loads(out)["figures"]


def test_the_api_says_why_versions_cannot_be_compared(registry, staff):
    publish_release(staff, *STEADY)
    assert APIClient().get(API, {"after": "9.9"}).status_code == 400
    assert APIClient().get("/api/v1/signals/releases/NoSuch/gate/").status_code == 404


def test_the_release_page_shows_the_gate(client, registry, staff):
    publish_release(staff, *REGRESSION)
    content = client.get(f"/signals/releases/{HARNESS}/").content.decode()
    assert 'Release gate: <span class="gate-fail">fail</span>' in content
    assert 'href="/methodology/#release-gate"' in content
    assert f'href="{API}?before={BEFORE}&amp;after={AFTER}"' in content


def test_the_methodology_page_states_the_rule(client, db):
    content = client.get("/methodology/").content.decode()
    assert 'id="release-gate"' in content
    assert "below -2.0 pp" in content and "above +1.0 pp" in content


def test_the_gate_api_is_in_the_openapi_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/v1/signals/releases/{harness}/gate/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"harness", "before", "after"}
    assert set(operation["responses"]) >= {"200", "400", "404"}
