from __future__ import annotations

from django.urls import path, re_path, register_converter

from leaderboard.converters import ModelPathConverter, NameSegmentConverter
from leaderboard.web import (
    agent,
    board,
    board_tasks,
    changes,
    compare,
    effects,
    feeds,
    follows,
    home,
    methodology,
    preview,
    release,
    run,
    safety,
    search,
    sitemaps,
    task,
)
from leaderboard.web.api import board as board_api
from leaderboard.web.api import changes as changes_api
from leaderboard.web.api import compare as compare_api
from leaderboard.web.api import effects as effects_api
from leaderboard.web.api import release as release_api
from leaderboard.web.api import release_gate as release_gate_api
from leaderboard.web.api import safety as safety_api
from leaderboard.web.api import signals as signals_api
from leaderboard.web.api import validation as validation_api
from leaderboard.web.signals import model as signal_model
from leaderboard.web.signals import validation as signal_validation
from leaderboard.web.signals import views as signals

register_converter(NameSegmentConverter, "name")
register_converter(ModelPathConverter, "model")

urlpatterns = [
    # What Arena ranks, every board's leaders; the Overall board is /boards/overall/.
    path("", home.home, name="home"),
    path("robots.txt", sitemaps.robots_txt, name="robots"),
    path("sitemap.xml", sitemaps.sitemap_xml, name="sitemap"),
    path("api/v1/boards/", board_api.BoardListApi.as_view(), name="api-boards"),
    # A suite board's safety board, `<suite board>-safety` (leaderboard.boards.catalogue).
    path(
        "api/v1/safety-boards/<str:slug>/",
        safety_api.SafetyBoardApi.as_view(),
        name="api-safety-board",
    ),
    path("api/v1/boards/<str:slug>/", board_api.BoardDetailApi.as_view(), name="api-board-detail"),
    path(
        "api/v1/boards/<str:slug>/changes/",
        changes_api.BoardChangesApi.as_view(),
        name="api-board-changes",
    ),
    path(
        "api/v1/boards/<str:slug>/harnesses/",
        effects_api.BoardEffectsApi.as_view(),
        name="api-board-harnesses",
    ),
    path("api/v1/signals/", signals_api.SignalListApi.as_view(), name="api-signals"),
    path(
        "api/v1/signals/validation/",
        validation_api.SignalValidationApi.as_view(),
        name="api-signals-validation",
    ),
    # One agent before and after a release; the harness name escaped as in
    # the agent pages (NameSegmentConverter).
    path(
        "api/v1/signals/releases/<name:harness>/",
        release_api.SignalReleaseApi.as_view(),
        name="api-signal-release",
    ),
    path(
        "api/v1/signals/releases/<name:harness>/gate/",
        release_gate_api.SignalReleaseGateApi.as_view(),
        name="api-signal-release-gate",
    ),
    path("api/v1/compare/", compare_api.CompareApi.as_view(), name="api-compare"),
    path("api/v1/runs/<int:pk>/", board_api.RunDetailApi.as_view(), name="api-run-detail"),
    # Pages. Downloads are files of their own (export.csv / export.json) so that a
    # plain link saves them with the right extension.
    # A category's board is never one ("category-safety" is the board of a category
    # "safety"): no suite slug begins with "category" (ingestion.aggregate_boards).
    re_path(r"^boards/(?P<slug>(?!category-)[^/]+-safety)/$", safety.safety, name="safety-board"),
    re_path(
        r"^boards/(?P<slug>(?!category-)[^/]+-safety)/export\.csv$",
        safety.safety_export,
        name="safety-export",
    ),
    path("boards/<str:slug>/", board.board, name="board"),
    path("boards/<str:slug>/export.<str:fmt>", board.board_export, name="board-export"),
    path("boards/<str:slug>/harnesses/", effects.board_harnesses, name="board-harnesses"),
    path("boards/<str:slug>/changes/", changes.board_changes, name="board-changes"),
    # The board's tasks, the hardest first.
    path("boards/<str:slug>/tasks/", board_tasks.board_tasks, name="board-tasks"),
    # A task of a suite version; task ids may hold "/" ("cpp/all-your-base"), so the id
    # is the last part of the path, escaped as model names are (ModelPathConverter).
    path("tasks/<str:suite>/<name:version>/<model:task_id>/", task.task, name="task"),
    # Every agent of the current snapshot, searchable (?q=).
    path("agents/", search.agents, name="agents"),
    # Model names may hold a "/" (provider/model), so the model is the last segment;
    # harness names and versions may too, and are escaped (NameSegmentConverter).
    path("agents/<name:harness>/<name:version>/<model:model>/", agent.agent, name="agent"),
    # An independent run of a harness (another account's runs, never pooled with the
    # maintainers'): a prefix of its own, so that no harness or model name collides.
    path(
        "independent/<name:account>/<name:harness>/<name:version>/<model:model>/",
        agent.agent,
        name="agent-independent",
    ),
    # Atom feeds of published changes (leaderboard.web.feeds).
    path("feeds/boards/<str:slug>/", feeds.BoardChangesFeed(), name="board-feed"),
    path(
        "feeds/agents/<name:harness>/<name:version>/<model:model>/",
        feeds.AgentChangesFeed(),
        name="agent-feed",
    ),
    path(
        "feeds/independent/<name:account>/<name:harness>/<name:version>/<model:model>/",
        feeds.AgentChangesFeed(),
        name="agent-independent-feed",
    ),
    path("feeds/signals/", feeds.SignalChangesFeed(), name="signals-feed"),
    path("feeds/signals/models/<model:model>/", feeds.SignalModelFeed(), name="signal-model-feed"),
    # Following an agent or a signal model (opt-in alert e-mails), and the e-mails'
    # unsubscribe link, which works without logging in.
    path("follows/agents/<int:harness>/<int:model>/", follows.follow_agent, name="follow-agent"),
    path("follows/signals/<int:model>/", follows.follow_signal_model, name="follow-signal-model"),
    path("alerts/unsubscribe/<str:token>/", follows.alerts_unsubscribe, name="alerts-unsubscribe"),
    path("runs/<int:pk>/", run.run, name="run"),
    # A submission's would-be board rows, for its submitter and the staff.
    path(
        "submissions/<int:pk>/preview/",
        preview.submission_preview_page,
        name="submission-preview",
    ),
    path("methodology/", methodology.methodology, name="methodology"),
    path("signals/", signals.signals, name="signals"),
    # Signal figures against benchmark pass rates, and a model's own signal page.
    path("signals/validation/", signal_validation.signal_validation, name="signals-validation"),
    path("signals/models/<model:model>/", signal_model.signal_model, name="signal-model"),
    path("signals/releases/<name:harness>/", release.signal_release, name="signal-release"),
    # Two agents on one board (?board=&a=&b=), or two signal models (?signals=1&a=&b=).
    path("compare/", compare.compare, name="compare"),
]
