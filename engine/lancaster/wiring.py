"""Where the expansions hook in: the one place that fills the base game's named extension
points with the pieces of Henry V's modules and of The New Laws.

The base game's modules (frames, pieces, targets, flow, the phases) import no expansion
module: each extension point is a registry or slot beside the code that reads it, and this
module, imported by ``engine.lancaster`` before anything runs, fills them, once. A module's
pieces still act only in games whose config switches it on (each piece checks its module).
The registries and what fills each are listed in engine/lancaster/README.md; below they are
filled by concern: the rules, the setup, the notation, and what pages, mails and views show.
"""

from __future__ import annotations

from typing import Any

from engine.core.protocol import Action
from engine.lancaster import (
    auto,
    choices,
    flow,
    frames,
    henry_v,
    new_laws,
    notation,
    parsing,
    pieces,
    provenance,
    reading,
    setup,
    targets,
    text,
    view,
)
from engine.lancaster.frames import Ctx
from engine.lancaster.henry_v import (
    KINGS_COURT,
    LAWS_OF_THE_KING,
    RESENTMENT,
    court,
    laws_of_the_king,
    phrases,
    privileges,
    resentment,
)
from engine.lancaster.henry_v import choices as henry_v_choices
from engine.lancaster.henry_v import text as henry_v_text
from engine.lancaster.henry_v import view as henry_v_view
from engine.lancaster.new_laws import auto as new_laws_auto
from engine.lancaster.new_laws import choices as new_laws_choices
from engine.lancaster.new_laws import notation as new_laws_notation
from engine.lancaster.new_laws import rules as new_laws_rules
from engine.lancaster.new_laws import view as new_laws_view
from engine.lancaster.phases import (
    conflicts,
    laws,
    parliament,
    placement,
    rewards,
    rounds,
    scoring,
)
from engine.lancaster.state import Occupant, State


def _tower_resolve(
    state: State, seat: int, colour: int, strength: int, value: Any, squires: int, ctx: Ctx
) -> targets.Placed:
    return targets.Placed(
        resentment.tower_resolve(state, seat, colour, strength, value, squires, ctx)
    )


def _tudor_joins(state: State, colour: int, occ: Occupant, card: int, ctx: Ctx) -> State:
    # 001: from Dorset, the Tudor knight joins its knight
    return privileges.join_conflict(state, colour, card, ctx) if occ.tudor else state


def _lord_resolve(state: State, seat: int, action: Action, ctx: Ctx) -> targets.Placed:
    state, back = court.lord_resolve(state, seat, action, ctx)
    return targets.Placed(state, returned_to=back)


_WIRED: list[bool] = []


def wire() -> None:
    if _WIRED:
        return  # once: every registration appends
    _WIRED.append(True)
    _wire_rules()
    _wire_setup()
    _wire_notation()
    _wire_presentation()


def _wire_rules() -> None:
    """What the modules do: places, frames, hooks of the phases, laws, scoring, defaults."""
    # The King's Resentment: the tower is a place for knights, cleared by its own frame
    targets.register_target(
        targets.TargetKind(
            "tower",
            resentment.tower_options,
            resentment.tower_check,
            _tower_resolve,
            lambda _: "tower",
        )
    )
    flow.register_handler(resentment.ClearTower())
    # At the King's Court: the offices are filled by their own frame; a bishop may be taken
    # wherever a knight may be upgraded
    flow.register_handler(court.FillOffices())
    # ... a lord, and knights with a privilege, are placed in phase 1
    placement.PLACEMENTS["lord"] = placement.PlacementKind(
        "lord",
        court.lord_options,
        court.lord_at_court,  # the treasury always takes a lord (001)
        court.lord_at_court,
        court.lord_check,
        _lord_resolve,
    )
    placement.PLACEMENTS["privilege"] = placement.PlacementKind(
        "privilege",
        privileges.privilege_options,
        # a Tudor knight may open a county the knight alone could not enter (no privilege
        # held, no option: asked at every placement turn, so the options are built only then)
        lambda state, seat: (
            any(state.colours[c].privileges for c in state.colours_of(seat))
            and bool(privileges.privilege_options(state, seat))
        ),
        lambda state, seat: False,  # a privilege goes with a knight at court
        privileges.privilege_check,
        privileges.privilege_resolve,
    )
    auto.ONLY_OTHERS.append(court.lord_to_treasury)  # decision 30
    # ... a knight with the shield cannot be expelled; an expelled knight's Tudor knight goes
    # back
    targets.PROTECTED.append(privileges.shielded)
    targets.EXPELLED.append(privileges.expelled)
    pieces.UPGRADE_EXTRAS.append(
        lambda state, colour: ["bishop"] if court.can_take_bishop(state, colour) else []
    )
    pieces.UPGRADE_TAKERS["bishop"] = court.take_bishop
    reading.INSTEAD_OF_UPGRADE.append("bishop")
    # phase 3 opens with the offices filled (001: first of all), then the tower cleared
    # (001: before the counties are scored)
    rounds.BEFORE_COUNTIES.append(lambda state: (("offices",),) if court.active(state) else ())
    rounds.BEFORE_COUNTIES.append(
        lambda state: (("tower_clear",),) if resentment.active(state) else ()
    )
    # At the King's Court: privileges last one round; a privilege goes back with its card;
    # the Tudor knight of round 5 counts for knighthood; seals score
    rounds.NEXT_ROUND.append(
        lambda state, ctx: privileges.next_round(state, ctx) if court.active(state) else state
    )
    conflicts.CARD_LEAVES.append(privileges.return_card_privileges)
    rewards.TO_CONFLICT.append(_tudor_joins)
    rewards.LEAVE_COUNTY.append(privileges.leave_county)
    scoring.KNIGHTHOOD.append(
        lambda state, colour: privileges.final_tudor(state, colour) if court.active(state) else 0
    )
    scoring.SCORINGS.append(scoring.ScoringTerm("seals", court.seals_scoring, KINGS_COURT))
    # The King's Resentment: dishonor for a lost battle (decision 14), and at the end
    conflicts.AFTER_BATTLE.append(resentment.after_battle)
    provenance.VALUE_TEXTS["resentment"] = resentment.value_text
    scoring.SCORINGS.append(
        scoring.ScoringTerm("dishonor", resentment.dishonor_scoring, RESENTMENT)
    )
    # Laws of the King: markers kept for a law go back after the laws (decision 16)
    rounds.LATE_MARKERS.append(lambda state: LAWS_OF_THE_KING in state.expansions)
    parliament.KEEPING_LAWS.append("most_markers_seal")
    laws.register(laws_of_the_king.RULES, laws_of_the_king.VERBS)
    auto.LAW_CHOICE_DEFAULTS["seals"] = laws_of_the_king.dispose_no_seal
    # The New Laws: "retained" markers go back after the laws too (decision 18); squires sent
    # to a conflict go to the supply once it is scored; turned-over extensions flip back
    rounds.LATE_MARKERS.append(lambda state: bool(state.law_sets))
    parliament.KEEPING_LAWS.extend(new_laws_rules.RETAINING)
    laws.register(new_laws_rules.RULES, new_laws_rules.VERBS, new_laws_rules.illegal_reason)
    auto.LAW_CHOICE_DEFAULTS.update(new_laws_auto.DEFAULTS)
    conflicts.AFTER_SCORED.append(new_laws_rules.squires_back)
    rewards.YIELDS_NOTHING.append(new_laws_rules.turned_over)
    rounds.AFTER_CASTLES.append(lambda state: (("extensions_back",),) if state.law_sets else ())
    flow.register_handler(new_laws_rules.ExtensionsBack())


def _wire_setup() -> None:
    """The config, the law sets and the modules' pieces at setup."""
    # the config: Henry V's modules, then The New Laws' law sets (checked after the data)
    setup.CONFIG_SECTIONS.append(
        setup.ConfigSection(
            henry_v.CONFIG_KEY, lambda value, base: henry_v.normalise(value), {}, True
        )
    )
    setup.CONFIG_SECTIONS.append(setup.ConfigSection(new_laws.CONFIG_KEY, new_laws.config_value))
    # the law sets: The New Laws' drawn at setup; Laws of the King in place of groups 2, 3
    setup.LAW_SETS[new_laws.SET] = new_laws.MODULE
    setup.LAW_SETS[laws_of_the_king.SET] = LAWS_OF_THE_KING
    setup.DRAW_LAW_SETS.append(new_laws.draw_law_sets)
    setup.REPLACED_GROUPS.append(laws_of_the_king.replaced_group)
    # the modules' pieces on the table: the tower and the dishonor track, the regal board
    setup.SETUPS.extend((resentment.set_up, court.set_up))


def _wire_notation() -> None:
    """Writing and reading the modules' actions."""
    # the notation writes the actions the frames and the log mention
    frames.set_formatter(notation.format_action)
    # ... and each expansion's own verbs
    notation.FORMATTERS.update(
        lord=phrases.format_lord, privilege=phrases.format_privilege, seals=phrases.format_seals
    )
    notation.FORMATTERS.update(
        dict.fromkeys(new_laws_notation.VERBS, new_laws_notation.format_action)
    )
    parsing.TARGET_WORDS["tower"] = ("tower", None)
    parsing.PLACEMENT_READERS["lord"] = phrases.parse_lord
    parsing.PLACEMENT_KINDS["lord"] = (
        "your lord's placement (e.g. 'lord to chancellor with knight 2' or 'lord to treasury gold')"
    )
    parsing.WITH_KNIGHT["privilege"] = phrases.privilege
    parsing.COUNTED_CHOICES["seals"] = phrases.SEALS
    parsing.LAW_CHOICE_READERS.update(
        dict.fromkeys(new_laws_notation.VERBS, new_laws_notation.parse)
    )


def _wire_presentation() -> None:
    """What views, their text and the choices on pages and in mails show of the modules."""
    # what each module shows in every view (The New Laws' first: their squires come before
    # the Tudor knights on a conflict's space); dishonor and seals are behind the screen
    view.SECTIONS.extend(
        (new_laws_view.add_new_laws, henry_v_view.add_resentment, henry_v_view.add_court)
    )
    text.PLAYER_EXTRAS.extend((henry_v_text.player_dishonor, henry_v_text.player_court))
    text.BOARD_SECTIONS.extend((henry_v_text.kings_court, henry_v_text.kings_resentment))
    text.SCORE_EXTRAS.extend((henry_v_text.score_dishonor, henry_v_text.score_seals))
    text.EXTENSION_MARKS.append(new_laws_view.turned_over_mark)
    text.LAW_SET_NAMES.update({new_laws.SET: "new", laws_of_the_king.SET: "Laws of the King"})
    view.HIDDEN.extend((view.Resource("dishonor", RESENTMENT), view.Resource("seals", KINGS_COURT)))
    # how the pages and mails word the expansions' actions
    choices.ORDER["lord"] = 2  # the lord after the knights
    choices.PLACEMENT_WORDINGS.update(
        lord=henry_v_choices.lord, privilege=henry_v_choices.privilege
    )
    choices.TARGET_WORDINGS["tower"] = henry_v_choices.tower
    choices.LAW_CHOICE_WORDINGS["seals"] = henry_v_choices.seals
    choices.DECLINED_BY_NOTHING.add("seals")
    choices.LAW_CHOICE_WORDINGS.update(new_laws_choices.WORDINGS)
    choices.DECLINED_BY_NONE.update(new_laws_choices.DECLINED_BY_NONE)
    choices.DECLINED_BY_NOTHING.update(new_laws_choices.DECLINED_BY_NOTHING)


wire()
