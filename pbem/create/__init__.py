"""Creating a game and inviting its players: the creation command, the requests as asked
(idempotency), the invitations and their read model, the replies of invited seats, the limits
on creations, and the rules for players' names."""
