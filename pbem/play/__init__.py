"""Playing a game: submitting actions (a submission's lines applied in order), the action
events, resignation, the checks every command makes, the commands' results, the events a seat
causes through a channel (``seat_acts``), what a person may see (``views``), the read side
(``queries``), component values and the reads the pages need, and the mails of play: turns,
confirmations, the end of the game (``mails``)."""
