"""Audit and verification: the evidence of disputed steps (``evidence``), receipts, a game's
exported bundle (``export``) and the offline verifier (``verify``: ``python -m
pbem.audit.verify``, which needs only the standard library and the engine)."""
