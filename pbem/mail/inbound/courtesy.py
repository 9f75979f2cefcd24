"""Greetings and closings in a reply: the lines that are courtesy, not commands, and the
courtesy written on a command's own line ("Hi all - C5", "D5. Thanks, Cat", "E5 👍").

decision (ours, issue 8 "replies are never guessed"): a line is dropped only when it is
*entirely* a greeting (at the top) or a closing (which ends the reply): a greeting or
closing phrase, then at most a few names, then punctuation. A name is a capitalised word
without digits (a single letter is a square's column or a county, so it is no name), a
word of the sender's own name, or a word for everyone ("all", "there"); a word that is a
command in a game ("Pass", "Done", "Yes") is never taken for a name, so "Hi, Pass" stays a
command line. Under the commands, a last line of nothing but the sender's own name ("Bob",
"- Bob Smith": a signature without a closing) is dropped too. Dropping a line can never
apply anything: at worst the reply has no command and gets the "no command found" answer.

decision (ours): on a command's own line, a greeting is cut only from the reply's first line
and only up to a separator ("Hi all - C5", "Hi Eve, E5", "Hi, Pass": never "Hi E" or "Hi
Blue knight 2"), and a closing only when everything after it is a closing and names ("D5.
Thanks, Cat", "F7 Thanks, Bob"); a closing on a command's line ends the reply as a closing
line does. Trailing emoji are cut only when they are friendly (``FRIENDLY_MARKS``): "E5 ❌"
or "E5 👎" could say no to E5, so the game reads (and refuses) them.
"""

from __future__ import annotations

import re

#: A greeting phrase at the start of a line (the languages ``quotes.LANGUAGES`` reads).
_GREETING = re.compile(
    r"^\s*(?:hi|hiya|hello|hey|heya|howdy|dear|greetings|"
    r"good\s+(?:morning|afternoon|evening|day)|morning|afternoon|evening|"
    r"hallo|moin|servus|guten\s+(?:morgen|tag|abend)|liebe[rs]?|"
    r"bonjour|bonsoir|salut|coucou|cher|chère|chers|hola|buenos\s+días|buenas|querido|"
    r"ciao|salve|buongiorno|buonasera|caro|cara|hoi|dag|goedemorgen|goedemiddag|beste)"
    r"(?![\w'’])",
    re.IGNORECASE,
)
#: A closing phrase: the whole line, before an optional name.
_CLOSING = re.compile(
    r"^\s*(?:thanks(?:\s+(?:a\s+lot|again|so\s+much|all|everyone|in\s+advance|"
    r"for\s+(?:the\s+)?(?:game|invite|invitation|reminder|organi[sz]ing(?:\s+this)?)))?|"
    r"thank\s+you(?:\s+(?:all|so\s+much|very\s+much))?|many\s+thanks|much\s+appreciated|"
    r"thx|ta|tia|cheers|regards|(?:best|kind|warm|warmest|kindest)\s+regards|"
    r"best(?:\s+wishes)?|all\s+the\s+best|yours(?:\s+truly|\s+sincerely)?|sincerely|"
    r"take\s+care|bye\s+for\s+now|bye|good\s+luck|have\s+fun|"
    r"see\s+you(?:\s+(?:soon|later))?|cu|talk\s+soon|"
    r"speak\s+soon|ttyl|gl|gg|have\s+a\s+(?:good|great|nice)\s+(?:day|one|evening|weekend)|"
    r"(?:lots\s+of\s+)?love|hugs|x+|xo+|"
    r"greetings|ciao|lg|vg|mfg|merci|danke|gruß|grüße|(?:viele|liebe|beste)\s+grüße|"
    r"saludos|groeten|met\s+vriendelijke\s+groet(?:en)?|mvg|cordialement|bien\s+à\s+vous|"
    r"a\s+presto|saluti|un\s+saluto)"
    r"(?![\w'’])",
    re.IGNORECASE,
)
#: Words for everyone a greeting may name, and kisses after a closing.
_EVERYONE = frozenset(
    {
        *("all", "everyone", "everybody", "there", "folks", "guys", "team", "gang", "again"),
        *("friends", "players", "mates", "both", "y'all", "you", "zusammen", "alle", "tous"),
        *("todos", "tutti", "allemaal", "x", "xx", "xxx"),
    }
)
#: Words that are commands in a game: never taken for a name ("Hi, Pass" is a command).
_COMMAND_WORDS = frozenset(
    {
        *("pass", "done", "yes", "no", "none", "skip", "swap", "noble", "nobleman", "reward"),
        *("nothing", "king", "excalibur", "knight", "favor", "favour", "gold", "squires"),
        *("ransom", "upgrade", "castle", "conflict", "vote", "aye", "nay", "extension"),
        *("help", "undo", "accept", "decline", "resign", "default", "away", "lord", "bishop"),
        *("show", "join", "back", "agree", "disagree", "dispute", "pause", "extend", "both"),
        # Lancaster's colours: "Green" alone names the next start player.
        *("red", "blue", "yellow", "green", "purple"),
    }
)
_NAME_TOKEN = re.compile(r"[^\s,;:!.()\-–—~&]+(?:[.\-][^\s,;:!.()\-–—~&]+)*\.?")
_NAME_LINE_CHARS = re.compile(r"^[\w\s,;:!.'’()\-–—~&]*$")
#: Between names ("Hi Ann and Bob"); no one-letter word, which could be a square or county.
_JOINERS = frozenset({"and", "und", "et", "en"})
MAX_NAMES = 4


def _only_names(rest: str, sender_words: frozenset[str]) -> bool:
    """Whether ``rest`` is nothing but names (see above), joiners and punctuation."""
    if not _NAME_LINE_CHARS.match(rest):
        return False  # digits are allowed by \w; they are refused below
    names = 0
    for token in _NAME_TOKEN.findall(rest):
        low = token.lower().rstrip(".")
        if low in _JOINERS:
            continue
        if low in _EVERYONE or low in sender_words:
            names += 1
            continue
        letters = token.replace(".", "").replace("-", "").replace("'", "").replace("’", "")
        if (
            len(letters) < 2
            or not letters.isalpha()
            or not token[0].isupper()
            or low in _COMMAND_WORDS
        ):
            return False
        names += 1
    return names <= MAX_NAMES


def is_greeting(line: str) -> bool:
    """Whether ``line`` is entirely a greeting: "Hi,", "Hello Bob,", "Dear all,", "Morning!"."""
    found = _GREETING.match(line)
    return found is not None and _only_names(line[found.end() :], frozenset())


def is_closing(line: str, sender_words: frozenset[str] = frozenset()) -> bool:
    """Whether ``line`` is entirely a closing: "Cheers, Ann", "Thanks,", "Best regards"."""
    found = _CLOSING.match(line)
    return found is not None and _only_names(line[found.end() :], sender_words)


def name_words(sender_name: str, address: str = "") -> frozenset[str]:
    """The words of the sender's name: its From display name's, and those of its address
    before the @ ("bob.smith")."""
    local = address.rpartition("@")[0] if "@" in address else ""
    return frozenset(w.lower() for w in re.findall(r"[^\W\d_]{2,}", f"{sender_name} {local}"))


def is_own_name(line: str, sender_words: frozenset[str]) -> bool:
    """Whether ``line`` is nothing but words of the sender's own name (and punctuation): a
    signature such as "Bob" or "-- Bob Smith"."""
    if not sender_words or not _NAME_LINE_CHARS.match(line):
        return False
    tokens = [t.lower().rstrip(".") for t in _NAME_TOKEN.findall(line)]
    return bool(tokens) and all(t in sender_words and t not in _COMMAND_WORDS for t in tokens)


def greeting_then_closing(line: str, sender_words: frozenset[str]) -> bool:
    """Whether ``line`` is a greeting, a separator and a closing, nothing else: "Hi, thanks
    for the game!", "Hello all - cheers". Such a line opening a reply says nothing: read as a
    command line with a closing, it would end the reply before the move under it."""
    found = _GREETING.match(line)
    if found is None:
        return False
    rest = line[found.end() :]
    end = _GREETING_END.search(rest)
    return (
        end is not None
        and _only_names(rest[: end.start()], frozenset())
        and is_closing(rest[end.end() :].strip(), sender_words)
    )


def drop_opening(lines: list[str], sender_words: frozenset[str]) -> list[str]:
    """The lines without the greetings at the top, nor a "Thanks!" (and the sender's name
    under it) written before any command."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or is_greeting(line) or greeting_then_closing(line, sender_words):
            i += 1
        elif is_closing(line, sender_words):
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i < len(lines) and lines[i].strip() and _only_names(lines[i], sender_words):
                i += 1  # "Thanks,\nAnn": the name under the closing
        else:
            break
    return lines[i:]


#: Marks a player may end a command's line with that say nothing about the move: friendly
#: emoji and emoticons. "❌", "👎" or "🤔" are not here: they could take the move back; nor
#: ":D", whose "D" could be a county or a column ("knight 2 to:D").
FRIENDLY_MARKS = frozenset(
    {
        *("👍", "👌", "🙂", "😀", "😃", "😄", "😁", "😊", "😉", "😎", "🤞", "🙏", "👋"),
        *("✌", "🎉", "💪", "🍀", "❤", "♥", "😅", "🤓", "⚔", "🛡", "🏰", "🐴", "☺"),
        *(":)", ":-)", ";)", ";-)", ":-D", "=)", "(:"),
    }
)
#: What an emoji is written with besides its mark: variation selectors, the zero-width joiner
#: and the skin tones.
_EMOJI_PARTS = re.compile("[\ufe0e\ufe0f\u200d\U0001f3fb-\U0001f3ff]")
#: Where a greeting ends on a command's line: a comma, colon, semicolon or "!", or a dash
#: between spaces (not the hyphen of "Mary-Ann").
_GREETING_END = re.compile(r"[,:;!]|\.\s|\s*[-–—]+\s")
#: Where a closing may start on a command's line: after a space or a sentence's end.
_CLOSING_START = re.compile(r"(?<=[\s.,;!])(?=\S)")


def _without_friendly_marks(line: str) -> str:
    """``line`` without the friendly marks (``FRIENDLY_MARKS``) it ends with ("" when it is
    nothing else)."""
    text = _EMOJI_PARTS.sub("", line).rstrip()
    cut = False
    while text:
        mark = next((m for m in FRIENDLY_MARKS if text.endswith(m)), None)
        if mark is None:
            break
        text, cut = text[: -len(mark)].rstrip(), True
    return text if cut else line.rstrip()


def without_greeting(line: str) -> str:
    """A command's line without the greeting it opens with, up to a separator: "Hi all - C5"
    is "C5", "Hi Eve, E5" is "E5"; "Hi E5" or "Hi Blue knight 2" keep theirs (no separator:
    the game reads the line, or refuses it)."""
    found = _GREETING.match(line)
    if found is None:
        return line
    rest = line[found.end() :]
    end = _GREETING_END.search(rest)
    if end is None or not _only_names(rest[: end.start()], frozenset()):
        return line
    command = rest[end.end() :].strip()
    return command if command and not is_closing(command) else line


def closing_on_line(line: str, sender_words: frozenset[str]) -> str | None:
    """The command before a closing on its line ("D5. Thanks, Cat" is "D5"), or None when
    the line does not end with a closing and names."""
    for start in _CLOSING_START.finditer(line):
        tail = line[start.start() :]
        command = line[: start.start()].rstrip(" \t,;-–—")
        if command.strip(" .!") and is_closing(_without_friendly_marks(tail), sender_words):
            return command
    return None


#: The lines that are a player's own words to the other players (table talk,
#: ``pbem.talk.replies``: ``say …``, ``to Bob: …`` with its colon, since "to E5" is a move):
#: such a line is kept as written, its "Good luck, all!", "Thanks" and "👍" included, since
#: they are the message.
FREE_TEXT = re.compile(r"^\s*(?:say\b|to\s+[^:]+:)", re.IGNORECASE)


def is_free_text(line: str) -> bool:
    """Whether ``line`` is a player's own words to the table, to be kept as written."""
    return FREE_TEXT.match(line) is not None


def trim_lines(lines: list[str], sender_words: frozenset[str]) -> list[str]:
    """The reply's lines with the courtesy on its commands' lines cut: the greeting the
    first opens with, friendly marks at their ends, and a closing on a line, which ends the
    reply there. A line of table talk (``is_free_text``) is kept as written."""
    kept: list[str] = []
    for line in lines:
        if is_free_text(line):
            kept.append(line)
            continue
        if not any(k.strip() for k in kept) and line.strip():
            line = without_greeting(line)
        line = _without_friendly_marks(line)  # a line of nothing else becomes empty
        command = closing_on_line(line, sender_words)
        if command is not None:
            kept.append(command)
            break
        kept.append(line)
    return kept
