"""Lancaster on the web pages: its board (``games/_lancaster.html``: the drawn board of
``web.games.lancaster_board`` and ``games/_lancaster_board*.html``, then the text cards of
``games/_lancaster_cards.html``, with Henry V's parts in
``games/_lancaster_henry.html``: the seat's choices as the engine words them), the laws a game
of The New Laws plays (``games/_lancaster_laws.html``), and its fields of the /new form
(``games/_lancaster_new.html``): the Henry V modules, the laws, and how many values of each
choice are not from a published source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.core.protocol import Choices
from pbem.play.component_values import count_for, law_sets
from web.games.base import Problem, WebGame
from web.games.lancaster_board import board as drawn_board
from web.games.lancaster_board import wrap
from web.pages.choices import for_people

if TYPE_CHECKING:
    from pbem.core.naming import Names

#: Lancaster's Henry V modules, as the form names them (the rules' config keys).
HENRY_V = {
    "kings_court": "At the King's Court",
    "resentment": "The King's Resentment",
    "laws_of_the_king": "Laws of the King (only with both others)",
}
#: Lancaster's laws (the config's ``new_laws``): the base game's, The New Laws instead, or
#: combined group by group
LAWS = {
    "base": "The base game's laws",
    "replace": "The New Laws instead of the base laws",
    "combine": "Combined: for each group, the base laws, The New Laws, or drawn at random",
}
#: what each law group may play when the laws are combined (the config's list of five)
LAW_GROUP_CHOICES = {"base": "base laws", "new": "The New Laws", "random": "drawn at random"}
LAW_GROUPS = (0, 1, 2, 3, 4)


def _new_laws(values: Mapping[str, Any]) -> str | list[str] | None:
    """The config's ``new_laws`` from the form: None for the base laws, "replace", or for
    combined laws "combine" (every group drawn at random) or the five groups' choices."""
    if values.get("laws") == "replace":
        return "replace"
    if values.get("laws") == "combine":
        groups = list(values["law_groups"])
        return "combine" if all(g == "random" for g in groups) else groups
    return None


class Lancaster(WebGame):
    name = "lancaster"
    label = "Lancaster"
    rules_note = "(2–5 players, with or without the Henry V expansion)"
    board_template = "games/_lancaster.html"
    form_template = "games/_lancaster_new.html"
    config_field = "expansions"
    typed_hint = " (any line you could write in a mail)"
    setup_template = "games/_lancaster_laws.html"

    def read_form(self, form: Mapping[str, str]) -> dict[str, Any]:
        return {
            "expansions": {key: bool(form.get(key)) for key in HENRY_V},
            "laws": form.get("laws", "base").strip(),
            "law_groups": [form.get(f"law_group{g}", "random").strip() for g in LAW_GROUPS],
        }

    def blank(self) -> dict[str, Any]:
        return {"expansions": {}, "laws": "base", "law_groups": ["random"] * len(LAW_GROUPS)}

    def check_fields(self, values: Mapping[str, Any]) -> dict[str, str]:
        if values["laws"] not in LAWS:
            # A hostile or stale form: say what can be chosen, never echo what was sent.
            return {"laws": "Choose one of the sets of laws listed."}
        if values["laws"] == "combine":
            bad = [
                str(g)
                for g, c in zip(LAW_GROUPS, values["law_groups"], strict=True)
                if c not in LAW_GROUP_CHOICES
            ]
            if bad:
                return {
                    "laws": (
                        f"For group{'s' if len(bad) > 1 else ''} {', '.join(bad)}, choose the "
                        "base laws, The New Laws or drawn at random."
                    )
                }
        return {}

    def config(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Lancaster's Henry V modules and laws."""
        config: dict[str, Any] = {
            "expansions": {k: True for k, on in values["expansions"].items() if on}
        }
        laws = _new_laws(values)
        if laws is not None:
            config["new_laws"] = laws
        return config

    def config_errors(self, values: Mapping[str, Any], problem: Problem) -> dict[str, str]:
        # The rules' own check of the chosen modules, shown by their field; then of the laws
        # chosen with them, shown by the laws' field.
        config = self.config(values)
        laws = config.pop("new_laws", None)
        found = problem(config)
        if found:
            return {"expansions": found}
        if laws is not None:
            config["new_laws"] = laws
            found = problem(config)
            if found:
                return {"laws": found}
        return {}

    def form_context(
        self, rules: Any, values: Mapping[str, Any], players: int, *, chosen: bool
    ) -> dict[str, Any]:
        return {
            "henry_v": HENRY_V,
            "laws": LAWS,
            "law_groups": LAW_GROUPS,
            "law_group_choices": LAW_GROUP_CHOICES,
            "provisional": self._provisional_counts(rules, values, players, chosen=chosen),
        }

    def _provisional_counts(
        self, rules: Any, values: Mapping[str, Any], players: int, *, chosen: bool
    ) -> dict[str, Any]:
        """How many values of a Lancaster game are not from a published source, for the form:
        ``chosen`` for the config as filled in (None when the rules refuse it, or when another
        game is chosen), and ``table``, the count for each choice of Henry V modules (the rows)
        and of laws (the columns: only those the rules play, and only when a set of laws
        changes a count)."""
        combos: list[tuple[str, ...]] = rules.module_combinations()
        laws_modes = [("base", None), ("replace", "replace"), ("combine", "combine")]
        table: list[tuple[str, list[int | None]]] = []
        for combo in combos:
            config: dict[str, Any] = {"players": players}
            if combo:
                config["expansions"] = dict.fromkeys(combo, True)
            counts = []
            for _, laws in laws_modes:
                counts.append(count_for(rules, {**config, "new_laws": laws} if laws else config))
            label = " and ".join(HENRY_V[m].removesuffix(" (only with both others)") for m in combo)
            table.append((label or "None", counts))
        # A column of laws shows only when the rules play them and they change a count.
        keep = [0] + [
            i
            for i in range(1, len(laws_modes))
            if any(c[i] is not None and c[i] != c[0] for _, c in table)
        ]
        count = count_for(rules, {**self.config(values), "players": players}) if chosen else None
        return {
            "chosen": count,
            "columns": [LAWS[laws_modes[i][0]] for i in keep],
            "table": [(label, [c[i] for i in keep]) for label, c in table],
        }

    def setup(self, config: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
        # which laws each law group plays (The New Laws, chosen at creation; none for the
        # base laws)
        return {"law_sets": law_sets(config, view)}

    def board(
        self, view: Mapping[str, Any], choices: Choices, names: Names, people: Sequence[str]
    ) -> dict[str, Any]:
        groups = for_people(choices, names)
        # the drawn board and its spots, from the same named groups as the list of choices
        return {"groups": groups, "wrap": wrap, **drawn_board(view, groups)}


GAME = Lancaster()
