"""Files that ship with pbem beside its code: the migrations, the settings files and the
documents (rules and notation pages).

They live at the top of the repository (``migrations/``, ``config/``, ``docs/``) and are
installed as packages of their own, so the same lookup works in a checkout and in an
installed wheel: nothing is found relative to this file.
"""

from __future__ import annotations

import re
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

#: A document's name: lowercase words joined by hyphens (``lancaster-notation``).
_DOCUMENT_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class DocumentNotFound(LookupError):
    """No document of that name ships with pbem."""


def migrations_directory() -> Path:
    """The Alembic script directory (``migrations/``), as a folder Alembic can read."""
    folder = files("migrations")
    if not isinstance(folder, Path):
        # Alembic reads its scripts from a folder; pip installs wheels unzipped.
        raise RuntimeError(f"pbem's migrations must be installed as files, not in {folder}")
    return folder


def default_config() -> Traversable:
    """``config/default.toml``: the settings that work out of the box."""
    return files("config") / "default.toml"


def document(name: str) -> str:
    """The Markdown text of ``docs/<name>.md`` (e.g. ``document("lancaster-notation")``).

    Raises ``DocumentNotFound`` for a name that is not a shipped document; a name with
    anything but lowercase letters, digits and single hyphens never reaches the file system.
    """
    if not _DOCUMENT_NAME.fullmatch(name):
        raise DocumentNotFound(name)
    resource = files("docs") / f"{name}.md"
    if not resource.is_file():
        raise DocumentNotFound(name)
    return resource.read_text(encoding="utf-8")


def documents() -> list[str]:
    """The names of every shipped document, sorted."""
    return sorted(
        entry.name.removesuffix(".md")
        for entry in files("docs").iterdir()
        if entry.name.endswith(".md") and _DOCUMENT_NAME.fullmatch(entry.name.removesuffix(".md"))
    )
