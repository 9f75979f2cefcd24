"""The read models: the runner that applies every projection in the unit of work (``runner``),
and the two every feature reads, ``games`` and ``seats``; each feature's own projection lives in
its package (``pbem.clock.projection``, ``pbem.disputes.projection``, ``pbem.create.projection``,
``pbem.undo.projection``), registered with the runner by the composition root."""
