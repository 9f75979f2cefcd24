"""Markdown documents shipped with pbem (rules and notation pages): pbem.core.resources.document."""
