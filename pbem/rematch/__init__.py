"""Rematch: at the end of a game any seat proposes a new game with the same players, rules
and configuration (seats rotated by one, or kept); it starts when every seat agrees, through
the ordinary creation command, and the two games link to each other. Its events
(``events``), read models (``models``, ``projection``), commands (``commands``), reply words
(``replies``), mails (``mails``) and the log's wording of its events (``display``)."""
