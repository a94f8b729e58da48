from __future__ import annotations

from django.urls import path

from leaderboard.boards import api, views
from leaderboard.signalboard import api as signals_api
from leaderboard.signalboard import views as signals_views

urlpatterns = [
    path("", views.home, name="home"),
    path("api/v1/boards/", api.BoardListApi.as_view(), name="api-boards"),
    path("api/v1/boards/<str:slug>/", api.BoardDetailApi.as_view(), name="api-board-detail"),
    path("api/v1/signals/", signals_api.SignalListApi.as_view(), name="api-signals"),
    path("api/v1/runs/<int:pk>/", api.RunDetailApi.as_view(), name="api-run-detail"),
    # Pages. Downloads are files of their own (export.csv / export.json) so that a
    # plain link saves them with the right extension.
    path("boards/<str:slug>/", views.board, name="board"),
    path("boards/<str:slug>/export.<str:fmt>", views.board_export, name="board-export"),
    # Model names may hold a "/" (provider/model), so the model is the last segment.
    path("agents/<str:harness>/<str:version>/<path:model>/", views.agent, name="agent"),
    path("runs/<int:pk>/", views.run, name="run"),
    path("methodology/", views.methodology, name="methodology"),
    path("signals/", signals_views.signals, name="signals"),
]
