"""The phases of a round, in the rulebook's sequence of play, one module each."""
