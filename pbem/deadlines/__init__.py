"""Deadlines: time controls (``time_control``), each seat's due time derived from the log
(``schedule``, a pure fold of the game's events), the read model of who is due when
(``pbem.projections.deadlines``) and the sweep that acts on what is due (``sweep``)."""
