"""The registry keeps every released version of every game's rules: by name it gives the
latest (what new games get), by name and version the release a game was created with."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest

import engine
from engine.core.registry import Registry, UnknownRules
from engine.lancaster import LANCASTER_1_0, LancasterRules
from engine.lancaster.data import BASE
from engine.lancelot import LANCELOT


def _lancaster(version: str) -> LancasterRules:
    return LancasterRules(version, replace(BASE, start_gold=int(version.split(".")[0])))


def test_the_latest_release_by_name_is_what_new_games_get() -> None:
    registry = Registry((_lancaster("10.0.0"), LANCASTER_1_0, _lancaster("9.1.0"), LANCELOT))
    assert registry["lancaster"].version == "10.0.0"  # 10 after 9: numbers, not text
    assert registry.versions("lancaster") == ("1.0.0", "9.1.0", "10.0.0")
    assert sorted(registry) == ["lancaster", "lancelot"] and len(registry) == 2


def test_a_release_is_found_by_name_and_version() -> None:
    registry = Registry((LANCASTER_1_0, _lancaster("2.0.0")))
    assert registry.release("lancaster", "1.0.0") is LANCASTER_1_0
    assert registry.release("lancaster", "2.0.0").version == "2.0.0"


def test_an_unknown_version_or_game_says_what_is_installed() -> None:
    registry = Registry((LANCASTER_1_0, LANCELOT))
    with pytest.raises(UnknownRules) as e:
        registry.release("lancaster", "0.9.0")
    assert str(e.value) == (
        "The rules of lancaster version 0.9.0 are not installed here (installed: 1.0.0); this "
        "game needs exactly the version it was created with."
    )
    with pytest.raises(UnknownRules, match=r"No rules named .chess.*lancaster, lancelot"):
        registry.release("chess", "1.0.0")
    with pytest.raises(KeyError):
        registry["chess"]


def test_two_different_rules_cannot_share_a_version() -> None:
    with pytest.raises(ValueError, match=r"two releases of lancaster 1\.0\.0"):
        Registry((LANCASTER_1_0, _lancaster("1.0.0")))
    with pytest.raises(ValueError, match="numbers and dots"):
        Registry((_lancaster("1.0.0"), LancasterRules("2.0-beta", BASE)))


def test_with_rules_adds_a_release_and_keeps_the_others() -> None:
    more = engine.REGISTRY.with_rules(_lancaster("99.0.0"))
    assert more["lancaster"].version == "99.0.0"
    assert more.release("lancaster", "1.0.0") is LANCASTER_1_0
    assert engine.REGISTRY["lancaster"].version != "99.0.0"  # the original is unchanged


def test_every_lancaster_release_is_registered() -> None:
    assert engine.REGISTRY.release("lancaster", "1.0.0") is LANCASTER_1_0


def test_a_games_releases_given_as_a_loader_are_imported_on_first_use() -> None:
    """``installed``: listing the games, or asking whether one is installed, calls no loader;
    asking for a game calls its loader once, and never another game's."""
    calls: list[str] = []

    def loader(name: str, *releases: Any) -> Any:
        def load() -> tuple[Any, ...]:
            calls.append(name)
            return releases

        return load

    registry = Registry(
        installed={
            "lancaster": loader("lancaster", LANCASTER_1_0, _lancaster("2.0.0")),
            "lancelot": loader("lancelot", LANCELOT),
        }
    )
    assert list(registry) == ["lancaster", "lancelot"] and len(registry) == 2
    assert "lancelot" in registry and "chess" not in registry
    assert calls == []
    assert registry["lancelot"] is LANCELOT
    assert registry.release("lancelot", LANCELOT.version) is LANCELOT
    assert calls == ["lancelot"]
    assert registry.versions("lancaster") == ("1.0.0", "2.0.0")
    assert calls == ["lancelot", "lancaster"]
    with pytest.raises(UnknownRules, match=r"No rules named .chess.*lancaster, lancelot"):
        registry.release("chess", "1.0.0")


def test_a_loader_that_gives_another_games_rules_is_refused() -> None:
    registry = Registry(installed={"lancaster": lambda: (LANCELOT,)})
    with pytest.raises(ValueError, match="the releases loaded for lancaster are of lancelot"):
        registry["lancaster"]
    with pytest.raises(ValueError, match="releases of lancelot given twice"):
        Registry((LANCELOT,), installed={"lancelot": lambda: (LANCELOT,)})


def test_the_installed_registry_imports_a_games_rules_only_when_asked_for_it() -> None:
    """A fresh interpreter (this one has imported every game): ``engine.REGISTRY`` lists
    both games without importing either, and asking for Lancelot leaves Lancaster out."""
    script = (
        "import sys, engine\n"
        "names = list(engine.REGISTRY)\n"
        "before = sorted(m for m in sys.modules if m.startswith(('engine.lancaster', "
        "'engine.lancelot')))\n"
        "engine.REGISTRY['lancelot']\n"
        "after = sorted({m.split('.')[1] for m in sys.modules if m.startswith(('engine.lanc'))})\n"
        "print(names, before, after)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
    assert done.stdout.decode().strip() == "['lancaster', 'lancelot'] [] ['lancelot']"
