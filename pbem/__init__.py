"""pbem: the play-by-email service. ``core/`` is the plumbing (events, store, chain, fold,
repository, unit of work, projections, database) and knows no feature; each feature is a package
of its own (``create/``, ``play/``, ``undo/``, ``disputes/``, ``clock/``, ``seats/``,
``audit/``); ``mail/`` is split into ``inbound/`` and ``outbound/``; ``cli/`` is the command
line; ``bootstrap.py`` builds it all from ``config.py``'s settings; ``scheduler.py`` runs it in
the background; ``service.py`` is the application service every entry point calls."""
