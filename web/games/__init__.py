"""What the pages know of each game: one module per game (its board, its form fields, the
names of its templates), registered in ``WEB_GAMES`` by the engine's name of the game.
"""
