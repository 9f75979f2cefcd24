"""How Henry V's pieces read in the plain-text rendering of a view (``text.py``'s extension
points): dishonor, seals, the lord and privileges on a player's line, the King's Court and the
King's Resentment after the counties, dishonor and seals in the final scores. Like ``text.py``
it reads only the view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.lancaster.text import ONE, counted, or_unknown


def player_dishonor(p: Mapping[str, Any]) -> str:
    return f", dishonor {or_unknown(p['dishonor'])}" if "dishonor" in p else ""


def player_court(p: Mapping[str, Any]) -> str:
    if "seals" not in p:
        return ""
    text = f", seals {or_unknown(p['seals'])}, bishops {p['bishops']}, lord {p['lord']}"
    if p["privileges"] or p["granted"]:
        text += (
            f", privileges {' '.join(p['privileges']) or '-'}"
            f" (next round: {' '.join(p['granted']) or '-'})"
        )
    return text


def kings_court(view: Mapping[str, Any]) -> list[str]:
    regal = view.get("court")
    if not regal:
        return []
    lines = ["", "THE KING'S COURT"]
    for o in regal["offices"]:
        holder = o["holder"]["colour"] if o["holder"] else "nobody"
        a = o["applicant"]
        applicant = f"{a['colour']} (stack {a['stack']})" if a is not None else "no applicant"
        # An office granting no seal names only its privilege, never "0 seals".
        granted = [counted(o["seals"], "seal", "seals")] if o["seals"] else []
        granted += [o["privilege"]] if o["privilege"] else []
        grant = " + ".join(granted) or "nothing"
        lines.append(
            f"  {o['title']} (tribute 1 {ONE[o['tribute']]}; {grant}): "
            f"held by {holder}; {applicant}"
        )
    t = regal["treasury"]
    lords = ", ".join(f"{colour}'s lord" for colour in regal["in_treasury"]) or "none"
    lines.append(
        f"  Treasury: {counted(t['voting_markers'], 'voting marker', 'voting markers')}, "
        f"{counted(t['squires'], 'squire', 'squires')}, "
        f"{t['gold']} gold; lords inside: {lords}"
    )
    lines.append(
        f"  Supply: {counted(regal['bishop_supply'], 'bishop', 'bishops')}, "
        f"{counted(regal['seal_supply'], 'regal seal', 'regal seals')}"
    )
    return lines


def kings_resentment(view: Mapping[str, Any]) -> list[str]:
    resentment = view.get("resentment")
    if not resentment:
        return []
    tower = ", ".join(f"{k['colour'] or 'neutral'} {k['strength']}" for k in resentment["tower"])
    track = " ".join(
        f"[{t['markers']}: -{t['penalties'][0]}/-{t['penalties'][1]}]" for t in resentment["track"]
    )
    return [
        "",
        "THE KING'S RESENTMENT",
        f"  Tower ({resentment['tower_strength']} of {resentment['tower_capacity']}): "
        f"{tower or 'empty'}",
        f"  Dishonor track: {track}; supply box {resentment['supply_box']}",
    ]


def score_dishonor(b: Mapping[str, Any]) -> str:
    return f", dishonor {b['dishonor']}" if "dishonor" in b else ""


def score_seals(b: Mapping[str, Any]) -> str:
    return f", seals {b['seals']}" if "seals" in b else ""
