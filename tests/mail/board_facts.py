"""The facts a mail's board states, read from each part as its reader reads it: from the
text part's lines, and from the HTML part's elements (the grid's squares, the tables' cells,
the lists' items). The property test and the Chromium test compare the two.

Lancelot: each player's captures, losses, knights in hand, shield and squares; Excalibur's
square; the last move. Lancaster: each player's power points, gold, squires and voting
markers (another's hidden value is "?" in the text and "hidden" in the HTML: the same fact),
each county's holder, each conflict's strengths, the laws in force and the new laws' status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

HIDDEN = "hidden"


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return " ".join(
            "".join(
                c if isinstance(c, str) else " " + c.text() + " " for c in self.children
            ).split()
        )

    def all(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Every descendant with ``tag`` and the attributes given (None: present, any value)."""
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if (tag is None or child.tag == tag) and all(
                    (k.replace("_", "-") in child.attrs)
                    and (v is None or child.attrs[k.replace("_", "-")] == v)
                    for k, v in attrs.items()
                ):
                    found.append(child)
                found.extend(child.all(tag, **attrs))
        return found


_VOID = {"br", "meta", "img", "hr", "input", "link"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def tree(html: str) -> Node:
    parser = _Tree()
    parser.feed(html)
    return parser.root


# -- Lancelot ---------------------------------------------------------------------------------

_IN_WORDS = re.compile(
    r"^  (?P<label>.+?): (?P<captures>\d+) captured, (?P<lost>\d+) lost, (?P<hand>\d+) in hand"
    r"(?:, shield (?P<shield>\w+))?; knights on (?P<squares>.+)\.$"
)


def lancelot_text(text: str) -> dict[str, Any]:
    players = {}
    for line in text.splitlines():
        if m := _IN_WORDS.match(line):
            squares = () if m["squares"] == "no square" else tuple(m["squares"].split(", "))
            players[m["label"]] = (
                int(m["captures"]), int(m["lost"]), int(m["hand"]), m["shield"], squares
            )  # fmt: skip
    sword = re.search(r"^  Excalibur: (.+)\.$", text, re.M)
    last = re.search(r"^Last move: (.+) played (.+)\.$", text, re.M)
    return {
        "players": players,
        "excalibur": sword[1] if sword else None,
        "last": (last[1], last[2]) if last else None,
    }


def lancelot_html(html: str) -> dict[str, Any]:
    root = tree(html)
    board = root.all("table", role="grid")
    assert board, "no board grid"
    by_symbol: dict[str, list[str]] = {}
    sword = None
    for cell in board[0].all("td", data_square=None, data_piece=None):
        if cell.attrs["data-piece"] == "X":
            sword = cell.attrs["data-square"]
        else:
            by_symbol.setdefault(cell.attrs["data-piece"], []).append(cell.attrs["data-square"])
    labels = {
        li.attrs["data-knights"]: li.text().split(":")[0]
        for li in root.all("li", data_knights=None)
    }
    players = {}
    for row in root.all("tr", data_player=None):
        facts = {td.attrs["data-fact"]: td.text() for td in row.all("td", data_fact=None)}
        label = row.attrs["data-player"]
        symbol = next(s for s, name in labels.items() if name == label)
        players[label] = (
            int(facts["captures"]), int(facts["lost"]), int(facts["in_hand"]),
            facts.get("shield"), tuple(_board_order(by_symbol.get(symbol, []))),
        )  # fmt: skip
    last = re.search(r"Last move: (.+?) played (.+?) ?\.(?:\s|$)", root.text())
    return {
        "players": players,
        "excalibur": sword if sword is not None else _not_set(labels),
        "last": (last[1], last[2]) if last else None,
    }


def _not_set(labels: dict[str, str]) -> str | None:
    return "not set yet" if "X" in labels else None


def _board_order(squares: list[str]) -> list[str]:
    """Column by column, each from its lowest row: the order the text lists them in."""
    return sorted(squares, key=lambda s: (s[0], int(s[1:])))


# -- Lancaster --------------------------------------------------------------------------------

_PLAYER = re.compile(
    r"^  (?P<who>.+?)(?: \(you\))?: (?P<power>-?\d+) power points, gold (?P<gold>\S+), "
    r"squires (?P<squires>\S+), voting markers (?P<markers>\d+)"
)
_COUNTY = re.compile(r"^  (?P<letter>[A-Z]) .+\): (?P<who>.+)$")
_CONFLICT = re.compile(r"^  (?:upper|lower): Conflict (\d+): France (\d+), England (\d+),")


def _colour(who: str) -> str:
    """ "Ann (Red)" or "Red": "Red"."""
    found = re.search(r"\((\w+)(?:, you)?\)$", who.strip())
    return found[1] if found else who.strip()


def _hidden(value: str) -> str:
    return HIDDEN if value in {"?", HIDDEN} else value


def lancaster_text(text: str) -> dict[str, Any]:
    facts: dict[str, Any] = {"players": {}, "counties": {}, "conflicts": {}}
    facts.update(laws_in_force=set(), laws_new={})
    section = ""
    for line in text.splitlines():
        if line.isupper() or line in {"PLAYERS", "COUNTIES", "CONFLICTS", "LAWS"}:
            section = line
            continue
        if section == "PLAYERS" and (m := _PLAYER.match(line)):
            facts["players"][_colour(m["who"])] = (
                m["power"], _hidden(m["gold"]), _hidden(m["squires"]), m["markers"]
            )  # fmt: skip
        elif section == "COUNTIES" and (m := _COUNTY.match(line)):
            who = m["who"]
            holder = re.match(r"(.+) knight (\d+)", who)
            facts["counties"][m["letter"]] = (
                None if who == "empty" or holder is None else (_colour(holder[1]), holder[2])
            )
        elif section == "CONFLICTS" and (m := _CONFLICT.match(line)):
            facts["conflicts"][m[1]] = (m[2], m[3])
        elif section == "LAWS" and (m := re.match(r"^  in force: (.+?) - ", line)):
            facts["laws_in_force"].add(m[1])
        elif section == "LAWS" and (m := re.match(r"^  new \(([\w ]+)\): (.+?) - ", line)):
            facts["laws_new"][m[2]] = m[1]
    return facts


def lancaster_html(html: str) -> dict[str, Any]:
    root = tree(html)
    facts: dict[str, Any] = {"players": {}, "counties": {}, "conflicts": {}}
    for table in root.all("table", data_player=None):
        cells = {td.attrs["data-fact"]: td.text() for td in table.all("td", data_fact=None)}
        facts["players"][table.attrs["data-player"]] = (
            cells["Power points"], _hidden(cells["Gold"]), _hidden(cells["Squires"]),
            cells["Voting markers"],
        )  # fmt: skip
    for row in root.all("tr", data_county=None):
        held = row.all("td")[1].text()
        holder = re.match(r"(.+?) knight (\d+)", held)
        facts["counties"][row.attrs["data-county"]] = (
            None if holder is None else (_colour(holder[1]), holder[2])
        )
    for row in root.all("tr", data_conflict=None):
        france, england = row.all("td")[1].text().split(" / ")
        facts["conflicts"][row.attrs["data-conflict"]] = (france, england)
    in_force = root.all("ul", data_facts="laws-in-force")
    facts["laws_in_force"] = {
        li.all("strong")[0].text() for ul in in_force for li in ul.all("li") if li.all("strong")
    }
    facts["laws_new"] = {
        li.all("strong")[0].text(): li.all("span")[0].text()
        for ul in root.all("ul", data_facts="laws-new")
        for li in ul.all("li")
    }
    return facts


#: Each game's readers of its board's facts: (from the text part, from the HTML part).
READERS = {
    "lancelot": (lancelot_text, lancelot_html),
    "lancaster": (lancaster_text, lancaster_html),
}
