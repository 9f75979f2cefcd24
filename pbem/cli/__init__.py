"""The ``pbem`` command line (click): the commands (``main``), what they share (``support``), and
the commands of the audit, the clock, the mail, the sweep and the seats' tokens, a module each."""
