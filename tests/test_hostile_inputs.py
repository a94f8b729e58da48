"""Odd inputs end in a named error (or simply work), never in a 500 or "internal error":
NUL characters in URLs, JSON nested thousands of levels deep, unknown keys holding
quotes and backslashes, a FIFO in a directory given to the command line, and "/" in
harness names, versions and models; manifests and results files no honest bundle holds."""

from __future__ import annotations

import json
import os
import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from ingestion.bundles import BundleRejected
from ingestion.bundles.limits import JSON_DEPTH_MAX
from ingestion.models import Harness, Person, Run, Submission
from ingestion.services.intake import submission_ingest
from ingestion.services.people import people_ensure
from leaderboard.recompute.services import boards_recompute
from tests.builders import harness_manifest, run_line, submit, tar_gz_bundle
from tests.ingestion.importers.builders import (
    harbor,
    job_folder,
    read_back,
    tau,
    tau_result,
    trial_result,
    write_tau,
)

DEEP = 5_000  # far past what a recursive parser survives (about 1,000)
TOO_DEEP = f"is nested more than {JSON_DEPTH_MAX} levels deep"

# ------------------------------------------------------------------- NUL in URLs

# One value per path converter, so that every route can be requested.
SAMPLES = {"int": "1", "str": "x", "slug": "x", "path": "x/y", "name": "x", "model": "x/y"}
_PARAMETER = re.compile(r"<(?:(\w+):)?\w+>")


def routes(patterns=None, prefix: str = "") -> list[str]:
    """A requestable path for every route of the site outside the admin."""
    paths = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        if route.startswith(("admin/", "^")):
            continue  # the admin's own patterns: its changelists are listed below
        route = _PARAMETER.sub(lambda m: SAMPLES[m[1] or "str"], route)
        if isinstance(entry, URLResolver):
            paths += routes(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            paths.append("/" + prefix + route)
    return paths


def admin_pages() -> list[str]:
    changelists = [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model in admin.site._registry
    ]
    return [reverse("admin:index"), *changelists]


@pytest.fixture
def root_client(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw-root"))
    return client


def test_it_covers_the_pages_named_in_the_issue():
    assert {"/", "/boards/x/", "/api/v1/boards/", "/signals/", "/submit/"} <= set(routes())
    assert "/admin/ingestion/run/" in admin_pages()


@pytest.mark.django_db
def test_it_refuses_a_nul_in_the_query_of_every_page_api_and_admin_list(root_client):
    for url in routes() + admin_pages():
        for query in ("model=%00", "q=%00", "o=1%00", "%00=1", "harness=a%00b&sort=rank"):
            response = root_client.get(f"{url}?{query}")
            assert response.status_code == 400, (url, query, response.status_code)
            assert b"NUL" in response.content


@pytest.mark.django_db
def test_it_refuses_a_nul_in_the_path(client):
    for url in ("/boards/%00/", "/agents/a%00/1/m/", "/api/v1/boards/x%00/"):
        assert client.get(url).status_code == 400, url


@pytest.mark.django_db
def test_it_answers_an_api_refusal_in_json(client):
    response = client.get("/api/v1/boards/?format=json%00")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


@pytest.mark.django_db
def test_it_still_answers_ordinary_queries(client, root_client):
    assert client.get("/boards/overall/?model=frontier-large&q=%2500").status_code == 200
    assert root_client.get("/admin/ingestion/run/?q=fix-git").status_code == 200


# ------------------------------------------------------------ "/" in agent names


@pytest.mark.parametrize(
    ("harness", "version", "model"),
    [
        ("Team/Agent", "release/2.1", "acme/large-1"),
        ("Tilde~2F", "..", "."),
        ("Plain", "1.0", "a/b/c"),
    ],
)
def test_it_routes_any_agent_name_back_to_itself(harness, version, model):
    url = reverse("agent", args=[harness, version, model])
    assert resolve(url).kwargs == {"harness": harness, "version": version, "model": model}
    assert "/../" not in url and "/./" not in url


@pytest.mark.django_db
def test_it_links_an_agent_whose_version_holds_a_slash_to_its_page(client, registry, staff):
    runs = [run_line("r-1", model="acme/large-1")]
    submit(staff, runs, harness="Team/Agent", version="release/2.1")
    boards_recompute()

    board = client.get("/boards/overall/").content.decode()
    (href,) = re.findall(r'href="(/agents/[^"]+)"', board)
    assert href == "/agents/Team~2FAgent/release~2F2.1/acme/large-1/"
    page = client.get(href)
    assert page.status_code == 200
    assert "release/2.1" in page.content.decode()
    run = Run.objects.get()
    assert href in client.get(f"/runs/{run.pk}/").content.decode()


# -------------------------------------------------------- unknown keys, odd names


@pytest.mark.django_db
def test_it_keeps_unknown_keys_with_quotes_and_backslashes_in_extra(registry, staff):
    odd = {'say "hi"': 1, "back\\slash": [2], "tab\there": {"x": 3}, "plain": 4}
    runs = [run_line(f"r-{i}", trial=i + 1, **odd) for i in range(3)]  # each line has them
    sessions = [
        {
            "session_id": f"s-{i}",
            "model": "frontier-large",
            "turns": [{"role": "user", "text": "hi"}],
            **odd,
        }
        for i in range(2)
    ]
    bundle = tar_gz_bundle(harness_manifest("Odd"), runs, sessions)

    submission, _ = submission_ingest(upload=bundle, user=staff)

    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert [run.extra for run in Run.objects.order_by("run_id")] == [odd] * 3
    assert [s.extra for s in submission.sessions.all()] == [odd] * 2


# ---------------------------------------------------------------- deep nesting


def deep_json(depth: int = DEEP) -> bytes:
    """JSON text nested `depth` levels (no encoder writes it: they recurse too)."""
    return b'{"a": [' * (depth // 2) + b"1" + b"]}" * (depth // 2)


def with_deep(value) -> bytes:
    return json.dumps(value).encode().replace(b'"<deep>"', deep_json())


def jsonl(*lines: bytes) -> bytes:
    return b"".join(line + b"\n" for line in lines)


MANIFEST = json.dumps(harness_manifest("Deep")).encode()
SESSIONS_MANIFEST = json.dumps({"format": "arena-bundle/1"}).encode()

DEEP_BUNDLES = {
    "runs.jsonl": lambda: tar_gz_bundle(
        None,
        extra_files={
            "manifest.json": MANIFEST,
            "runs.jsonl": jsonl(with_deep(run_line(verifier="<deep>"))),
        },
    ),
    "sessions.jsonl": lambda: tar_gz_bundle(
        None,
        extra_files={
            "manifest.json": SESSIONS_MANIFEST,
            "sessions.jsonl": jsonl(
                with_deep({"session_id": "s", "model": "m", "turns": "<deep>"})
            ),
        },
    ),
    "manifest.json": lambda: tar_gz_bundle(
        None,
        [run_line()],
        extra_files={"manifest.json": with_deep({**harness_manifest("Deep"), "notes": "<deep>"})},
    ),
    "trajectories/r-1.json": lambda: tar_gz_bundle(
        harness_manifest("Deep"),
        [run_line(trajectory="trajectories/r-1.json")],
        extra_files={"trajectories/r-1.json": with_deep([{"role": "user", "meta": "<deep>"}])},
    ),
    "bundle.json": lambda: with_deep(
        {"manifest": harness_manifest("Deep"), "runs": [run_line(verifier="<deep>")]}
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("file", sorted(DEEP_BUNDLES))
def test_it_names_json_nested_too_deeply_in_every_bundle_file(file, registry, staff):
    submission, _ = submission_ingest(
        upload=DEEP_BUNDLES[file](), user=staff, filename="bundle.json"
    )

    assert submission.status == Submission.Status.REJECTED
    messages = [f"{e['file']}: {e['message']}" for e in submission.errors]
    assert any(TOO_DEEP in message for message in messages), messages
    assert not any("internal error" in message for message in messages)
    assert any(message.startswith(file) for message in messages), messages


def test_it_names_a_harbor_result_nested_too_deeply(tmp_path):
    job = job_folder(tmp_path, {"a__1": trial_result()})
    result = job / "a__1" / "result.json"
    result.write_bytes(with_deep({**json.loads(result.read_text()), "config": "<deep>"}))

    with pytest.raises(BundleRejected) as info:
        harbor(job, tmp_path / "out.tar.gz")

    assert any(TOO_DEEP in str(error) for error in info.value.errors), info.value


def test_it_names_a_tau_bench_item_nested_too_deeply(tmp_path):
    path = write_tau(tmp_path, [tau_result(0), tau_result(1, info="<deep>")])
    path.write_bytes(path.read_bytes().replace(b'"<deep>"', deep_json()))

    with pytest.raises(BundleRejected, match=TOO_DEEP):
        tau(path, tmp_path / "out.tar.gz")


def test_it_keeps_tau_bench_arguments_too_deep_to_parse_as_text(tmp_path):
    result = tau_result(0)
    call = result["traj"][2]["tool_calls"][0]["function"]
    call["arguments"] = deep_json().decode()

    tau(write_tau(tmp_path, [result]), tmp_path / "out.tar.gz")  # converted, not refused

    [run] = read_back(tmp_path / "out.tar.gz")[1]
    [converted] = [c for turn in run.trajectory for c in turn.get("tool_calls", [])]
    assert converted["arguments"] == {"raw": deep_json().decode()}


# -------------------------------------------------------------- FIFO in a folder


@pytest.mark.django_db
def test_it_refuses_a_folder_holding_a_fifo_by_naming_it(registry, staff, tmp_path, capsys):
    folder = tmp_path / "bundle"
    (folder / "trajectories").mkdir(parents=True)
    (folder / "manifest.json").write_bytes(MANIFEST)
    (folder / "runs.jsonl").write_text(json.dumps(run_line()) + "\n")
    os.mkfifo(folder / "trajectories" / "r-1.json")

    with pytest.raises(SystemExit):
        call_command("ingest", str(folder), user="staff")

    submission = Submission.objects.get()
    assert submission.status == Submission.Status.REJECTED
    assert [e["message"] for e in submission.errors] == [
        "member 'trajectories/r-1.json' is a FIFO; only regular files and directories are allowed"
    ]
    assert "trajectories/r-1.json" in capsys.readouterr().err


# ------------------------------------------------------------- manifest gaps


def rejected_messages(bundle: bytes, user) -> list[str]:
    submission, _ = submission_ingest(upload=bundle, user=user)
    assert submission.status == Submission.Status.REJECTED
    return [f"{e['file']}: {e['field']}: {e['message']}" for e in submission.errors]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("harness", "words"),
    [
        ({"url": "javascript:alert(document.cookie)"}, "harness.url: must be an http://"),
        ({"version": ".."}, "harness.version: may only contain"),
        ({"name": "Two\nLines"}, "harness.name: must be printable text"),
        ({"name": "   "}, "harness.name: must be printable text, not blank"),
        ({"name": "\u200b\u200b"}, "harness.name: must be printable text, not blank"),
        ({"name": "Quill\u202eevil"}, "harness.name: must be printable text, not blank"),
        ({"contributors": [f"p{i}" for i in range(20_000)]}, "at most 100 items (got 20000)"),
    ],
    ids=[
        "javascript-url",
        "dotdot-version",
        "newline-name",
        "blank-name",
        "invisible-name",
        "reversing-name",
        "20000-people",
    ],
)
def test_it_refuses_a_manifest_no_honest_harness_has_and_stores_nothing(
    harness, words, registry, staff
):
    manifest = harness_manifest("Gap")
    manifest["harness"].update(harness)
    messages = rejected_messages(tar_gz_bundle(manifest, [run_line()]), staff)

    assert len(messages) == 1 and words in messages[0], messages
    assert not Run.objects.exists()
    assert not Harness.objects.filter(url__startswith="javascript").exists()
    assert not Person.objects.filter(handle__startswith="p").exists()


@pytest.mark.django_db
def test_it_refuses_a_bundle_whose_runs_file_is_blank(registry, staff):
    bundle = tar_gz_bundle(None, extra_files={"manifest.json": MANIFEST, "runs.jsonl": b"\n \n"})
    assert rejected_messages(bundle, staff) == [
        "runs.jsonl: : holds no runs: it is empty or blank (leave it out if the bundle has none)"
    ]


@pytest.mark.django_db
def test_it_writes_a_hundred_contributors_at_once(registry, staff, django_assert_max_num_queries):
    handles = [f"dev.{i:03}" for i in range(100)]
    submission = submit(staff, [run_line()], harness="Crowd", contributors=handles)

    assert sorted(submission.harness.contributors.values_list("handle", flat=True)) == handles
    with django_assert_max_num_queries(4):  # a savepoint, one INSERT, one SELECT, release
        people_ensure(handles=[*handles, "dev.new"])
    assert Person.objects.filter(handle__startswith="dev.").count() == 101


@pytest.mark.slow
@pytest.mark.django_db
def test_it_lands_a_session_of_200000_short_turns(staff):
    said = [{"role": "user", "text": "ok"}, {"role": "assistant", "text": "ok"}]
    session = {"session_id": "s-long", "model": "frontier-large", "turns": said * 100_000}
    bundle = tar_gz_bundle(None, None, [session], extra_files={"manifest.json": SESSIONS_MANIFEST})
    assert len(json.dumps(session)) > 200 * len(bundle)  # past the 100:1 ratio

    submission, _ = submission_ingest(upload=bundle, user=staff)

    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert submission.sessions.get().turns.count() == 200_000
