"""The New Laws' config (rules 2.1.0; decision 18): what each form normalises to, what is
refused, the setup's draws (recorded, shown, replayed), and that 1.0.0 and 2.0.0 are as
they were."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import REGISTRY
from engine.core import contract
from engine.core.protocol import ConfigError
from engine.lancaster import LANCASTER, LANCASTER_1_0, LANCASTER_2_0, LANCASTER_2_1
from engine.lancaster.new_laws import NEW_LAWS
from engine.lancaster.provenance import provenance

HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}


def test_new_games_get_2_1_0_and_the_older_releases_stay_registered() -> None:
    assert LANCASTER is LANCASTER_2_1 and REGISTRY["lancaster"] is LANCASTER_2_1
    assert REGISTRY.versions("lancaster") == ("1.0.0", "2.0.0", "2.1.0")


@pytest.mark.parametrize(
    ("given_value", "normalised"),
    [
        ("replace", ["new"] * 5),
        ("combine", ["random"] * 5),
        (["new", "base", "random", "base", "new"], ["new", "base", "random", "base", "new"]),
        (("base", "new", "base", "base", "base"), ["base", "new", "base", "base", "base"]),
    ],
)
def test_each_form_of_new_laws_normalises_to_the_list_of_five(
    given_value: Any, normalised: list[str]
) -> None:
    config = LANCASTER.validate_config({"players": 3, "new_laws": given_value})
    assert config["new_laws"] == normalised
    assert LANCASTER.validate_config(config) == config  # normalised stays normalised


@pytest.mark.parametrize("base_only", ["none", ["base"] * 5])
def test_base_laws_only_normalise_to_no_key(base_only: Any) -> None:
    assert "new_laws" not in LANCASTER.validate_config({"players": 3, "new_laws": base_only})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("both", 'must be "none", "replace", "combine"'),
        (["new"] * 4, "one choice per law group 0 to 4 (five), not 4"),
        (["new", "old", "new", "new", "new"], "group 1: 'old' is not one of"),
        ([1, 2, 3, 4, 5], "group 0: 1 is not one of"),
        (True, 'must be "none", "replace", "combine" or a list'),
        ({"0": "new"}, "or a list of five choices"),
    ],
)
def test_a_wrong_new_laws_value_is_refused_clearly(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        LANCASTER.validate_config({"players": 3, "new_laws": value})


@pytest.mark.parametrize(
    "value",
    ["x" * 60_000, ["base", "new", "random", "base", "y" * 60_000], [{"z": "w" * 9_000}] * 5],
)
def test_a_refused_new_laws_value_is_not_echoed_whole(value: Any) -> None:
    # the API's body may be 64 KB and the command line's config has no limit: the error
    # names the value by its first characters, not all of them
    with pytest.raises(ConfigError) as refused:
        LANCASTER.validate_config({"players": 3, "new_laws": value})
    assert len(str(refused.value)) < 200 and "..." in str(refused.value)


@pytest.mark.parametrize("rules", [LANCASTER_1_0, LANCASTER_2_0])
def test_releases_before_2_1_0_refuse_the_new_laws(rules: Any) -> None:
    with pytest.raises(ConfigError, match=f"Rules {rules.version} have no The New Laws"):
        rules.validate_config({"players": 3, "new_laws": "replace"})


def test_the_new_laws_are_18_in_their_rulebook_groups_with_rulebook_provenance() -> None:
    assert [sum(1 for law in NEW_LAWS if law.group == g) for g in range(5)] == [3, 4, 4, 4, 3]
    assert all(law.module == "new_laws" for law in NEW_LAWS)
    tags = provenance(LANCASTER_2_1.base)
    assert {tags[f"laws.{law.key}.group"] for law in NEW_LAWS} == {"rulebook"}
    # 1.0.0 and 2.0.0 keep their datasets: none of these laws is in them
    keys = {law.key for law in NEW_LAWS}
    assert not keys & {law.key for law in LANCASTER_2_0.base.laws}
    assert not keys & {law.key for law in LANCASTER_1_0.base.laws}


def test_replace_plays_only_new_laws_and_henry_v_replaces_groups_2_and_3() -> None:
    state = LANCASTER.initial_state({"players": 3, "new_laws": "replace"}, 4)
    keys = {law.key for law in NEW_LAWS}
    assert set(state.laws + state.new_laws + state.law_pile) == keys
    assert state.law_sets == ("new",) * 5 and state.law_sets_drawn == (False,) * 5
    king = LANCASTER.initial_state({"players": 3, "new_laws": "replace", "expansions": HENRY_V}, 4)
    assert king.law_sets == ("new", "new", "king", "king", "new")
    assert LANCASTER.law_sets({"players": 3, "new_laws": "combine", "expansions": HENRY_V}) == [
        "random",
        "random",
        "king",
        "king",
        "random",
    ]
    groups = {
        g: {
            LANCASTER.base.law(k).module
            for k in king.new_laws + king.law_pile
            if LANCASTER.base.law(k).group == g
        }
        for g in (1, 2, 3, 4)
    }
    assert groups == {
        1: {"new_laws"},
        2: {"laws_of_the_king"},
        3: {"laws_of_the_king"},
        4: {"new_laws"},
    }


def test_combine_draws_each_group_is_recorded_shown_and_replayed_from_the_seed() -> None:
    seen = set()
    for seed in range(1, 12):
        state = LANCASTER.initial_state({"players": 4, "new_laws": "combine"}, seed)
        assert state.law_sets_drawn == (True,) * 5
        seen.add(state.law_sets)
        again = LANCASTER.initial_state({"players": 4, "new_laws": "combine"}, seed)
        assert again.law_sets == state.law_sets
        shown = LANCASTER.view(state, None)["laws"]["sets"]
        assert [(s["set"], s["drawn"]) for s in shown] == [(s, True) for s in state.law_sets]
        text = LANCASTER.render_text(LANCASTER.view(state, 0))
        assert f"Laws: group 0 {state.law_sets[0]} (drawn), 1 {state.law_sets[1]} (drawn)" in text
        loaded = LANCASTER.load_state(LANCASTER.dump_state(state))
        assert (loaded.law_sets, loaded.law_sets_drawn) == (state.law_sets, (True,) * 5)
    assert len(seen) > 1  # the draws differ between seeds


@pytest.mark.parametrize("rules", [LANCASTER_1_0, LANCASTER_2_0, LANCASTER_2_1])
def test_a_game_without_new_laws_dumps_and_shows_no_trace_of_them(rules: Any) -> None:
    state = contract.random_game(rules, {"players": 3}, 5)
    dumped = rules.dump_state(state)
    assert "law_sets" not in dumped and "turned" not in str(dumped)
    view = rules.view(state, None)
    assert "sets" not in view["laws"] and "turned_over" not in str(view)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    players=st.integers(2, 5),
    form=st.sampled_from(
        [
            {"new_laws": "replace"},
            {"new_laws": "combine"},
            {"new_laws": ["random", "new", "base", "random", "new"]},
            {"new_laws": "combine", "expansions": HENRY_V},
        ]
    ),
    seed=st.integers(1, 10_000),
)
def test_random_games_with_the_new_laws_always_finish(
    players: int, form: dict[str, Any], seed: int
) -> None:
    config = {"players": players, **form}
    final = contract.random_game(LANCASTER, config, seed)
    assert LANCASTER.outcome(final) is not None and not LANCASTER.to_act(final)
    first = LANCASTER.initial_state(config, seed)
    assert final.law_sets == first.law_sets and final.law_sets_drawn == first.law_sets_drawn
    assert "sets" in LANCASTER.view(final, None)["laws"]


#: every law form the config offers, by its normalised list (base laws only: no key)
LAW_FORMS = {
    "base": {},
    "replace": {"new_laws": "replace"},
    "combine": {"new_laws": "combine"},
    "per-group": {"new_laws": ["random", "new", "base", "random", "new"]},
}


@pytest.mark.parametrize(
    "modules", LANCASTER.module_combinations(), ids=lambda m: "+".join(m) or "none"
)
@pytest.mark.parametrize("form", LAW_FORMS, ids=str)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_law_form_with_every_henry_v_module_set_plays_to_the_end(
    players: int, form: str, modules: tuple[str, ...]
) -> None:
    config = {"players": players, **LAW_FORMS[form]}
    if modules:
        config["expansions"] = dict.fromkeys(modules, True)
    for seed in (1, 2):
        final = contract.random_game(LANCASTER, config, seed)
        outcome = LANCASTER.outcome(final)
        assert outcome is not None and outcome.winners and not LANCASTER.to_act(final)


def test_random_games_under_replace_make_every_kind_of_new_law_choice() -> None:
    """The playouts above reach the New Laws' choices, not only their gains."""
    verbs: set[str] = set()

    def seen(before: Any, seat: int, action: Any, after: Any) -> None:
        verbs.add(str(action[0]))

    for players in (2, 3, 4, 5):
        for seed in range(1, 7):
            contract.random_game(
                LANCASTER, {"players": players, "new_laws": "replace"}, seed, on_step=seen
            )
    assert {
        "send",
        "buy_extension",
        "recall",
        "turn_over",
        "exchange",
        "batches",
        "upgrade",
    } <= verbs, verbs


def test_every_new_law_choice_reads_back_from_its_canonical_text_without_a_comma() -> None:
    """What the mails suggest parses back to the same choice ("recall A" too, whose letter is
    also an English word), and holds no comma: a mail lists its suggestions separated by
    commas."""
    checked: list[str] = []

    def seen(before: Any, seat: int, action: Any, after: Any) -> None:
        if action[0] not in ("recall", "turn_over", "send", "buy_extension", "exchange", "batches"):
            return
        for legal in LANCASTER.legal_actions(before, seat):
            text = LANCASTER.format_action(before, legal)
            assert "," not in text, text
            assert LANCASTER.parse_action(before, seat, text) == legal, text
            checked.append(text)

    for players in (2, 3, 4, 5):
        for seed in range(1, 5):
            contract.random_game(
                LANCASTER, {"players": players, "new_laws": "replace"}, seed, on_step=seen
            )
    assert any(t.startswith("recall ") and " and " in t for t in checked)
