"""The webhooks' reply words, each a line of its own in a reply to any mail of a game:

- ``webhook https://discord.com/api/webhooks/… discord`` (the form, ``discord``, ``slack``
  or ``json``, may be left out: Discord's and Slack's URLs are recognised, anything else is
  JSON): asks for a webhook of the notices of the sender's address, in all its games. A
  confirmation link is mailed to the seat's address; nothing is sent to the URL before it is
  opened (``pbem.webhooks.subscriptions``);
- ``webhooks``: the address's webhooks, with their numbers;
- ``webhook remove 3``: removes one of them at once.

No game changes: each is answered with a mail saying what was done.
"""

from __future__ import annotations

from pbem.app.service import GameService
from pbem.core.errors import BadRequest
from pbem.core.numbers import NumberError, read_int
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords

CHANNEL = "email"
EXAMPLE = "webhook https://discord.com/api/webhooks/… discord"


def register_reply_words(words: ReplyWords, service: GameService) -> None:
    def listed(line: ReplyLine) -> Done:
        subs = service.address_webhooks(line.email)
        if not subs:
            text = f"{line.email} has no webhook. Reply '{EXAMPLE}' to ask for one."
        else:
            rows = "\n".join(f"  {s.id}: {s.url} ({s.form}, {s.status})" for s in subs)
            text = (
                f"The webhooks of {line.email}:\n{rows}\n\n"
                "Reply 'webhook remove <number>' to remove one."
            )
        return Done(None, "webhooks listed", ("clock", text))

    def webhook(line: ReplyLine) -> Done:
        rest = line.text.strip().split(maxsplit=1)[1:] or [""]
        words_ = rest[0].split()
        if words_ and words_[0].lower() == "remove":
            if len(words_) != 2:
                raise BadRequest(
                    "Write 'webhook remove' and the webhook's number, e.g. 'webhook remove 3'."
                )
            try:
                number = read_int(words_[1], what="the webhook's number", minimum=1)
            except NumberError as e:
                raise BadRequest(str(e)) from None
            service.remove_address_webhook(line.email, number)
            text = f"Webhook {number} removed: nothing more is sent to it."
            return Done(None, f"webhook {number} removed", ("clock", text))
        if not words_ or len(words_) > 2:
            raise BadRequest(
                f"Write 'webhook', its URL and (if you like) its form: '{EXAMPLE}' "
                "(discord, slack or json)."
            )
        url, form = words_[0], (words_[1] if len(words_) == 2 else None)
        waiting = service.request_address_webhook(line.game_id, line.seat, url, form, CHANNEL)
        text = (
            f"A link to confirm webhook {waiting.id} was mailed to {waiting.mailed_to}. "
            "Nothing is sent to it until you open that link and confirm."
        )
        return Done(None, f"webhook {waiting.id} asked for", ("clock", text))

    words.line("webhooks", listed)
    words.first_word("webhook", webhook)
