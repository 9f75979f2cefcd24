"""Creating a game and inviting its players: the events of the game's start and of an accepted
invitation (``events``), the creation command, the requests as asked (idempotency), the
invitations and their read model, the replies of invited seats, the limits on creations, the
rules for players' names, and the mails: invitations and the start of the game (``mails``)."""
