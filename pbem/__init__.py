"""pbem: the play-by-email service. ``core/`` is the plumbing (events, store, chain, fold,
repository, unit of work, projections, database) and knows no feature; each feature is a package
of its own (``create/``, ``play/``, ``undo/``, ``disputes/``, ``clock/``, ``seats/``,
``audit/``); ``mail/`` is split into ``inbound/`` and ``outbound/``; ``cli/`` is the command
line; ``app/`` is the composition root (the settings, the application service every entry point
calls, the wiring that builds the features into it, the background scheduler)."""
