"""The HTML pages: the index and a game's page (``routes``, the blueprint the others hang on),
the game page drawn for a seat or a spectator (``game_page``), what they share (``common``),
creating a game (``newgame``), history, audit, disputes, undo, invitations, the rules pages
and the development mailbox (``devmail``).

Nothing here knows a game by name: what differs from game to game is in ``web.games``.
"""
