"""What the pages know of each game: one module per game (its board, its form fields, the
names of its templates), registered in ``WEB_GAMES`` by the engine's name of the game.

Every entry is a ``WebGame`` (``web.games.base``), so the pages ask the game for its parts and
never test its name. To add a game: a module here making one, its templates under
``web/templates/games/``, and its line below. The first registered is the /new form's default.
"""

from __future__ import annotations

from web.games import lancaster, lancelot
from web.games.base import WebGame

WEB_GAMES: dict[str, WebGame] = {game.name: game for game in (lancaster.GAME, lancelot.GAME)}

__all__ = ["WEB_GAMES", "WebGame"]
