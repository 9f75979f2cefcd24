"""The web layer knows games only through ``web.games``: every engine game has its entry in
``WEB_GAMES``, and no module or template of ``web/`` tests a game's name."""

from __future__ import annotations

import re
from pathlib import Path

import engine
from web.games import WEB_GAMES, WebGame

WEB = Path(__file__).resolve().parents[2] / "web"
GAME_NAMES = sorted(set(engine.REGISTRY) | set(WEB_GAMES))


#: a comparison with something called game (``g.game ==``, ``values["game"] !=``,
#: ``== loaded.game``), and a game's name in quotes beside ``==``, ``!=`` or ``in``
NAME_CHECKS = [
    re.compile(r"""\bgame\b["'\])]*\s*(==|!=)"""),
    re.compile(r"""(==|!=)\s*[\w.]*\bgame\b"""),
    *(
        re.compile(rf"""(==|!=|\bin)\s*[(\[{{]?\s*["']{name}["']|["']{name}["']\s*(==|!=)""")
        for name in GAME_NAMES
    ),
]


def _sources() -> list[Path]:
    return sorted(p for p in WEB.rglob("*") if p.suffix in {".py", ".html"})


def test_the_engine_registry_is_read_as_the_tests_expect() -> None:
    assert {"lancaster", "lancelot"} <= set(GAME_NAMES)


def test_every_engine_game_has_its_web_entry() -> None:
    engine_games = set(engine.REGISTRY)
    assert engine_games <= set(WEB_GAMES), engine_games - set(WEB_GAMES)
    for name, game in WEB_GAMES.items():
        assert isinstance(game, WebGame)
        assert game.name == name


def test_no_module_or_template_of_web_tests_a_game_by_name() -> None:
    sources = _sources()
    assert any(p.name == "game.html" for p in sources)
    found = [
        f"{p.relative_to(WEB)}:{n}: {line.strip()}"
        for p in sources
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if any(check.search(line) for check in NAME_CHECKS)
    ]
    assert found == [], "ask web.games (WEB_GAMES) instead:\n" + "\n".join(found)


def test_the_checks_find_what_they_look_for() -> None:
    for line in (
        '{% if g.game == "lancelot" %}',
        'if values["game"] == "lancaster":',
        "elif loaded.game == 'lancaster':",
        'if "lancaster" == name:',
        'if name in ("lancelot", "x"):',
        "{% if key == v.game %}",
    ):
        assert any(check.search(line) for check in NAME_CHECKS), line
