"""Markdown documents shipped with pbem (rules and notation pages): pbem.resources.document."""
