"""The SSRF guard: a webhook goes only to https:// hosts on public addresses, checked when it
is added and again at every delivery (to the address checked: DNS rebinding gets nowhere),
unless the operator allows more."""

from __future__ import annotations

import pytest

from pbem.app.config import WebhookSettings
from pbem.core.errors import BadRequest
from pbem.webhooks.models import DEAD
from pbem.webhooks.safety import UnsafeUrl, check_url, is_public
from tests.mail.helpers import MailWorld
from tests.webhooks.helpers import deliveries, fake_resolver, play_one, relay
from tests.webhooks.receiver import Receiver

STRICT = WebhookSettings()  # the production defaults
PUBLIC = fake_resolver(
    {
        "hooks.example.com": ["93.184.215.14"],
        "intranet.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.215.14", "192.168.1.1"],
        "metadata.example.com": ["169.254.169.254"],
        "v6.example.com": ["::1"],
        "mapped.example.com": ["::ffff:127.0.0.1"],
    }
)


def test_a_public_https_url_is_accepted_and_pinned_to_the_address_checked() -> None:
    target = check_url("https://hooks.example.com/api/x?y=1", STRICT, PUBLIC)
    assert (target.scheme, target.host, target.port) == ("https", "hooks.example.com", 443)
    assert (target.path, target.address) == ("/api/x?y=1", "93.184.215.14")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/x", "must start with https://"),
        ("ftp://hooks.example.com/x", "must start with https://"),
        ("https://user:pw@hooks.example.com/x", "user name or password"),
        ("https://10.0.0.5/x", "private, loopback or reserved"),
        ("https://127.0.0.1/x", "private, loopback or reserved"),
        ("https://[::1]/x", "private, loopback or reserved"),
        ("https://intranet.example.com/x", "private, loopback or reserved"),
        ("https://mixed.example.com/x", "private, loopback or reserved"),
        ("https://metadata.example.com/x", "private, loopback or reserved"),
        ("https://v6.example.com/x", "private, loopback or reserved"),
        ("https://mapped.example.com/x", "private, loopback or reserved"),
        ("https://nowhere.example.com/x", "does not resolve"),
        ("https://hooks.example.com/x y", "no spaces"),
        ("https://", "needs a host name"),
        ("https://hooks.example.com/" + "a" * 500, "at most 500"),
    ],
)
def test_unsafe_urls_are_refused_with_the_reason(url: str, reason: str) -> None:
    def resolve(host: str, port: int) -> list[str]:
        return [host.strip("[]")] if host[0].isdigit() or ":" in host else PUBLIC(host, port)

    with pytest.raises(UnsafeUrl) as refused:
        check_url(url, STRICT, resolve)
    assert reason in refused.value.message
    assert isinstance(refused.value, BadRequest)  # a 400 with the message, for the person


def test_localhost_resolved_for_real_is_refused_without_the_setting() -> None:
    with pytest.raises(UnsafeUrl, match="private, loopback"):
        check_url("https://localhost:8443/hook", STRICT)
    allowed = WebhookSettings(allow_private=True)
    assert check_url("https://localhost:8443/hook", allowed).address in ("127.0.0.1", "::1")
    with pytest.raises(UnsafeUrl, match="https://"):
        check_url("http://127.0.0.1:8080/hook", allowed)  # http needs its own setting
    both = WebhookSettings(allow_private=True, allow_http=True)
    assert check_url("http://127.0.0.1:8080/hook", both).port == 8080


def test_the_ranges_that_are_not_public() -> None:
    for address in ("10.0.0.1", "172.16.0.1", "192.168.0.1", "127.0.0.1", "169.254.1.1",
                    "100.64.0.1", "0.0.0.0", "224.0.0.1", "240.0.0.1", "::1", "fe80::1",
                    "fc00::1", "ff02::1", "::ffff:10.0.0.1"):  # fmt: skip
        assert not is_public(address), address
    assert is_public("93.184.215.14") and is_public("2606:2800:220:1::1")


def test_adding_an_unsafe_webhook_changes_nothing(world: MailWorld) -> None:
    game = world.new_game()
    strict = world.service.parts.webhooks
    strict.settings = world.settings.with_changes(webhooks=STRICT)
    for url in ("http://hooks.example.com/x", "https://127.0.0.1/x", "https://10.0.0.1/x"):
        with pytest.raises(UnsafeUrl):
            world.service.add_game_webhook(game.id, game.admin_token, url, "json", "api")
        with pytest.raises(UnsafeUrl):
            world.service.request_address_webhook(game.id, 0, url, "json", "web")
    assert world.service.game_webhooks(game.id, game.admin_token) == []
    assert [m for m in world.outbox() if m.kind == "confirm"] == []


def test_a_host_that_turns_private_after_it_was_added_gets_nothing(
    world: MailWorld, receiver: Receiver
) -> None:
    """DNS rebinding: public when added, 127.0.0.1 at delivery: checked again, refused."""
    game = world.new_game()
    strict = world.settings.with_changes(webhooks=STRICT)
    hooks = world.service.parts.webhooks
    hooks.settings, hooks.resolve = strict, PUBLIC
    world.service.add_game_webhook(
        game.id, game.admin_token, f"https://hooks.example.com:{receiver.port}/x", "json", "api"
    )
    play_one(world, game.id)
    rebound = fake_resolver({"hooks.example.com": ["127.0.0.1"]})
    run = relay(world, resolve=rebound)
    run.settings = strict
    assert run.run_once().dead == 1
    [row] = deliveries(world)
    assert row.status == DEAD and "URL refused" in (row.last_error or "")
    assert receiver.received == []


def test_the_delivery_connects_to_the_address_checked_never_resolving_again(
    receiver: Receiver,
) -> None:
    """A name no real DNS knows, resolved by the check alone: the request still arrives, so
    the connection went to the checked address (with the name as the Host)."""
    from pbem.webhooks.safety import post

    allowed = WebhookSettings(allow_private=True, allow_http=True)
    only_here = fake_resolver({"rebind.invalid": ["127.0.0.1"]})
    target = check_url(f"http://rebind.invalid:{receiver.port}/pinned", allowed, only_here)
    answer = post(target, b"{}", {"Content-Type": "application/json"}, 2.0)
    assert answer.status == 204
    [got] = receiver.received
    assert got.path == "/pinned" and got.headers["Host"] == f"rebind.invalid:{receiver.port}"
