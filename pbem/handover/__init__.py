"""Substitutes: a seat's player replaced mid-game (docs/mail.md, "Substitutes"). Its events
(``events``), who may propose and decide and when a seat has missed enough deadlines
(``rules``), the commands (``commands``), the ``seat_handovers`` read model (``projection``),
the mails and their texts (``mails``), and the reply words (``replies``)."""
