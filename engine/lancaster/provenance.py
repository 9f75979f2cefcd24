"""Provenance of every Lancaster component value: ``rulebook`` (the publisher's rulebook),
``example`` (deduced from one of its worked examples), ``seed`` (stated in a rule text we
hold), ``public`` (published summaries and reference cards), ``provisional`` (chosen by the
project where no source was available) or ``config`` (replaced by the game's config);
``provisional_values`` lists what is provisional for the game page (``pbem rules lancaster
--data``). Source: the shared ``rules/lancaster-data.md``.

Each release's dataset has its own table (``Data.release``): 1.0.0's below, as it was when
that release was made; 2.0.0's in ``printed.py``, beside its values.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.lancaster import new_laws, printed
from engine.lancaster.data import (
    BASE_LAWS,
    CONFIG,
    CONFLICT_CARDS,
    KING_LAWS,
    PROVISIONAL,
    PUBLIC,
    SEED,
    Data,
)

#: laws taken from *The New Laws* to stand in for base laws no source gave us
STAND_IN_LAWS = ("conflicts_markers", "most_gold_squire_marker")

# Provenance of every value in BASE, keyed by the same paths the config overrides use.
_PROVENANCE: dict[str, str] = {
    "start.gold": SEED,
    "start.squires": SEED,
    "start.voting_markers": SEED,
    "knights": PUBLIC,
    "start_court": SEED,
    "ally_start_court": PUBLIC,
    "rounds": SEED,
    "both_cost": SEED,
    "company": SEED,
    "majority_points": SEED,
    "ransom_per_strength": SEED,
    "nobles_per_county": SEED,
    **{f"removed_conflicts.{n}": SEED for n in (2, 3, 4, 5)},
    **{f"removed_favors.{n}": SEED for n in (2, 3, 4, 5)},
    "counties.A.minimum": PROVISIONAL,
    "counties.A.reward": PROVISIONAL,
    "counties.B.minimum": PROVISIONAL,
    "counties.B.reward": PUBLIC,
    "counties.C.minimum": PROVISIONAL,
    "counties.C.reward": PUBLIC,
    "counties.D.minimum": PUBLIC,
    "counties.D.reward": PUBLIC,
    "counties.E.minimum": PROVISIONAL,
    "counties.E.reward": PROVISIONAL,
    "counties.F.minimum": PROVISIONAL,
    "counties.F.reward": PROVISIONAL,
    "counties.G.minimum": PROVISIONAL,
    "counties.G.reward": PROVISIONAL,
    "counties.H.minimum": PROVISIONAL,
    "counties.H.reward": SEED,
    "counties.I.minimum": PROVISIONAL,
    "counties.I.reward": PROVISIONAL,  # unknown (decision 6): no reward unless data gives one
    "castle.1.reward": PROVISIONAL,
    "castle.2.reward": PROVISIONAL,
    "castle.3.reward": PROVISIONAL,
    "castle.4.reward": PROVISIONAL,
    "castle.5.reward": PUBLIC,
    "castle.6.reward": PUBLIC,
    "castle.5.cost_squires": PUBLIC,
    "castle.6.cost_squires": PUBLIC,
    "favors.1.reward": SEED,
    "favors.2.reward": SEED,
    "favors.3.reward": PROVISIONAL,
    "favors.4.reward": PROVISIONAL,
    "favors.5.reward": PROVISIONAL,
    "favors.6.reward": PROVISIONAL,
    **{f"conflicts.{c.number}": PROVISIONAL for c in CONFLICT_CARDS},
    **{f"laws.{law.key}.group": PROVISIONAL for law in BASE_LAWS},
    **{f"laws.{law.key}.params": PUBLIC for law in BASE_LAWS if law.params},
    # lancaster-data.md: "from The New Laws, standing in for a base law we could not find"
    **{f"laws.{key}.card": PROVISIONAL for key in STAND_IN_LAWS},
}


#: Provenance of the Henry V values, by module (lancaster-data.md, "Henry V").
MODULE_PROVENANCE: dict[str, dict[str, str]] = {
    "laws_of_the_king": {
        **{f"laws.{law.key}.group": PROVISIONAL for law in KING_LAWS},
        **{f"laws.{law.key}.params": SEED for law in KING_LAWS},
    },
    "kings_court": {
        "kings_court.offices": SEED,
        "kings_court.seals": SEED,
        "kings_court.bishops": SEED,
        "kings_court.bishops_max": SEED,
        "kings_court.start_voting_markers": SEED,
        "kings_court.privileges": SEED,
    },
    "resentment": {
        "resentment.markers": SEED,
        "resentment.spaces": PUBLIC,  # 8 spaces: lancaster-data.md
        "resentment.per_space": SEED,
        # lancaster-data.md: provisional; the seed's example shows a space with 6/3
        "resentment.penalties": PROVISIONAL,
        "resentment.tower_capacity": SEED,
        "resentment.tower_neutral": SEED,
    },
}


#: each release's tables: (the base game's, the Henry V modules')
_BY_RELEASE: dict[str, tuple[dict[str, str], dict[str, dict[str, str]]]] = {
    "1.0.0": (_PROVENANCE, MODULE_PROVENANCE),
    printed.VERSION: (printed.PROVENANCE, printed.MODULE_PROVENANCE),
    new_laws.VERSION: (new_laws.PROVENANCE, new_laws.MODULE_PROVENANCE),
}


#: Extension point: the text of an expansion's value, by the first part of its path, ``(data,
#: the rest of the path) -> text`` (The King's Resentment: "resentment"); filled by
#: ``wiring.py``
VALUE_TEXTS: dict[str, Callable[[Data, list[str]], str]] = {}


def provenance(data: Data, modules: frozenset[str] = frozenset()) -> dict[str, str]:
    """Every data path with its provenance (the base game's, and the Henry V modules' in
    ``modules``); values the config replaced say ``config`` (an override of a conflict card
    replaces what is known of its strength and its points alike)."""
    base, by_module = _BY_RELEASE[data.release]
    result = dict(base)
    for module in sorted(modules):
        result.update(by_module.get(module, {}))
    for path in data.overridden:
        replaced = [k for k in result if k == path or k.startswith(path + ".")]
        for known in replaced or [path]:
            result[known] = CONFIG
    return result


def provisional_values(data: Data, modules: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(path, value as text) of every value still provisional in ``data`` (with the Henry V
    modules in ``modules``)."""
    out: list[tuple[str, str]] = []
    for path, prov in provenance(data, modules).items():
        if prov == PROVISIONAL:
            out.append((path, _value_text(data, path)))
    return out


def _value_text(data: Data, path: str) -> str:
    parts = path.split(".")
    if parts[0] == "counties":
        county = data.county(parts[1])
        if parts[2] == "name":
            return county.name
        if parts[2] == "start_player":
            return "its holder names the start player"
        return str(county.minimum) if parts[2] == "minimum" else county.reward.describe()
    if parts[0] == "castle":
        space = data.space(int(parts[1]))
        if parts[2] == "cost_squires":
            return str(space.cost_squires)
        cost = (
            f"pay {space.cost_squires} squire{'s' if space.cost_squires != 1 else ''}: "
            if space.cost_squires
            else ""
        )
        return cost + space.reward.describe()
    if parts[0] == "favors":
        return data.favor(int(parts[1])).reward.describe()
    if parts[0] == "conflicts":
        card = data.card(int(parts[1]))
        if parts[2:] == ["france"]:
            return f"card {card.number}: France {card.france}"
        if parts[2:] == ["points"]:
            return f"card {card.number} (France {card.france}): power points " + "/".join(
                map(str, card.points)
            )
        return f"France {card.france}, power points {'/'.join(map(str, card.points))}"
    if parts[0] in VALUE_TEXTS:
        return VALUE_TEXTS[parts[0]](data, parts[1:])
    if parts[0] == "laws":
        law = data.law(parts[1])
        if parts[2] == "card":
            return f"a stand-in from The New Laws: {law.text}"
        return f"group {law.group}" if parts[2] == "group" else str(dict(law.params))
    return "?"
