"""/methodology/'s trajectory and rule-violation sections: the anchors every page links
to, the figure table from ingestion.traces, the worked example's numbers from the code,
and each suite's rules from the database."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ingestion.models import Suite
from ingestion.traces import (
    FIGURE_KEYS,
    FIGURES,
    reference_calls_parse,
    run_trace,
    trace_spec_parse,
)
from ingestion.traces.rule_spec import KIND_KEYS
from leaderboard.presentation.trajectory_example import value_text

ROOT = Path(__file__).resolve().parents[3]
AIRLINE = ROOT / "ingestion" / "fixtures" / "tau-bench-airline-suite.json"
# A methodology link in a template or in code, with a templated figure key after it.
_LINK = re.compile(r"methodology(?:_url }}|' %}|/)#((?:trajectory|rules)[-\w]*)(\{\{[^}]*}})?")


def _page(client) -> str:
    response = client.get("/methodology/")
    assert response.status_code == 200
    return response.content.decode()


def _ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


def _linked_anchors() -> set[str]:
    """Every #trajectory… and #rules… anchor of /methodology/ that a page or the API links
    to; a templated figure key stands for every figure key."""
    anchors: set[str] = set()
    sources = [*ROOT.joinpath("templates").rglob("*.html"), *ROOT.joinpath("leaderboard").rglob("*.py"),
               *ROOT.joinpath("ingestion").rglob("*.py")]  # fmt: skip
    for path in sources:
        for anchor, templated in _LINK.findall(path.read_text(encoding="utf-8")):
            if templated:
                anchors.update(anchor + key for key in FIGURE_KEYS)
            else:
                anchors.add(anchor)
    return anchors


@pytest.mark.django_db
def test_it_has_every_trajectory_and_rules_anchor_the_pages_link_to(client):
    linked = _linked_anchors()
    assert {"trajectory", "rules", "trajectory-pairing", "trajectory-tool_f1",
            "trajectory-write_in_order_args"} <= linked  # fmt: skip
    missing = linked - _ids(_page(client))
    assert not missing, sorted(missing)


@pytest.mark.django_db
def test_it_places_both_sections_after_latency_and_lists_them_in_the_contents(client):
    page = _page(client)
    latency = page.index('<h2 id="latency">')
    trajectory = page.index('<h2 id="trajectory">Trajectory against reference calls</h2>')
    rules = page.index('<h2 id="rules">Rule violations</h2>')
    assert latency < trajectory < rules < page.index('<h2 id="intervals">')
    contents = page.split('aria-label="On this page"')[1].split("</nav>")[0]
    assert 'href="#trajectory"' in contents and 'href="#rules"' in contents
    for anchor in ("trajectory-arguments", "trajectory-example", "trajectory-calls"):
        assert f'id="{anchor}"' in page


@pytest.mark.django_db
def test_it_renders_one_table_row_per_figure_in_the_table_s_order(client):
    page = _page(client)
    rows = re.findall(r'<tr id="trajectory-([\w]+)">(.*?)</tr>', page, re.S)
    assert [key for key, _ in rows] == list(FIGURE_KEYS)
    for figure, (_, row) in zip(FIGURES, rows, strict=True):
        assert html.escape(figure.label) in row and html.escape(figure.definition) in row
        kind = "share of runs" if figure.kind == "rate" else "mean over runs"
        assert kind in row, figure.key
        for name in (figure.vertex, figure.agentevals):
            if name:
                assert f"<code>{name}</code>" in row
    by_key = dict(rows)
    assert "<code>trajectory_exact_match</code>" in by_key["exact_names"]
    assert "<code>strict</code>" in by_key["exact_args"]
    assert "<code>superset</code>" in by_key["any_order_names"]
    assert "<code>unordered</code>" in by_key["same_calls_names"]
    assert "<code>subset</code>" in by_key["no_extras_args"]
    assert "<code>trajectory_in_order_match</code>" in by_key["in_order_names"]
    assert "<code>trajectory_precision</code>" in by_key["tool_precision"]
    assert "<code>trajectory_recall</code>" in by_key["tool_recall"]


def _example_figures() -> dict[str, float | None]:
    """The page's example built here through ingestion.traces, independently of the view."""
    spec = trace_spec_parse(
        {"write_tools": ["book_reservation", "send_certificate"], "ignored_tools": ["think"],
         "arguments": {"default": "exact"}, "extra_arguments": "ignored"},
        [],
    )  # fmt: skip
    reference = reference_calls_parse(
        [{"tool": "get_user_details", "arguments": {"user_id": "u1"}},
         {"tool": "book_reservation", "arguments": {"user_id": "u1", "amount": 250}},
         {"tool": "send_certificate", "arguments": {"user_id": "u1", "amount": 100}}],
        spec,
    )  # fmt: skip
    calls = [
        ("get_user_details", {"user_id": "u1"}, "{}"),
        ("think", {"thought": "…"}, ""),
        ("search_direct_flight", {"origin": "JFK", "destination": "SEA"}, "[]"),
        ("book_reservation", {"user_id": "u1", "amount": 250.0, "extra": "x"}, "{}"),
        ("get_user_details", {"user_id": "u1"}, "Error: too many requests"),
        ("send_certificate", {"user_id": "u1", "amount": 50}, "Certificate sent"),
    ]
    turns = []
    for tool, arguments, answer in calls:
        turns.append({"role": "assistant", "tool_calls": [{"tool": tool, "arguments": arguments}]})
        turns.append({"role": "tool", "text": answer})
    score = run_trace(turns, reference, spec).score
    assert score is not None
    assert (score.calls, score.failed_calls, score.ignored_calls) == (6, 1, 1)
    return score.figures


# Worked by hand, as the page's prose does.
_BY_HAND = {
    "tool_precision": 3 / 4, "tool_recall": 1.0, "tool_f1": 6 / 7,
    "exact_names": 0.0, "in_order_names": 1.0, "any_order_names": 1.0,
    "same_calls_names": 0.0, "no_extras_names": 0.0,
    "exact_args": 0.0, "in_order_args": 0.0, "any_order_args": 0.0,
    "same_calls_args": 0.0, "no_extras_args": 0.0,
    "argument_accuracy": 4 / 5,
    "write_tool_precision": 1.0, "write_tool_recall": 1.0, "write_tool_f1": 1.0,
    **{f"write_{variant}_names": 1.0
       for variant in ("exact", "in_order", "any_order", "same_calls", "no_extras")},
    **{f"write_{variant}_args": 0.0
       for variant in ("exact", "in_order", "any_order", "same_calls", "no_extras")},
    "write_argument_accuracy": 3 / 4,
}  # fmt: skip


def test_it_works_the_example_by_hand_to_the_code_s_numbers():
    figures = _example_figures()
    assert figures.keys() == _BY_HAND.keys()
    for key, value in _BY_HAND.items():
        assert figures[key] == pytest.approx(value), key


@pytest.mark.django_db
def test_it_prints_the_example_s_figures_as_the_code_computes_them(client):
    page = _page(client)
    start = page.index('id="trajectory-example"')
    section = page[start : page.index('<h2 id="rules">', start)]
    printed = dict(
        re.findall(r'<tr data-figure="(\w+)">.*?<td class="num">([^<]*)</td>', section, re.S)
    )
    figures = _example_figures()
    assert printed == {figure.key: value_text(figure, figures[figure.key]) for figure in FIGURES}
    assert printed["tool_f1"] == "0.857" and printed["write_argument_accuracy"] == "0.750"
    assert printed["in_order_names"] == "pass (1)" and printed["in_order_args"] == "fail (0)"
    for status in ("ignored tool", "failed (not counted)", "extra", "arguments differ (amount)"):
        assert f"<td>{status}</td>" in section


def _rules_section(page: str) -> str:
    start = page.index('<h2 id="rules">')
    return page[start : page.index("<h2 ", start + 1)]


@pytest.mark.django_db
def test_it_describes_every_rule_kind_and_reports_counts_not_rates(client):
    section = _rules_section(_page(client))
    for kind in KIND_KEYS:
        assert f'id="rule-kind-{kind}"' in section
    assert "count of runs" in section and "never" in section and "compliance rate" in section
    assert "No suite states rules yet." in section


@pytest.mark.django_db
def test_it_lists_each_suite_s_rules_from_the_database_escaped(client):
    rules = [
        {"id": "no-refunds", "title": "Never refund <script>alert(1)</script>",
         "kind": "forbidden_tool", "tools": ["refund"], "source": "Refunds & <b>credits</b> are manual."},
        {"id": "one-at-a-time", "title": "One call per turn.", "kind": "max_calls_per_turn", "max": 1},
    ]  # fmt: skip
    Suite.objects.create(slug="ruled", version="2.0", name="Ruled suite", rules=rules)
    Suite.objects.create(slug="unruled", version="1.0", name="Unruled suite")
    section = _rules_section(_page(client))
    assert 'id="rules-ruled-2.0"' in section and "The rules of Ruled suite 2.0" in section
    assert "Unruled suite" not in section
    assert "<code>no-refunds</code>" in section and "<code>one-at-a-time</code>" in section
    assert '<a href="#rule-kind-forbidden_tool"><code>forbidden_tool</code></a>' in section
    assert "Never refund &lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "<script>alert" not in section
    assert '"Refunds &amp; &lt;b&gt;credits&lt;/b&gt; are manual."' in section
    assert "No suite states rules yet." not in section


@pytest.mark.django_db
def test_it_reads_the_suites_rules_in_one_query_however_many_suites(client):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _page(client)
        return len(captured)

    rule = {"id": "r", "title": "T", "kind": "max_calls_per_turn", "max": 1}
    Suite.objects.create(slug="a", version="1", name="A", rules=[rule])
    one = queries()
    for slug in ("b", "c", "d"):
        Suite.objects.create(slug=slug, version="1", name=slug.upper(), rules=[rule])
    assert queries() == one


@pytest.mark.django_db
def test_it_shows_the_tau_bench_airline_rules_with_their_policy_sentences(client):
    suite = json.loads(AIRLINE.read_text(encoding="utf-8"))
    Suite.objects.create(slug=suite["slug"], version=suite["version"], name=suite["name"],
                         official=True, rules=suite["rules"])  # fmt: skip
    section = _rules_section(_page(client))
    for rule in suite["rules"]:
        assert f"<code>{rule['id']}</code>" in section
        assert html.escape(rule["title"]) in section
        assert html.escape(rule["source"]) in section


@pytest.mark.django_db
def test_it_defines_the_new_glossary_terms(client):
    page = _page(client)
    glossary = page[page.index('id="glossary"') : page.index("</dl>", page.index('id="glossary"'))]
    for term, anchor in (("Trajectory figure", "trajectory"), ("Reference call", "trajectory"),
                         ("Rule violation", "rules")):  # fmt: skip
        slug = term.lower().replace(" ", "-")
        assert f'<dt id="glossary-{slug}">{term}</dt>' in glossary
        entry = glossary.split(f'id="glossary-{slug}"')[1].split("</dd>")[0]
        assert f'href="#{anchor}"' in entry
