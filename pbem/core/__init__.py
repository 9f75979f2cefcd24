"""The core: the plumbing every feature stands on, and which knows no feature. Events and their
registry (``event_base``, ``events``), the event store, the hash chain, the one fold (standard
library only, shared with the offline verifier), replay, the repository with its cache and
snapshots, the unit of work, the projections' runner and the read models every feature reads
(``projections/``), the database and its tables, migrations, the injected time source
(``time_source``), the errors, the reader of whole numbers and header-safe text
(``header_text``). The features' event types, read models and lapse rules are registered with
its registries by the composition root (``pbem.app.bootstrap.register_features``)."""
