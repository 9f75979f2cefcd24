"""Settings files (TOML) shipped with pbem; ``default.toml`` is read when no other is given."""
