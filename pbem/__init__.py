"""pbem: the play-by-email service (events, store, replay, mail, deadlines, CLI)."""
