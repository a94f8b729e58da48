"""Every module of both apps stands in its app's layers contract (pyproject.toml): a
module left out of the layers would be free to import anything, and cycles hide there."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _contracts() -> list[dict]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["tool"]["importlinter"]["contracts"]


def _layered(app: str) -> set[str]:
    names: set[str] = set()
    for contract in _contracts():
        if contract["type"] == "layers" and contract.get("containers") == [app]:
            for layer in contract["layers"]:
                names.update(part.strip() for part in layer.replace(":", "|").split("|"))
    return names


def _modules(app: str) -> set[str]:
    """The app's direct submodules and subpackages."""
    folder = ROOT / app
    files = {path.stem for path in folder.glob("*.py") if path.stem != "__init__"}
    packages = {path.parent.name for path in folder.glob("*/__init__.py")}
    return files | packages


@pytest.mark.parametrize("app", ["ingestion", "leaderboard"])
def test_every_module_of_the_app_is_in_a_layer(app: str) -> None:
    assert _modules(app) - _layered(app) == set()


@pytest.mark.parametrize("app", ["ingestion", "leaderboard"])
def test_every_layer_names_a_module_that_exists(app: str) -> None:
    assert _layered(app) - _modules(app) == set()


# The rooms below the web layer: compute, selectors and services only. import-linter
# cannot forbid a part of an external package, so this reads their imports itself (lazy
# ones inside functions too).
ROOMS = [
    "leaderboard/boards", "leaderboard/signalboard", "leaderboard/compare",
    "leaderboard/effects", "leaderboard/history", "leaderboard/recompute",
    "leaderboard/moderation", "leaderboard/models", "leaderboard/presentation",
    "leaderboard/alerts",
    "ingestion/services",
]  # fmt: skip
INTERFACE_MODULES = ("django.urls", "django.shortcuts", "django.template", "django.http")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("room", ROOMS)
def test_no_room_imports_urls_views_or_templates(room: str) -> None:
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / room).rglob("*.py")
        for name in _imports(path)
        if name.startswith(INTERFACE_MODULES) or name.startswith("leaderboard.templatetags")
    }
    assert found == set()
