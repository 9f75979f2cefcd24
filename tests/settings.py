"""Test settings, built in one place: every suite's settings come from ``build_settings``.

Each suite keeps its own preset (the values its tests were written against: a key, a base URL,
mail addresses), written here as a call of the one builder, so that a new setting, or a change
in how settings are made, is a change to this file alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pbem.app.config import DeadlineSettings, InvitationSettings, MailSettings, Settings

#: The service suites' signing key (tests that sign links themselves use it too).
TEST_SECRET = "test-only-secret"
#: The mail suite's [mail] section.
MAIL_SUITE = {
    "from_address": "games@pbem.test",
    "from_name": "Lancelot by mail",
    "reply_domain": "reply.pbem.test",
    "inbound_secret": "hook-secret",
    "backoff_base": 30,
    "backoff_cap": 600,
    "max_attempts": 5,
}


def build_settings(
    database_url: str,
    var_dir: Path | str,
    *,
    mail: Mapping[str, object] | None = None,
    invitations: Mapping[str, object] | None = None,
    deadlines: Mapping[str, object] | None = None,
    **changes: object,
) -> Settings:
    """Settings for a test: the database and folder it uses, the service suites' key and
    snapshot interval, then ``changes`` (top-level settings) and the sections' changes over
    their defaults. Neither the environment nor a settings file is read."""
    values: dict[str, object] = {
        "database_url": database_url,
        "secret_key": TEST_SECRET,
        "var_dir": str(var_dir),
        "snapshot_every": 5,
        **changes,
    }
    if mail is not None:
        values["mail"] = MailSettings.model_validate(mail)
    if invitations is not None:
        values["invitations"] = InvitationSettings.model_validate(invitations)
    if deadlines is not None:
        values["deadlines"] = DeadlineSettings.model_validate(deadlines)
    return Settings.model_validate(values)


def make_settings(database_url: str, var_dir: Path, **changes: object) -> Settings:
    """The service, web and browser suites' settings."""
    return build_settings(database_url, var_dir, **changes)


def mail_settings(database_url: str, var_dir: Path, **mail: object) -> Settings:
    """The mail suite's settings: its addresses, webhook secret and retry schedule."""
    return build_settings(
        database_url,
        var_dir,
        base_url="https://pbem.test",
        secret_key="test-only-secret-for-the-mail-suite",
        mail={**MAIL_SUITE, **mail},
    )


def contract_settings(
    database_url: str, var_dir: Path, *, inbound_secret: str, smtp_url: str = ""
) -> Settings:
    """The contract suite's settings: the service as deployed, mail through ``smtp_url``, the
    webhook opened with its players' ``inbound_secret``."""
    return build_settings(
        database_url,
        var_dir,
        base_url="https://pbem.test",
        secret_key="contract-suite-secret",
        snapshot_every=16,
        mail={
            "smtp_url": smtp_url,
            "from_address": "games@pbem.test",
            "reply_domain": "reply.pbem.test",
            "inbound_secret": inbound_secret,
        },
    )


def with_mail(settings: Settings, **changes: object) -> Settings:
    """``settings`` with some ``[mail]`` settings changed."""
    return settings.with_changes(mail=settings.mail.with_changes(**changes))


def with_invitations(settings: Settings, **limits: object) -> Settings:
    """``settings`` whose ``[invitations]`` are the defaults with ``limits`` changed."""
    return settings.with_changes(invitations=InvitationSettings().with_changes(**limits))


def webhook_settings(database_url: str, var_dir: Path, **webhooks: object) -> Settings:
    """The webhook suite's settings: the mail suite's, with webhooks allowed to reach the
    tests' receiver on 127.0.0.1 over http (never so in production)."""
    return build_settings(
        database_url,
        var_dir,
        base_url="https://pbem.test",
        secret_key="test-only-secret-for-the-mail-suite",
        mail=MAIL_SUITE,
        webhooks={
            "allow_private": True,
            "allow_http": True,
            "backoff_base": 30,
            "backoff_cap": 600,
            "max_attempts": 4,
            "timeout": 2,
            **webhooks,
        },
    )
