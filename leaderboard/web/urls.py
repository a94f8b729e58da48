from __future__ import annotations

from django.urls import path, re_path, register_converter

from leaderboard.converters import ModelPathConverter, NameSegmentConverter
from leaderboard.web import (
    agent,
    board,
    changes,
    compare,
    effects,
    methodology,
    preview,
    release,
    run,
    safety,
    search,
)
from leaderboard.web.api import board as board_api
from leaderboard.web.api import changes as changes_api
from leaderboard.web.api import compare as compare_api
from leaderboard.web.api import effects as effects_api
from leaderboard.web.api import release as release_api
from leaderboard.web.api import safety as safety_api
from leaderboard.web.api import signals as signals_api
from leaderboard.web.signals import views as signals

register_converter(NameSegmentConverter, "name")
register_converter(ModelPathConverter, "model")

urlpatterns = [
    path("", board.home, name="home"),
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
    # One agent before and after a release; the harness name escaped as in
    # the agent pages (NameSegmentConverter).
    path(
        "api/v1/signals/releases/<name:harness>/",
        release_api.SignalReleaseApi.as_view(),
        name="api-signal-release",
    ),
    path("api/v1/compare/", compare_api.CompareApi.as_view(), name="api-compare"),
    path("api/v1/runs/<int:pk>/", board_api.RunDetailApi.as_view(), name="api-run-detail"),
    # Pages. Downloads are files of their own (export.csv / export.json) so that a
    # plain link saves them with the right extension.
    re_path(r"^boards/(?P<slug>[^/]+-safety)/$", safety.safety, name="safety-board"),
    re_path(
        r"^boards/(?P<slug>[^/]+-safety)/export\.csv$", safety.safety_export, name="safety-export"
    ),
    path("boards/<str:slug>/", board.board, name="board"),
    path("boards/<str:slug>/export.<str:fmt>", board.board_export, name="board-export"),
    path("boards/<str:slug>/harnesses/", effects.board_harnesses, name="board-harnesses"),
    path("boards/<str:slug>/changes/", changes.board_changes, name="board-changes"),
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
    path("runs/<int:pk>/", run.run, name="run"),
    # A submission's would-be board rows, for its submitter and the staff.
    path(
        "submissions/<int:pk>/preview/",
        preview.submission_preview_page,
        name="submission-preview",
    ),
    path("methodology/", methodology.methodology, name="methodology"),
    path("signals/", signals.signals, name="signals"),
    path("signals/releases/<name:harness>/", release.signal_release, name="signal-release"),
    # Two agents on one board (?board=&a=&b=), or two signal models (?signals=1&a=&b=).
    path("compare/", compare.compare, name="compare"),
]
