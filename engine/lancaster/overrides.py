"""Config overrides of the component data (``{"players": 3, "data": {...}}``).

Every value of a release's dataset (``data.BASE`` for rules 1.0.0) can be replaced without
code changes; overrides are validated here, and the normalised override is what the config
records, so a replay (under the same rules version) stays exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.protocol import ConfigError
from engine.core.records import replace
from engine.lancaster.data import CASTLE_SPACES, COUNTY_LETTERS, Data, Reward

_REWARD_INTS = ("gold", "squires", "voting_markers", "power", "new_knight")
_REWARD_ONES = ("upgrade", "extension", "nobleman")
_REWARD_BOOLS = ("conflict_move", "start_player")
_TOP_KEYS = (
    "start",
    "knights",
    "start_court",
    "ally_start_court",
    "rounds",
    "both_cost",
    "company",
    "majority_points",
    "ransom_per_strength",
    "counties",
    "castle",
    "favors",
    "conflicts",
    "laws",
    "nobles_per_county",
    "removed_conflicts",
    "removed_favors",
    "resentment",
    "kings_court",
)
_PLAYER_COUNTS = ("2", "3", "4", "5")
MAX_STRENGTH = 9


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError(f'data override "{path}": {message}')


def _int(value: Any, path: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(path, f"must be a whole number from {low} to {high}, not {value!r}")
    return value


def _mapping(value: Any, path: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(path, f"must be a mapping, not {value!r}")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(path, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    return value


def _reward(value: Any, path: str) -> tuple[Reward, dict[str, Any]]:
    m = _mapping(value, path, _REWARD_INTS + _REWARD_ONES + _REWARD_BOOLS)
    kwargs: dict[str, Any] = {}
    for key in _REWARD_INTS:
        if key in m:
            kwargs[key] = _int(m[key], f"{path}.{key}", 0, 20)
    for key in _REWARD_ONES:
        if key in m:
            kwargs[key] = _int(m[key], f"{path}.{key}", 0, 1)
    for key in _REWARD_BOOLS:
        if key in m:
            if not isinstance(m[key], bool):
                raise _fail(f"{path}.{key}", f"must be true or false, not {m[key]!r}")
            kwargs[key] = m[key]
    reward = Reward(**kwargs)
    choices = [k for k in (*_REWARD_ONES, *_REWARD_BOOLS) if kwargs.get(k)]
    if len(choices) > 1:
        raise _fail(path, f"at most one part may need a choice, not {', '.join(choices)}")
    return reward, {k: kwargs[k] for k in sorted(kwargs)}


def apply_overrides(overrides: Any, base: Data) -> tuple[Data, dict[str, Any]]:
    """Validate a config's ``data`` overrides of ``base`` (the dataset of the game's rules
    version): returns (merged Data, normalised overrides).

    A reward given in an override replaces the whole printed reward.
    """
    top = _mapping(overrides, "data", _TOP_KEYS)
    norm: dict[str, Any] = {}
    touched: set[str] = set()
    data = _game_values(top, base, norm, touched)

    if "start" in top:
        m = _mapping(top["start"], "start", ("gold", "squires", "voting_markers"))
        start = {k: _int(v, f"start.{k}", 0, 20) for k, v in sorted(m.items())}
        data = replace(
            data,
            start_gold=start.get("gold", data.start_gold),
            start_squires=start.get("squires", data.start_squires),
            start_voting_markers=start.get("voting_markers", data.start_voting_markers),
        )
        touched.update(f"start.{k}" for k in start)
        norm["start"] = start

    if "counties" in top:
        m = _mapping(top["counties"], "counties", tuple(COUNTY_LETTERS))
        counties = list(data.counties)
        out: dict[str, Any] = {}
        for letter in sorted(m):
            path = f"counties.{letter}"
            cm = _mapping(m[letter], path, ("minimum", "reward"))
            i = COUNTY_LETTERS.index(letter)
            entry: dict[str, Any] = {}
            if "minimum" in cm:
                minimum = _int(cm["minimum"], f"{path}.minimum", 1, MAX_STRENGTH)
                if minimum > max(data.knights):
                    raise _fail(
                        f"{path}.minimum", f"{minimum}: no knight is that strong ({data.knights})"
                    )
                counties[i] = replace(counties[i], minimum=minimum)
                entry["minimum"] = minimum
                touched.add(f"{path}.minimum")
            if "reward" in cm:
                reward, entry["reward"] = _reward(cm["reward"], f"{path}.reward")
                if reward.nobleman:
                    raise _fail(f"{path}.reward", "a county's nobleman is its own stack")
                counties[i] = replace(counties[i], reward=reward)
                touched.add(f"{path}.reward")
            out[letter] = entry
        data = replace(data, counties=tuple(counties))
        norm["counties"] = out

    if "castle" in top:
        m = _mapping(top["castle"], "castle", tuple(str(n) for n in CASTLE_SPACES))
        spaces = list(data.castle)
        out = {}
        for key in sorted(m):
            path = f"castle.{key}"
            sm = _mapping(m[key], path, ("reward", "cost_squires"))
            i = int(key) - 1
            entry = {}
            if "reward" in sm:
                reward, entry["reward"] = _reward(sm["reward"], f"{path}.reward")
                if reward.conflict_move or reward.start_player or reward.nobleman:
                    raise _fail(f"{path}.reward", "a castle space cannot give that")
                spaces[i] = replace(spaces[i], reward=reward)
                touched.add(f"{path}.reward")
            if "cost_squires" in sm:
                entry["cost_squires"] = _int(sm["cost_squires"], f"{path}.cost_squires", 0, 10)
                spaces[i] = replace(spaces[i], cost_squires=entry["cost_squires"])
                touched.add(f"{path}.cost_squires")
            out[key] = entry
        data = replace(data, castle=tuple(spaces))
        norm["castle"] = out

    if "favors" in top:
        m = _mapping(top["favors"], "favors", tuple(str(f.number) for f in base.favors))
        favors = list(data.favors)
        out = {}
        for key in sorted(m):
            path = f"favors.{key}"
            fm = _mapping(m[key], path, ("reward",))
            entry = {}
            if "reward" in fm:
                reward, entry["reward"] = _reward(fm["reward"], f"{path}.reward")
                if reward.conflict_move:
                    raise _fail(f"{path}.reward", "a favor cannot move a knight")
                favors[int(key) - 1] = replace(favors[int(key) - 1], reward=reward)
                touched.add(f"{path}.reward")
            out[key] = entry
        data = replace(data, favors=tuple(favors))
        norm["favors"] = out

    if "conflicts" in top:
        m = _mapping(top["conflicts"], "conflicts", tuple(str(c.number) for c in base.conflicts))
        cards = list(data.conflicts)
        out = {}
        for key in sorted(m, key=int):
            path = f"conflicts.{key}"
            cm = _mapping(m[key], path, ("france", "points"))
            i = int(key) - 1
            entry = {}
            if "france" in cm:
                entry["france"] = _int(cm["france"], f"{path}.france", 1, 30)
                cards[i] = replace(cards[i], france=entry["france"])
            if "points" in cm:
                pts = cm["points"]
                if not isinstance(pts, list | tuple) or len(pts) != 3:
                    raise _fail(f"{path}.points", f"must be 3 numbers, not {pts!r}")
                triple = tuple(_int(p, f"{path}.points", 0, 30) for p in pts)
                cards[i] = replace(cards[i], points=(triple[0], triple[1], triple[2]))
                entry["points"] = list(triple)
            touched.add(path)
            out[key] = entry
        data = replace(data, conflicts=tuple(cards))
        norm["conflicts"] = out

    if "laws" in top:
        m = _mapping(top["laws"], "laws", tuple(law.key for law in base.laws))
        laws = list(data.laws)
        out = {}
        for key in sorted(m):
            path = f"laws.{key}"
            lm = _mapping(m[key], path, ("group", "params"))
            i = next(j for j, law in enumerate(laws) if law.key == key)
            entry = {}
            if "group" in lm:
                entry["group"] = _int(lm["group"], f"{path}.group", 0, 4)
                laws[i] = replace(laws[i], group=entry["group"])
                touched.add(f"{path}.group")
            if "params" in lm:
                names = tuple(name for name, _ in laws[i].params)
                pm = _mapping(lm["params"], f"{path}.params", names)
                params = dict(laws[i].params)
                for name in sorted(pm):
                    # "for every N" and a price in gold: 0 would mean no limit at all.
                    low = 1 if name in ("per", "gold") else 0
                    params[name] = _int(pm[name], f"{path}.params.{name}", low, 20)
                laws[i] = replace(laws[i], params=tuple(params.items()))
                entry["params"] = {k: params[k] for k in sorted(pm)}
                touched.add(f"{path}.params")
            out[key] = entry
        if sum(1 for law in laws if law.group == 0 and law.module is None) != 3:
            raise _fail("laws", "exactly 3 laws must be in group 0 (face up at setup)")
        data = replace(data, laws=tuple(laws))
        norm["laws"] = out

    if "nobles_per_county" in top:
        m = _mapping(top["nobles_per_county"], "nobles_per_county", ("2", "3", "4", "5"))
        per = dict(data.nobles_per_county)
        out = {}
        for key in sorted(m):
            out[key] = _int(m[key], f"nobles_per_county.{key}", 1, 4)
            per[int(key)] = out[key]
        data = replace(data, nobles_per_county=tuple(sorted(per.items())))
        touched.add("nobles_per_county")
        norm["nobles_per_county"] = out

    data = _removals(top, data, norm, touched)
    data = _resentment(top, data, norm, touched)
    data = _kings_court(top, data, norm, touched)
    _check_rounds(data)
    return replace(data, overridden=frozenset(touched)), norm


def _strengths(value: Any, path: str, least: int) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise _fail(path, f"must be a list of knight strengths such as [1, 2], not {value!r}")
    if not least <= len(value) <= 12:
        raise _fail(path, f"must hold at least {least} knight(s) and at most 12")
    return tuple(sorted(_int(k, path, 1, MAX_STRENGTH) for k in value))


def _part_of(part: tuple[int, ...], whole: tuple[int, ...]) -> bool:
    return all(part.count(k) <= whole.count(k) for k in set(part))


def _game_values(
    top: Mapping[str, Any], data: Data, norm: dict[str, Any], touched: set[str]
) -> Data:
    """The knight set, starting courts, rounds and the numbers of the rules themselves."""
    if "knights" in top:
        data = replace(data, knights=_strengths(top["knights"], "knights", 1))
    if "start_court" in top:
        data = replace(data, start_court=_strengths(top["start_court"], "start_court", 1))
    if "ally_start_court" in top:
        ally = _strengths(top["ally_start_court"], "ally_start_court", 1)
        data = replace(data, ally_start_court=ally)
    for key in ("knights", "start_court", "ally_start_court"):
        if key in top:
            norm[key] = list(getattr(data, key))
            touched.add(key)
    for key in ("start_court", "ally_start_court"):
        court = getattr(data, key)
        if not _part_of(court, data.knights):
            raise _fail(
                key,
                f"{list(court)} is not part of the knights {list(data.knights)}; override "
                f'"{key}" together with "knights"',
            )
    if "rounds" in top:
        data = replace(data, rounds=_int(top["rounds"], "rounds", 1, 20))
    if "both_cost" in top:
        data = replace(data, both_cost=_int(top["both_cost"], "both_cost", 0, 20))
    if "ransom_per_strength" in top:
        price = _int(top["ransom_per_strength"], "ransom_per_strength", 0, 20)
        data = replace(data, ransom_per_strength=price)
    for key in ("rounds", "both_cost", "ransom_per_strength"):
        if key in top:
            norm[key] = getattr(data, key)
            touched.add(key)
    if "company" in top:
        m = _mapping(top["company"], "company", ("base", "per_nobleman"))
        company = {k: _int(v, f"company.{k}", 0, 10) for k, v in sorted(m.items())}
        data = replace(
            data,
            company_base=company.get("base", data.company_base),
            company_per_nobleman=company.get("per_nobleman", data.company_per_nobleman),
        )
        norm["company"] = company
        touched.add("company")
    if "majority_points" in top:
        m = _mapping(top["majority_points"], "majority_points", ("first", "second"))
        pts = {k: _int(v, f"majority_points.{k}", 0, 50) for k, v in sorted(m.items())}
        first, second = data.majority_points
        data = replace(data, majority_points=(pts.get("first", first), pts.get("second", second)))
        norm["majority_points"] = pts
        touched.add("majority_points")
    return data


def _removals(top: Mapping[str, Any], data: Data, norm: dict[str, Any], touched: set[str]) -> Data:
    """Conflict cards and king's favor tiles removed by player count (conflict cards by
    France's strength where the dataset removes them so: one card of each listed strength)."""
    by_strength = data.removal_by_strength
    for key, what, numbers in (
        (
            "removed_conflicts",
            "conflict card of strength" if by_strength else "conflict card",
            [c.france if by_strength else c.number for c in data.conflicts],
        ),
        ("removed_favors", "king's favor tile", [f.number for f in data.favors]),
    ):
        if key not in top:
            continue
        m = _mapping(top[key], key, _PLAYER_COUNTS)
        table = dict(getattr(data, key))
        out: dict[str, list[int]] = {}
        for count in sorted(m):
            path = f"{key}.{count}"
            if not isinstance(m[count], list | tuple):
                raise _fail(path, f"must be a list of {what} numbers, not {m[count]!r}")
            removed = sorted(_int(n, path, 0, 99) for n in m[count])
            for n in removed:
                if n not in numbers:
                    raise _fail(path, f"there is no {what} {n}")
                if removed.count(n) > numbers.count(n):
                    more = "twice" if numbers.count(n) == 1 else "more often than it is printed"
                    raise _fail(path, f"{what} {n} is removed {more}")
            if key == "removed_conflicts" and len(numbers) - len(removed) < 2:
                raise _fail(path, "at least 2 conflict cards must stay (two are revealed at once)")
            table[int(count)] = tuple(removed)
            out[count] = removed
            touched.add(path)
        merged = tuple(sorted(table.items()))
        if key == "removed_conflicts":
            data = replace(data, removed_conflicts=merged)
        else:
            data = replace(data, removed_favors=merged)
        norm[key] = out
    return data


def _resentment(
    top: Mapping[str, Any], data: Data, norm: dict[str, Any], touched: set[str]
) -> Data:
    """The King's Resentment: dishonor markers, track, penalties and the tower."""
    if "resentment" not in top:
        return data
    keys = ("markers", "spaces", "per_space", "penalties", "tower_capacity", "tower_neutral")
    m = _mapping(top["resentment"], "resentment", keys)
    out: dict[str, Any] = {}
    if "markers" in m:
        out["markers"] = _int(m["markers"], "resentment.markers", 0, 200)
        data = replace(data, dishonor_markers=out["markers"])
    if "spaces" in m:
        out["spaces"] = _int(m["spaces"], "resentment.spaces", 1, 20)
        data = replace(data, dishonor_spaces=out["spaces"])
    for key, high in (("per_space", 20), ("tower_neutral", 9)):
        if key not in m:
            continue
        pm = _mapping(m[key], f"resentment.{key}", _PLAYER_COUNTS)
        values = {c: _int(v, f"resentment.{key}.{c}", 0, high) for c, v in sorted(pm.items())}
        current = data.dishonor_per_space if key == "per_space" else data.tower_neutral
        table = dict(current)
        table.update({int(c): v for c, v in values.items()})
        merged = tuple(sorted(table.items()))
        if key == "per_space":
            data = replace(data, dishonor_per_space=merged)
        else:
            data = replace(data, tower_neutral=merged)
        out[key] = values
    if "tower_capacity" in m:
        out["tower_capacity"] = _int(m["tower_capacity"], "resentment.tower_capacity", 1, 40)
        data = replace(data, tower_capacity=out["tower_capacity"])
    if "penalties" in m:
        path = "resentment.penalties"
        if not isinstance(m["penalties"], list | tuple):
            raise _fail(path, "must be a list of [larger, smaller] pairs, one per track space")
        pairs = []
        for i, pair in enumerate(m["penalties"]):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise _fail(f"{path}.{i}", f"must be [larger, smaller], not {pair!r}")
            pairs.append((_int(pair[0], f"{path}.{i}", 0, 50), _int(pair[1], f"{path}.{i}", 0, 50)))
        data = replace(data, dishonor_penalties=tuple(pairs))
        out["penalties"] = [list(p) for p in pairs]
    if len(data.dishonor_penalties) != data.dishonor_spaces:
        raise _fail(
            "resentment.penalties",
            f"gives {len(data.dishonor_penalties)} track spaces, the track has "
            f"{data.dishonor_spaces}",
        )
    neutral = [k for _, k in data.tower_neutral if k > data.tower_capacity]
    if neutral:
        raise _fail("resentment.tower_neutral", "a neutral knight must fit in the tower")
    touched.update(f"resentment.{k}" for k in out)
    norm["resentment"] = out
    return data


def _kings_court(
    top: Mapping[str, Any], data: Data, norm: dict[str, Any], touched: set[str]
) -> Data:
    """At the King's Court: seals, bishops, privileges, starting voting markers, and each
    office's seals."""
    if "kings_court" not in top:
        return data
    keys = ("seals", "bishops", "bishops_max", "privileges", "start_voting_markers", "offices")
    m = _mapping(top["kings_court"], "kings_court", keys)
    out: dict[str, Any] = {}
    if "seals" in m:
        out["seals"] = _int(m["seals"], "kings_court.seals", 0, 200)
        data = replace(data, seals=out["seals"])
    if "bishops_max" in m:
        out["bishops_max"] = _int(m["bishops_max"], "kings_court.bishops_max", 0, 20)
        data = replace(data, bishops_max=out["bishops_max"])
    if "start_voting_markers" in m:
        n = _int(m["start_voting_markers"], "kings_court.start_voting_markers", 0, 20)
        out["start_voting_markers"] = n
        data = replace(data, court_start_voting_markers=n)
    if "bishops" in m:
        pm = _mapping(m["bishops"], "kings_court.bishops", _PLAYER_COUNTS)
        values = {c: _int(v, f"kings_court.bishops.{c}", 0, 50) for c, v in sorted(pm.items())}
        table = dict(data.bishops_per_players)
        table.update({int(c): v for c, v in values.items()})
        data = replace(data, bishops_per_players=tuple(sorted(table.items())))
        out["bishops"] = values
    if "privileges" in m:
        names = ("shields", "archers", "tudors")
        pm = _mapping(m["privileges"], "kings_court.privileges", names)
        values = {k: _int(v, f"kings_court.privileges.{k}", 0, 20) for k, v in sorted(pm.items())}
        current = dict(zip(names, data.privileges, strict=True))
        current.update(values)
        data = replace(data, privileges=(current["shields"], current["archers"], current["tudors"]))
        out["privileges"] = values
    if "offices" in m:
        pm = _mapping(m["offices"], "kings_court.offices", tuple(o.key for o in data.offices))
        offices = list(data.offices)
        done: dict[str, Any] = {}
        for key in sorted(pm):
            path = f"kings_court.offices.{key}"
            om = _mapping(pm[key], path, ("seals",))
            i = next(j for j, o in enumerate(offices) if o.key == key)
            if "seals" in om:
                offices[i] = replace(offices[i], seals=_int(om["seals"], f"{path}.seals", 0, 20))
            done[key] = {k: getattr(offices[i], k) for k in sorted(om)}
        data = replace(data, offices=tuple(offices))
        out["offices"] = done
    touched.update(f"kings_court.{k}" for k in out)
    norm["kings_court"] = out
    return data


def _check_rounds(data: Data) -> None:
    # Three new laws are revealed each round, all from the draw pile (groups 1 to 4).
    pile = sum(1 for law in data.laws if law.group != 0 and law.module is None)
    if data.rounds * 3 > pile:
        raise _fail(
            "rounds",
            f"must be a whole number from 1 to {pile // 3}, not {data.rounds} (the law draw "
            f"pile holds {pile} laws and each round reveals 3)",
        )
