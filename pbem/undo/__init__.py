"""Undo: its events (``events``), the rules of taking actions back as a plan of events and the
lapse of a request the game moved on from (``rules``), the undo commands and the decisions on
undo requests (``commands``), the ``undo_requests`` read model (``projection``), and the mails
undo causes (``mails``)."""
