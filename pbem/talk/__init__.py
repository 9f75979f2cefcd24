"""Table talk: the players of a game write to each other through it, by mail (``say …``,
``to Bob: …``), on the seat page and through the API. Its events (``events``: a message
sent, a message hidden by the administrator), who may read a message (``visibility``), the
limits on how much a seat may write (``limits``), the commands that send and hide one and
the reads of the conversation (``commands``), the ``table_talk`` read model
(``projection``), the reply words of the mails (``replies``) and the mails a message causes
(``mails``).

A message is in the game's log (so the hash chain covers it and a dispute can cite it) but
never part of the game's state: the fold, the engine, undo, the stale-reply rule and the
clock pass it over (docs/mail.md, "Table talk")."""
