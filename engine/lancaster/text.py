"""A plain-text rendering of a view, for emails and the CLI. It reads only the view, so it
can never show more than the view holds. What an expansion adds to the view, it renders
through the extension points below, filled by ``wiring.py``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: Extension point: what a player's line adds after the voting markers, ``(player's view) ->
#: text`` (Henry V: dishonor; seals, bishops, lord and privileges)
PLAYER_EXTRAS: list[Callable[[Mapping[str, Any]], str]] = []
#: Extension point: what a castle space with an extension tile adds, ``(space's view) ->
#: text`` (The New Laws: "(turned over)")
EXTENSION_MARKS: list[Callable[[Mapping[str, Any]], str]] = []
#: Extension point: sections after the counties, ``(view) -> lines`` (Henry V: the King's
#: Court, the King's Resentment)
BOARD_SECTIONS: list[Callable[[Mapping[str, Any]], list[str]]] = []
#: Extension point: the name of each set of laws a group plays (The New Laws: "new"; Laws of
#: the King)
LAW_SET_NAMES: dict[str, str] = {"base": "base"}
#: Extension point: what a final score's breakdown adds, ``(breakdown) -> text`` (Henry V:
#: dishonor, seals)
SCORE_EXTRAS: list[Callable[[Mapping[str, Any]], str]] = []

ONE = {"voting_markers": "voting marker", "squires": "squire", "gold": "gold"}


def counted(number: int, one: str, many: str) -> str:
    """ "1 seal", "2 seals": the singular for one."""
    return f"{number} {one if number == 1 else many}"


def or_unknown(value: Any) -> str:
    return "?" if value is None else str(value)


def _knights(k: Mapping[str, Any]) -> str:
    court = " ".join(map(str, k["court"])) or "-"
    reserve = " ".join(map(str, k["reserve"])) or "-"
    board = ", ".join(f"{b['strength']} {b['where']}" for b in k["board"]) or "-"
    return f"court {court}; board {board}; reserve {reserve}"


def _castle(spaces: list[Mapping[str, Any]]) -> str:
    parts = []
    for sp in spaces:
        if sp["extension"]:
            parts.append(f"{sp['space']}:ext" + "".join(mark(sp) for mark in EXTENSION_MARKS))
        elif sp["knight"] is not None:
            parts.append(f"{sp['space']}:knight {sp['knight']}")
        else:
            parts.append(f"{sp['space']}:-")
    return " ".join(parts)


def _ally_castle(spaces: list[Mapping[str, Any]]) -> str:
    """An ally's own small castle (rules 2.0.0, 2 players): what each space gives, free of
    squires, and the knight on it."""
    parts = [
        f"{sp['space']} ({sp['reward']}): "
        + ("-" if sp["knight"] is None else f"knight {sp['knight']}")
        for sp in spaces
    ]
    return "; ".join(parts)


def _card(card: Mapping[str, Any] | None) -> str:
    if card is None:
        return "(empty)"
    spaces = (
        "; ".join(
            f"{sp['colour']} {'+'.join(map(str, sp['knights']))}"
            + (f" +{counted(sp['squires'], 'squire', 'squires')}" if sp.get("squires") else "")
            for sp in card["spaces"]
        )
        or "no knights"
    )
    pts = "/".join(map(str, card["points"]))
    return (
        f"Conflict {card['card']}: France {card['france']}, England {card['england']}, "
        f"power points {pts} - {spaces}"
    )


def render_text(view: Mapping[str, Any]) -> str:
    lines: list[str] = []
    players = view["players"]
    start = players[view["start_player"]]["colour"]
    lines.append(
        f"LANCASTER - round {view['round']} of {view['rounds']}, {view['phase']}; "
        f"start player {start}"
    )
    lines.append("")
    # The examples of what to type ("can_type") are the mail's and the page's to show, once.
    lines.append(view["prompt"])
    lines.append("")
    lines.append("PLAYERS")
    for p in players:
        nobles = "".join(p["noblemen"]) or "-"
        you = " (you)" if view.get("you") == p["seat"] else ""
        extras = "".join(extra(p) for extra in PLAYER_EXTRAS)
        lines.append(
            f"  {p['colour']}{you}: {p['power']} power points, gold {or_unknown(p['gold'])}, "
            f"squires {or_unknown(p['squires'])}, voting markers {p['voting_markers']}{extras}, "
            f"noblemen {nobles}"
        )
        lines.append(f"    knights: {_knights(p['knights'])}")
        lines.append(f"    castle: {_castle(p['castle'])}")
        if p.get("voted") is not None:
            mine = p.get("vote")
            state = "has voted" if p["voted"] else "has not voted yet"
            if mine is not None:
                state += f" ({'yes' if mine['yes'] else 'no'} +{mine['markers']})"
            lines.append(f"    vote: {state}")
    for a in view.get("allies", []):
        owner = players[a["of"]]["colour"]
        lines.append(f"  {a['colour']} ({owner}'s ally): {_knights(a['knights'])}")
        if len(a["castle"]) != len(players[0]["castle"]):
            # As printed, the ally has a small castle of its own (decision 12); under rules
            # 1.0.0 its castle is a player's, its knights there listed on the line above.
            lines.append(f"    its castle, no squires to pay: {_ally_castle(a['castle'])}")
    lines.append("")
    lines.append("COUNTIES")
    for c in view["counties"]:
        occ = c["occupant"]
        who = "empty"
        if occ is not None:
            sq = f" +{counted(occ['squires'], 'squire', 'squires')}" if occ["squires"] else ""
            who = f"{occ['colour']} knight {occ['strength']}{sq}"
        start = "; the holder names the next start player" if c.get("names_start_player") else ""
        if c.get("start_player_at_once"):
            start = "; the holder also names the start player, at once"
        lines.append(
            f"  {c['letter']} {c['name']} (min {c['minimum']}; {c['reward']}{start}; "
            f"noblemen left {c['noblemen_left']}): {who}"
        )
    for section in BOARD_SECTIONS:
        lines.extend(section(view))
    lines.append("")
    lines.append("CONFLICTS")
    for row in ("upper", "lower"):
        for card in view["conflicts"][row]:
            if card is not None:
                lines.append(f"  {row}: {_card(card)}")
    removed = view["conflicts"].get("removed")
    if removed:
        listed = ", ".join(f"card {c['card']} (France {c['france']})" for c in removed)
        lines.append(f"  Removed at setup: {listed}")
    faces = [f"{f['tile']}: {f['reward']}" for f in view["favors"] if f["face_up"]]
    lines.append("  King's favor tiles face up: " + ("; ".join(faces) or "none"))
    lines.append("")
    lines.append("LAWS")
    sets = view["laws"].get("sets")
    if sets:
        # e.g. "Laws: group 0 new (drawn), 1 base, 2 Laws of the King, ..."
        named = LAW_SET_NAMES
        listed = ", ".join(
            f"{'group ' if s['group'] == 0 else ''}{s['group']} {named.get(s['set'], s['set'])}"
            + (" (drawn)" if s["drawn"] else "")
            for s in sets
        )
        lines.append(f"  Laws: {listed}")
    in_force = {law["title"] for law in view["laws"]["current"]}
    for law in view["laws"]["current"]:
        lines.append(f"  in force: {law['title']} - {law['text']}")
    for law in view["laws"]["new"]:
        if law["status"] == "approved" and law["title"] in in_force:
            continue  # listed once, in force (the vote's line below says it was approved)
        lines.append(f"  new ({law['status']}): {law['title']} - {law['text']}")
    for v in view.get("votes", []):
        result = "approved" if v["approved"] else "rejected"
        lines.append(f"  vote on {v['title']}: {v['yes']} for, {v['no']} against, {result}")
    outcome = view.get("outcome")
    if outcome:
        lines.append("")
        lines.append("FINAL SCORES")
        for p, score, b in zip(players, outcome["scores"], outcome["breakdown"], strict=True):
            extras = "".join(extra(b) for extra in SCORE_EXTRAS)
            lines.append(
                f"  {p['colour']}: {score} (game {b['during_game']}, knighthood "
                f"{b['knighthood']}, castle {b['castle']}, noblemen {b['noblemen']}{extras})"
            )
        winners = ", ".join(players[w]["colour"] for w in outcome["winners"])
        lines.append(f"  Winner: {winners}")
    return "\n".join(lines) + "\n"
