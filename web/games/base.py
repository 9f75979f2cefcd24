"""What every game's module of ``web.games`` provides, with the defaults of a game that has
no more than them: ``WebGame``.

The pages ask the game for its parts (the board's template and context, what the game page
says of its setup, the move its board's form plays, the fields of the /new form, how those
fields make its config) instead of testing the game's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from engine.core.protocol import Choices

if TYPE_CHECKING:
    from pbem.core.naming import Names

#: The rules' refusal of a config, in their own words (None when they play it).
Problem = Callable[[dict[str, Any]], str | None]


class WebGame:
    """One game as the web pages show it; a game module makes one and registers it."""

    #: the engine's name of the game (``engine.REGISTRY``'s key, the URL's ``/rules/<name>``)
    name: ClassVar[str]
    #: the game's name as people read it
    label: ClassVar[str]
    #: what the /new form says of it after the link to its rules ("(2–5 players)")
    rules_note: ClassVar[str] = ""
    #: the template drawing its board on the game and history pages (None: the text board)
    board_template: ClassVar[str | None] = None
    #: the template of its fields on the /new form ("" for none)
    form_template: ClassVar[str] = ""
    #: the /new form's field beside which the rules' refusal of its config is shown
    config_field: ClassVar[str] = "form"
    #: what the typed-move box adds to "Or type a move"
    typed_hint: ClassVar[str] = ""
    #: the template of what the game page says, below the board, of the choices made when
    #: the game was created (None: nothing)
    setup_template: ClassVar[str | None] = None

    def form_move(self, text: str, form: Mapping[str, str]) -> str:
        """The move the game page's form plays: ``text`` (the clicked choice, else the typed
        text) as it is, unless the board asks for a move's parts in fields of their own."""
        return text

    def read_form(self, form: Mapping[str, str]) -> dict[str, Any]:
        """Its fields of the /new form, as the form's values."""
        return {}

    def blank(self) -> dict[str, Any]:
        """Its fields of a blank /new form."""
        return {}

    def check_fields(self, values: Mapping[str, Any]) -> dict[str, str]:
        """Errors of its own fields (by field name), whichever game is chosen."""
        return {}

    def config(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The game's config from the form's values."""
        return {}

    def config_errors(self, values: Mapping[str, Any], problem: Problem) -> dict[str, str]:
        """The rules' refusal of the config from the form, by the field it is shown beside."""
        found = problem(self.config(values))
        return {self.config_field: found} if found else {}

    def form_context(
        self, rules: Any, values: Mapping[str, Any], players: int, *, chosen: bool
    ) -> dict[str, Any]:
        """What its template of the /new form needs; ``chosen`` when it is the game chosen."""
        return {}

    def setup(self, config: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, Any]:
        """What its setup template needs, from the game's config and the viewer's view."""
        return {}

    def board(
        self, view: Mapping[str, Any], choices: Choices, names: Names, people: Sequence[str]
    ) -> dict[str, Any]:
        """What its board template needs, from the viewer's view and the seat's choices;
        ``names`` names the seats in text, ``people`` as the pages show them."""
        return {}
