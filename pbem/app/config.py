"""Settings: pydantic-settings models, loaded from a TOML file and overridden by ``PBEM_*``
variables.

Order of precedence (last wins): the field defaults (the same values as
``config/default.toml``), the TOML file (``PBEM_CONFIG`` or ``config/default.toml``), then
environment variables: ``PBEM_DATABASE_URL`` sets ``database_url``; a key of a section is
``PBEM_<SECTION>_<KEY>`` (``PBEM_MAIL_SMTP_URL`` sets ``mail.smtp_url``).

``load_settings`` alone reads the file and the environment, through two sources of our own
(``TomlFile`` and ``Environment``): they check each value where it is written, so a message
names the file and key, or the variable, that holds the mistake, and a number typed in a
variable goes through the project's one ASCII-only reader (``pbem.core.numbers.read_int``). Settings
built in code (``Settings(database_url=...)``, as tests and benchmarks do) are exactly the
values given over the defaults: neither the environment nor a file leaks into them.

To add a setting: add a field here (a section is a nested ``_Section`` model), a line in
``config/default.toml`` and a row in the README's settings table (a test checks all three).
"""

from __future__ import annotations

import os
import secrets
import time
import tomllib
import types
import typing
from collections.abc import Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from pbem.core.header_text import clean_address
from pbem.core.numbers import NumberError, read_int
from pbem.core.resources import default_config

#: ``config/default.toml``, shipped with the package (a file in a checkout and in a wheel).
DEFAULT_CONFIG = default_config()
ENV_PREFIX = "PBEM_"
#: Between a section and its key in a variable's name: ``PBEM_MAIL_SMTP_URL``.
ENV_NESTED_DELIMITER = "_"


#: Short names for the mail settings, as deployment guides spell them.
ENV_ALIASES = {
    "PBEM_SMTP_URL": "PBEM_MAIL_SMTP_URL",
    "PBEM_IMAP_URL": "PBEM_MAIL_IMAP_URL",
    "PBEM_INBOUND_SECRET": "PBEM_MAIL_INBOUND_SECRET",
}


_M = typing.TypeVar("_M", bound=BaseModel)


class SettingsError(Exception):
    """A setting is unknown or has a value of the wrong kind; the message says which."""


class _Section(BaseModel):
    """A ``[section]`` of the settings file: frozen, and no key of its own invention."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def with_changes(self, **changes: Any) -> Self:
        return _changed(self, changes)


class MailSettings(_Section):
    """The ``[mail]`` section (see docs/mail.md)."""

    #: SMTP relay (``smtp://user:pass@host:587?starttls=1``); empty: write .eml files instead.
    smtp_url: str = ""
    #: Folder of the .eml files when there is no SMTP relay; empty: ``<var_dir>/mail``.
    mail_dir: str = ""
    #: Sender of every mail (also the envelope sender that bounces return to).
    from_address: str = "games@pbem.localhost"
    from_name: str = "pbem"
    #: Domain of the reply addresses ``play+<token>@<reply_domain>``.
    reply_domain: str = "pbem.localhost"
    #: Domain of our Message-IDs; empty: the domain of ``from_address``.
    message_id_domain: str = ""
    #: Bearer secret of ``POST /inbound/email``; empty: the webhook is closed.
    inbound_secret: str = ""
    #: Mailbox polled for replies (``imaps://user:pass@host/INBOX``); empty: no polling.
    imap_url: str = ""
    #: Seconds between IMAP polls.
    imap_interval: int = 60
    #: Seconds between relay runs (sending pending outbox mails).
    relay_interval: int = 5
    #: Mails sent per relay run at most.
    relay_batch: int = 50
    #: Failed sending attempts after which a mail is dead (shown by ``pbem mail dead``).
    max_attempts: int = 8
    #: Backoff after the first failure, doubled each time up to ``backoff_cap``, in seconds.
    backoff_base: int = 30
    backoff_cap: int = 3600
    #: How long a relay holds the mails it is sending before another relay may take them
    #: (renewed as a batch goes on), and a worker an inbound message before the scheduler's
    #: recovery takes it over.
    lease_seconds: int = 120
    #: Also mail a confirmation to the seat whose action was applied.
    confirmations: bool = True
    #: A reply whose From: is not the seat's address: ``refuse`` or ``hold`` (confirm by link).
    from_mismatch: str = "refuse"
    #: Largest inbound message accepted, in bytes.
    max_inbound_bytes: int = 1_000_000
    #: Run the scheduler (relay, IMAP poll, deadline sweep) inside ``pbem serve``.
    embedded_scheduler: bool = True
    #: Days the raw inbound mail is kept after its game finished (or, tied to no game,
    #: after it arrived): the audit's evidence of what players sent.
    inbound_retention_days: int = 365


class InvitationSettings(_Section):
    """The ``[invitations]`` section: mail to an address that never played is an invitation
    (docs/mail.md, "Invitations")."""

    #: Mails one requester's creations (a client address's, or an organiser key's) may send
    #: in 24 hours: every seat with an address counts, invited or not; 0: no limit.
    per_requester_per_day: int = 30
    #: Invitations one address may get in 24 hours, from everyone together; 0: no limit.
    per_address_per_day: int = 3
    #: Games one address may be named in, in 24 hours, from everyone together (whether it has
    #: played or not); 0: no limit.
    games_per_address_per_day: int = 10
    #: Open seats one requester (a client address) may take in an hour, in every game
    #: together; 0: no limit. A join counts against the daily limits above too.
    joins_per_requester_per_hour: int = 10
    #: Open seats one address may take in an hour, in every game together; 0: no limit.
    joins_per_address_per_hour: int = 3
    #: Keys that organisers must give to create a game; empty: anyone may create games.
    organiser_keys: tuple[str, ...] = ()


class DeadlineSettings(_Section):
    """The ``[deadlines]`` section: the sweep that acts on passed deadlines and sends the
    reminders (docs/deadlines.md)."""

    #: Seconds between sweeps (the scheduler's ``deadline-sweep`` job).
    sweep_interval: int = 30
    #: Deadlines, and seats to remind, handled per sweep at most (the rest wait for the next).
    sweep_batch: int = 1000


class WebhookSettings(_Section):
    """The ``[webhooks]`` section: outgoing notices to Discord, Slack or a signed JSON
    receiver (docs/webhooks.md)."""

    #: Allow receivers on private, loopback, link-local, multicast and reserved addresses
    #: (an SSRF guard: off, a webhook can reach only the public internet). Tests turn it on
    #: for their receiver on 127.0.0.1.
    allow_private: bool = False
    #: Allow ``http://`` URLs besides ``https://`` (tests' local receiver; never in production).
    allow_http: bool = False
    #: Seconds to connect, and to wait for the answer, per delivery.
    timeout: int = 5
    #: Seconds between webhook relay runs.
    relay_interval: int = 5
    #: Deliveries per relay run at most.
    relay_batch: int = 20
    #: Failed attempts after which a delivery is dead (``pbem webhook dead``).
    max_attempts: int = 8
    #: Backoff after the first failure, doubled each time up to ``backoff_cap``, in seconds.
    backoff_base: int = 30
    backoff_cap: int = 3600
    #: How long a relay holds the deliveries it is making before another relay may take them.
    lease_seconds: int = 60
    #: Subscriptions one address may have (active or waiting for confirmation).
    max_per_address: int = 5
    #: Subscriptions one game may have.
    max_per_game: int = 5
    #: Hours a confirmation link of a player's subscription works.
    confirm_hours: int = 24


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        case_sensitive=True,
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTED_DELIMITER,
    )

    #: SQLAlchemy URL: SQLite file (embedded default) or PostgreSQL (``postgresql://...``).
    database_url: str = "sqlite:///var/pbem.db"
    #: The public address of the service, used to build links in mails and the CLI.
    base_url: str = "http://127.0.0.1:5000"
    #: Signs tokens (reply addresses). Empty: generated once and kept in ``var_dir/secret_key``.
    secret_key: str = ""
    #: Folder for local data (SQLite file, generated secret key, mail folder).
    var_dir: str = "var"
    #: Serve the development pages (the local mail viewer, every player's mail). Refused at
    #: start unless the server listens on loopback (``pbem serve --dev`` turns it on there).
    dev_pages: bool = False
    #: Store a snapshot (a cache of the state) every this many versions.
    snapshot_every: int = 50
    #: States kept in memory per process (a cache keyed by game, version and hash).
    state_cache_size: int = 512
    #: Largest HTTP request body accepted, in bytes.
    max_content_length: int = 64 * 1024
    #: Most command lines applied from one submission.
    max_command_lines: int = 20
    #: SQLite: how long a writer waits for the lock before giving up, in milliseconds.
    sqlite_busy_timeout_ms: int = 15_000
    #: PostgreSQL: connections kept open per process.
    database_pool_size: int = 5
    #: Log level of the service (DEBUG, INFO, WARNING, ERROR).
    log_level: str = "INFO"
    #: Days a browser keeps the seats it opened after its last visit (the session cookie's
    #: lifetime, checked on the server too: an older cookie opens nothing).
    session_days: int = 14
    #: Mail: notifications through the outbox, replies by mail (``[mail]`` section).
    mail: MailSettings = Field(default_factory=MailSettings)
    #: Invitations: their rate limits and the organiser keys (``[invitations]`` section).
    invitations: InvitationSettings = Field(default_factory=InvitationSettings)
    #: Deadlines: the sweep's interval and batch (``[deadlines]`` section).
    deadlines: DeadlineSettings = Field(default_factory=DeadlineSettings)
    #: Webhooks: the SSRF guard, delivery and limits (``[webhooks]`` section).
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Built in code: the values given and the defaults, nothing else (load_settings reads
        # the file and the environment).
        return (init_settings,)

    def with_changes(self, **changes: Any) -> Self:
        return _changed(self, changes)

    @property
    def var_path(self) -> Path:
        return Path(self.var_dir)


def _changed(model: _M, changes: Mapping[str, Any]) -> _M:
    """A copy with ``changes``; a name that is no setting is a mistake, not a new attribute."""
    unknown = sorted(set(changes) - set(type(model).model_fields))
    if unknown:
        raise TypeError(f"{type(model).__name__} has no setting {', '.join(unknown)}")
    return model.model_copy(update=changes)


class TomlFile(TomlConfigSettingsSource):
    """The settings file: its keys checked against the settings (an unknown key or a value of
    the wrong kind is named with the file and the key), and a missing or malformed file said
    in words."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | Traversable) -> None:
        try:
            found = path.is_file()
        except OSError:
            found = False
        if not found:
            raise SettingsError(
                f"the settings file {path} does not exist; set PBEM_CONFIG to a TOML file "
                "such as config/default.toml"
            )
        self.model = settings_cls  # _read_file runs inside the base class's __init__
        super().__init__(settings_cls, toml_file=path)

    def _read_file(self, file_path: Path | Traversable) -> dict[str, Any]:
        try:
            with file_path.open("rb") as f:
                values = tomllib.load(f)
        except FileNotFoundError:  # removed since __init__ looked
            raise SettingsError(
                f"the settings file {file_path} does not exist; set PBEM_CONFIG to a TOML file "
                "such as config/default.toml"
            ) from None
        except tomllib.TOMLDecodeError as e:
            raise SettingsError(f"{file_path} is not valid TOML: {e}") from None
        return _checked(self.model, values, where=str(file_path))


class Environment(PydanticBaseSettingsSource):
    """``PBEM_<KEY>`` and ``PBEM_<SECTION>_<KEY>`` variables of ``env`` (the process's by
    default), each converted with the variable's name in its error. The short names of
    ``ENV_ALIASES`` count as their full names; the full name wins when both are set. Other
    ``PBEM_*`` variables (``PBEM_CONFIG``, a test's own) are not settings and are left alone."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        aliased = {full: env[short] for short, full in ENV_ALIASES.items() if short in env}
        self.env: Mapping[str, str] = {**aliased, **env}

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        # Required by the base class; __call__ reads every field (sections included) itself.
        name = self.config.get("env_prefix", "") + field_name.upper()
        return self.env.get(name), name, False

    def __call__(self) -> dict[str, Any]:
        return _from_env(
            self.settings_cls,
            self.env,
            prefix=self.config.get("env_prefix", ""),
            delimiter=self.config.get("env_nested_delimiter") or ENV_NESTED_DELIMITER,
        )


def load_settings(
    path: str | Path | Traversable | None = None, env: Mapping[str, str] = os.environ
) -> Settings:
    """Settings from ``path`` (or ``PBEM_CONFIG``, or ``config/default.toml``) and ``env``."""
    chosen: Path | Traversable
    if path is not None:
        chosen = Path(path) if isinstance(path, str) else path
    elif env.get("PBEM_CONFIG"):
        chosen = Path(env["PBEM_CONFIG"])
    else:
        chosen = DEFAULT_CONFIG
    # Highest priority first: the environment over the file, the file over the defaults.
    sources = (Environment(Settings, env), TomlFile(Settings, chosen))
    try:
        # pydantic-settings' documented way to build from sources chosen per call; the typed
        # __init__ that mypy synthesises from the fields does not list it.
        settings = Settings(_build_sources=(sources, {}))  # type: ignore[call-arg]
    except ValidationError as e:  # the sources check every value: kept as a last guard
        raise SettingsError(f"{chosen}: {e}") from None
    _check_values(settings)
    if not settings.secret_key:
        settings = settings.with_changes(secret_key=_stored_secret_key(settings.var_path))
    return settings


def _check_values(settings: Settings) -> None:
    """Values that would otherwise fail later, on every move (a mail that cannot be written
    rolls back the move that caused it), or build broken links."""
    if not settings.base_url.startswith(("http://", "https://")):
        raise SettingsError(f"base_url must start with http:// or https://: {settings.base_url!r}")
    mail = settings.mail
    checks = {
        "mail.from_address": mail.from_address,
        "mail.reply_domain": f"play@{mail.reply_domain}",
        "mail.message_id_domain": f"id@{mail.message_id_domain or 'example.org'}",
    }
    for name, address in checks.items():
        try:
            clean_address(address)
        except ValueError as e:
            raise SettingsError(f"{name} cannot be used in mail headers: {e}") from None
    # Reply addresses and page links are signed with it (pbem/mail/outbound/address.py needs
    # 16 bytes).
    if settings.secret_key and len(settings.secret_key.encode()) < 16:
        raise SettingsError(
            "secret_key is too short: it signs reply addresses and page links, so it needs "
            "16 bytes at least (leave it empty to have one generated in var_dir/secret_key)"
        )
    limits = settings.invitations
    for name in ("per_requester_per_day", "per_address_per_day", "games_per_address_per_day"):
        if getattr(limits, name) < 0:
            raise SettingsError(
                f"invitations.{name} must be 0 (no limit) or more, not {getattr(limits, name)}"
            )
    if not 1 <= settings.session_days <= 366:
        raise SettingsError(
            f"session_days must be from 1 to 366 (days a browser keeps its seats), not "
            f"{settings.session_days}"
        )
    if mail.from_mismatch not in ("refuse", "hold"):
        raise SettingsError(
            f"mail.from_mismatch must be 'refuse' or 'hold', not {mail.from_mismatch!r}"
        )


def _section(field: FieldInfo) -> type[BaseModel] | None:
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _checked(cls: type[BaseModel], values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The file's ``values`` for ``cls``, each of the field's type (sections as dicts)."""
    fields = cls.model_fields
    checked: dict[str, Any] = {}
    for key, value in values.items():
        if key not in fields:
            raise SettingsError(
                f"{where}: unknown setting {key!r}; known settings: {', '.join(sorted(fields))}"
            )
        section = _section(fields[key])
        if section is not None:
            if not isinstance(value, Mapping):
                raise SettingsError(f"{where}: [{key}] must be a section (a TOML table)")
            checked[key] = _checked(section, value, f"{where} [{key}]")
        else:
            checked[key] = _coerce(fields[key].annotation, value, f"{where}: {key}")
    return checked


def _from_env(
    cls: type[BaseModel], env: Mapping[str, str], prefix: str, delimiter: str
) -> dict[str, Any]:
    """The settings of ``cls`` that ``env`` sets, each converted to the field's type."""
    found: dict[str, Any] = {}
    for field_name, field in cls.model_fields.items():
        name = prefix + field_name.upper()
        section = _section(field)
        if section is not None:
            inner = _from_env(section, env, name + delimiter, delimiter)
            if inner:
                found[field_name] = inner
        elif name in env:
            found[field_name] = _coerce(field.annotation, env[name], name)
    return found


def _coerce(hint: Any, value: Any, where: str) -> Any:
    """Check (TOML) or convert (environment strings) a value to the field's type."""
    optional = False
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = len(args) < len(typing.get_args(hint))
        hint = args[0]
    if optional and (value is None or value == ""):
        return None
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"1", "true", "yes", "on"}:
            return True
        if isinstance(value, str) and value.strip().lower() in {"0", "false", "no", "off", ""}:
            return False
        raise SettingsError(f"{where} must be true or false, not {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return read_int(value, what=where, minimum=None, maximum=None)
            except NumberError:
                pass
        raise SettingsError(f"{where} must be a whole number, not {value!r}")
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        raise SettingsError(f"{where} must be a number, not {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise SettingsError(f"{where} must be text (in quotes in TOML), not {value!r}")
    if typing.get_origin(hint) is tuple:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise SettingsError(f"{where} must be a list of texts, not {value!r}")
    raise SettingsError(f"{where}: settings of type {hint!r} are not supported")


def _stored_secret_key(var_dir: Path) -> str:
    """The generated signing key under ``var_dir``: created on first use, then reused."""
    path = var_dir / "secret_key"
    try:
        key = path.read_text(encoding="ascii").strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    # Created with owner-only permissions; O_EXCL so two processes starting at once keep one.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # Another process is creating it right now: wait for its key.
        for _ in range(50):
            key = path.read_text(encoding="ascii").strip()
            if key:
                return key
            time.sleep(0.02)
        raise SettingsError(f"{path} is empty: delete it, or set secret_key") from None
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")
    return key
