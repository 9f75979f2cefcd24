"""The registry of rules: every released version of every game's rules.

A game records the name and version of the rules it was created with (``GameCreated``), and
it replays, verifies and plays on under exactly those rules for ever (DESIGN.md, "The engine
contract": a data correction is a new version; old games are not silently changed). So the
registry keeps every release, and answers two questions:

- ``registry[name]``: the **latest** release of a game, which new games get (the registry is a
  ``Mapping[str, Rules]`` by name, so listing the games and creating one read as before);
- ``registry.release(name, version)``: the release a game was created with; a version that is
  not installed raises ``UnknownRules`` with a message a person can act on.

A registry is immutable; ``with_rules`` gives a new one with more releases (tests and
benchmarks add their own games that way).

A game's releases may be given as a loader (``installed``): they are imported the first time
the game is asked for, so a process that plays one game (``pbem mail-in`` answering a Lancelot
reply) does not import the other games' rules. Listing the names imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from engine.core.protocol import Rules


class UnknownRules(LookupError):
    """No rules of that name, or not at that version, are installed."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else ""


def version_key(version: str) -> tuple[int, ...]:
    """A release's version ("2.0.0") as numbers, for ordering: 10.0.0 comes after 9.1.0."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise ValueError(
            f"a rules version is numbers and dots (e.g. 2.0.0), not {version!r}"
        ) from None


#: A game's releases, imported when first asked for.
Loader = Callable[[], Iterable[Rules]]


def _by_name(releases: Iterable[Rules]) -> dict[str, dict[str, Rules]]:
    """The releases by game name, then version, oldest version first."""
    by_name: dict[str, dict[str, Rules]] = {}
    for rules in releases:
        version_key(rules.version)  # refuse a version that cannot be ordered, here
        versions = by_name.setdefault(rules.name, {})
        if rules.version in versions and versions[rules.version] is not rules:
            raise ValueError(f"two releases of {rules.name} {rules.version}")
        versions[rules.version] = rules
    return {
        name: dict(sorted(versions.items(), key=lambda kv: version_key(kv[0])))
        for name, versions in by_name.items()
    }


class Registry(Mapping[str, Rules]):
    """Every released version of every game's rules; as a mapping, each game's latest."""

    def __init__(
        self, releases: Iterable[Rules] = (), *, installed: Mapping[str, Loader] | None = None
    ) -> None:
        self._releases = _by_name(releases)
        #: the games whose releases are imported on first use (``installed``), by name
        self._loaders = dict(installed or {})
        if twice := sorted(self._releases.keys() & self._loaders.keys()):
            raise ValueError(f"releases of {', '.join(twice)} given twice")
        self._names = tuple(sorted({*self._releases, *self._loaders}))

    def _versions(self, name: str) -> dict[str, Rules] | None:
        """``name``'s releases by version (imported now if they are loaded on first use), or
        None for a game not installed."""
        if name not in self._releases and name in self._loaders:
            loaded = _by_name(self._loaders[name]())
            if set(loaded) != {name}:
                raise ValueError(f"the releases loaded for {name} are of {', '.join(loaded)}")
            self._releases[name] = loaded[name]
        return self._releases.get(name)

    # -- the latest release by name (what new games get) --

    def __getitem__(self, name: str) -> Rules:
        versions = self._versions(name)
        if versions is None:
            raise KeyError(name)  # an unknown game, as a mapping should
        return versions[next(reversed(versions))]

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    # -- every release --

    def versions(self, name: str) -> tuple[str, ...]:
        """The released versions of ``name``, oldest first; () for an unknown game."""
        return tuple(self._versions(name) or ())

    def release(self, name: str, version: str) -> Rules:
        """The rules ``name`` at ``version`` exactly, as a game created with them needs."""
        versions = self._versions(name)
        if versions is None:
            known = ", ".join(self._names) or "none"
            raise UnknownRules(f"No rules named {name!r} are installed (games: {known}).")
        rules = versions.get(version)
        if rules is None:
            raise UnknownRules(
                f"The rules of {name} version {version} are not installed here (installed: "
                f"{', '.join(versions)}); this game needs exactly the version it was created "
                "with."
            )
        return rules

    def releases(self) -> tuple[Rules, ...]:
        """Every release of every game, by name, then oldest version first."""
        return tuple(r for name in self._names for r in (self._versions(name) or {}).values())

    def with_rules(self, *rules: Rules) -> Registry:
        """This registry with more releases (a test's or a benchmark's own game)."""
        return Registry((*self.releases(), *rules))

    def __repr__(self) -> str:
        listed = ", ".join(f"{r.name} {r.version}" for r in self.releases())
        return f"Registry({listed})"
