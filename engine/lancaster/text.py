"""A plain-text rendering of a view, for emails and the CLI. It reads only the view, so it
can never show more than the view holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ONE = {"voting_markers": "voting marker", "squires": "squire", "gold": "gold"}


def _count(number: int, one: str, many: str) -> str:
    """ "1 seal", "2 seals": the singular for one."""
    return f"{number} {one if number == 1 else many}"


def _n(value: Any) -> str:
    return "?" if value is None else str(value)


def _knights(k: Mapping[str, Any]) -> str:
    court = " ".join(map(str, k["court"])) or "-"
    reserve = " ".join(map(str, k["reserve"])) or "-"
    board = ", ".join(f"{b['strength']} {b['where']}" for b in k["board"]) or "-"
    return f"court {court}; board {board}; reserve {reserve}"


def _castle(spaces: list[Mapping[str, Any]]) -> str:
    parts = []
    for sp in spaces:
        if sp["extension"] and sp.get("turned_over"):
            parts.append(f"{sp['space']}:ext(turned over)")  # The New Laws: yields nothing
        elif sp["extension"]:
            parts.append(f"{sp['space']}:ext")
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
            + (f" +{_count(sp['squires'], 'squire', 'squires')}" if sp.get("squires") else "")
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
        dishonor = f", dishonor {_n(p['dishonor'])}" if "dishonor" in p else ""
        if "seals" in p:
            dishonor += f", seals {_n(p['seals'])}, bishops {p['bishops']}, lord {p['lord']}"
            if p["privileges"] or p["granted"]:
                dishonor += (
                    f", privileges {' '.join(p['privileges']) or '-'}"
                    f" (next round: {' '.join(p['granted']) or '-'})"
                )
        lines.append(
            f"  {p['colour']}{you}: {p['power']} power points, gold {_n(p['gold'])}, "
            f"squires {_n(p['squires'])}, voting markers {p['voting_markers']}{dishonor}, "
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
            sq = f" +{_count(occ['squires'], 'squire', 'squires')}" if occ["squires"] else ""
            who = f"{occ['colour']} knight {occ['strength']}{sq}"
        start = "; the holder names the next start player" if c.get("names_start_player") else ""
        if c.get("start_player_at_once"):
            start = "; the holder also names the start player, at once"
        lines.append(
            f"  {c['letter']} {c['name']} (min {c['minimum']}; {c['reward']}{start}; "
            f"noblemen left {c['noblemen_left']}): {who}"
        )
    regal = view.get("court")
    if regal:
        lines.append("")
        lines.append("THE KING'S COURT")
        for o in regal["offices"]:
            holder = o["holder"]["colour"] if o["holder"] else "nobody"
            a = o["applicant"]
            applicant = f"{a['colour']} (stack {a['stack']})" if a is not None else "no applicant"
            # An office granting no seal names only its privilege, never "0 seals".
            granted = [_count(o["seals"], "seal", "seals")] if o["seals"] else []
            granted += [o["privilege"]] if o["privilege"] else []
            grant = " + ".join(granted) or "nothing"
            lines.append(
                f"  {o['title']} (tribute 1 {_ONE[o['tribute']]}; {grant}): "
                f"held by {holder}; {applicant}"
            )
        t = regal["treasury"]
        lords = ", ".join(f"{colour}'s lord" for colour in regal["in_treasury"]) or "none"
        lines.append(
            f"  Treasury: {_count(t['voting_markers'], 'voting marker', 'voting markers')}, "
            f"{_count(t['squires'], 'squire', 'squires')}, "
            f"{t['gold']} gold; lords inside: {lords}"
        )
        lines.append(
            f"  Supply: {_count(regal['bishop_supply'], 'bishop', 'bishops')}, "
            f"{_count(regal['seal_supply'], 'regal seal', 'regal seals')}"
        )
    resentment = view.get("resentment")
    if resentment:
        tower = ", ".join(
            f"{k['colour'] or 'neutral'} {k['strength']}" for k in resentment["tower"]
        )
        track = " ".join(
            f"[{t['markers']}: -{t['penalties'][0]}/-{t['penalties'][1]}]"
            for t in resentment["track"]
        )
        lines.append("")
        lines.append("THE KING'S RESENTMENT")
        lines.append(
            f"  Tower ({resentment['tower_strength']} of {resentment['tower_capacity']}): "
            f"{tower or 'empty'}"
        )
        lines.append(f"  Dishonor track: {track}; supply box {resentment['supply_box']}")
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
        # The New Laws: e.g. "Laws: group 0 new (drawn), 1 base, 2 Laws of the King, ..."
        named = {"base": "base", "new": "new", "king": "Laws of the King"}
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
            dishonor = f", dishonor {b['dishonor']}" if "dishonor" in b else ""
            dishonor += f", seals {b['seals']}" if "seals" in b else ""
            lines.append(
                f"  {p['colour']}: {score} (game {b['during_game']}, knighthood "
                f"{b['knighthood']}, castle {b['castle']}, noblemen {b['noblemen']}{dishonor})"
            )
        winners = ", ".join(players[w]["colour"] for w in outcome["winners"])
        lines.append(f"  Winner: {winners}")
    return "\n".join(lines) + "\n"
