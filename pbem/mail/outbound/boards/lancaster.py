"""Lancaster's board in an HTML mail, section by section as the text board has them: each
player's resources as the seat may see them (another's hidden gold, squires, dishonor or
seals say "hidden": the view holds ``None`` for them, rules/README.md, Lancaster 11), its
knights and castle; the counties; the conflicts; the laws in force and to vote; and, when in
play, the King's Court (At the King's Court) and the tower (The King's Resentment). Every
section is a table of at most four columns, or a list: it reads at 320 px. Read from the
view only (``engine/lancaster/view.py`` and the Henry V modules' sections)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.naming import Names
from pbem.mail.outbound.boards.palette import render

HIDDEN = "hidden"

#: What a Henry V module adds to a player's entry of the view, with its words on the board
#: (At the King's Court: lord, bishops, privileges; The King's Resentment: dishonor).
_MODULE_RESOURCES: tuple[tuple[str, str], ...] = (
    ("dishonor", "Dishonor markers"),
    ("seals", "Regal seals"),
    ("bishops", "Bishops"),
    ("lord", "Lord"),
    ("privileges", "Privileges"),
)


def shown(value: Any) -> str:
    """A resource as the seat may see it: another's hidden value says so."""
    if value is None:
        return HIDDEN
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def knights_text(knights: Mapping[str, Any]) -> str:
    court = " ".join(map(str, knights["court"])) or "none"
    reserve = " ".join(map(str, knights["reserve"])) or "none"
    board = ", ".join(f"{b['strength']} in {b['where']}" for b in knights["board"]) or "none"
    return f"court {court}; on the board {board}; reserve {reserve}"


def castle_text(spaces: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for sp in spaces:
        if sp["extension"]:
            parts.append(f"{sp['space']}: extension")
        elif sp["knight"] is not None:
            parts.append(f"{sp['space']}: knight {sp['knight']}")
        else:
            parts.append(f"{sp['space']}: free")
    return "; ".join(parts)


def _player(p: Mapping[str, Any], you: int | None) -> dict[str, Any]:
    facts = [
        ("Power points", str(p["power"])),
        ("Gold", shown(p.get("gold"))),
        ("Squires", shown(p.get("squires"))),
        ("Voting markers", str(p["voting_markers"])),
    ]
    facts.extend((label, shown(p[key])) for key, label in _MODULE_RESOURCES if key in p)
    facts.append(("Noblemen", "".join(p["noblemen"]) or "none"))
    facts.append(("Knights", knights_text(p["knights"])))
    facts.append(("Castle", castle_text(p["castle"])))
    if p.get("voted") is not None:
        state = "has voted" if p["voted"] else "has not voted yet"
        if p.get("vote") is not None:
            vote = p["vote"]
            state += f" ({'yes' if vote['yes'] else 'no'} +{vote['markers']})"
        facts.append(("Vote", state))
    return {"colour": p["colour"], "you": you == p["seat"], "facts": facts}


def _card(row: str, card: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "row": row,
        "card": card["card"],
        "france": card["france"],
        "england": card["england"],
        "points": "/".join(map(str, card["points"])),
        "spaces": [
            {
                "colour": sp["colour"],
                "knights": "+".join(map(str, sp["knights"])),
                "extra": ", ".join(
                    word
                    for key, word in (("tudor", "Tudor knight"), ("archer", "archer"))
                    if sp.get(key)
                ),
            }
            for sp in card["spaces"]
        ],
    }


def _county(c: Mapping[str, Any]) -> dict[str, Any]:
    occ = c["occupant"]
    holder = None
    if occ is not None:
        extra = []
        if occ.get("squires"):
            extra.append(f"+{occ['squires']} squire{'s' if occ['squires'] != 1 else ''}")
        if occ.get("shield"):
            extra.append("shield")
        if occ.get("tudor"):
            extra.append("Tudor knight")
        holder = {"colour": occ["colour"], "strength": occ["strength"], "extra": " ".join(extra)}
    start = ""
    if c.get("start_player_at_once"):
        start = "; the holder also names the start player, at once"
    elif c.get("names_start_player"):
        start = "; the holder names the next start player"
    return {
        "letter": c["letter"],
        "name": c["name"],
        "minimum": c["minimum"],
        "reward": f"{c['reward']}{start}",
        "noblemen": c["noblemen_left"],
        "holder": holder,
    }


def _court(court: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if court is None:
        return None
    offices = []
    for o in court["offices"]:
        a = o["applicant"]
        offices.append(
            {
                "title": o["title"],
                "terms": f"tribute {str(o['tribute']).replace('_', ' ')}, {o['seals']} seals, "
                f"privilege {o['privilege']}",
                "holder": o["holder"]["colour"] if o["holder"] else None,
                "applicant": None
                if a is None
                else {
                    "colour": a.get("colour"),
                    "text": " ".join(
                        part
                        for part in (
                            f"knights {'+'.join(map(str, a['knights']))}" if a["knights"] else "",
                            f"{a['bishops']} bishops" if a["bishops"] else "",
                        )
                        if part
                    ),
                },
            }
        )
    treasury = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in court["treasury"].items())
    return {
        "offices": offices,
        "treasury": treasury,
        "in_treasury": court["in_treasury"],
        "bishops": court["bishop_supply"],
        "seals": court["seal_supply"],
    }


def board_html(view: Mapping[str, Any], names: Names) -> str:
    players = view["players"]
    you = view.get("you")
    laws = view["laws"]
    in_force = {law["title"] for law in laws["current"]}
    resentment = view.get("resentment")
    outcome = view.get("outcome")
    return render(
        "lancaster.html",
        heading=(
            f"Lancaster, round {view['round']} of {view['rounds']}, {view['phase']}; "
            f"start player {players[view['start_player']]['colour']}"
        ),
        prompt=names.text(str(view["prompt"])),
        players=[_player(p, you) for p in players],
        allies=[
            {
                "colour": a["colour"],
                "of": players[a["of"]]["colour"],
                "knights": knights_text(a["knights"]),
            }
            for a in view.get("allies", [])
        ],
        counties=[_county(c) for c in view["counties"]],
        conflicts=[
            _card(row, card)
            for row in ("upper", "lower")
            for card in view["conflicts"][row]
            if card is not None
        ],
        favors=[f"{f['tile']}: {f['reward']}" for f in view["favors"] if f["face_up"]],
        laws_in_force=laws["current"],
        laws_new=[
            law
            for law in laws["new"]
            if not (law.get("status") == "approved" and law["title"] in in_force)
        ],
        votes=view.get("votes", []),
        court=_court(view.get("court")),
        tower=None
        if resentment is None
        else {
            "pieces": resentment["tower"],
            "strength": resentment["tower_strength"],
            "capacity": resentment["tower_capacity"],
        },
        scores=None
        if not outcome
        else [
            {"colour": p["colour"], "score": score}
            for p, score in zip(players, outcome["scores"], strict=True)
        ],
        winners=[] if not outcome else [players[w]["colour"] for w in outcome["winners"]],
        name_of=lambda colour: names.text(str(colour)),
    )
