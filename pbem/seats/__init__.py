"""Seats and their credentials: what a game keeps outside its log (the seed until the end, the
hashes of the seats' bearer tokens)."""
