"""Settings: defaults, the TOML file, environment overrides and errors people can act on."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from pbem.app.config import DEFAULT_CONFIG, Settings, SettingsError, load_settings


def _fields(cls: type[BaseModel], prefix: str = "") -> set[str]:
    """Dotted names of every setting, sections (nested models) included."""
    names = set()
    for name, field in cls.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            names |= _fields(field.annotation, prefix + name + ".")
        else:
            names.add(prefix + name)
    return names


def _toml_keys(data: dict, prefix: str = "") -> set[str]:
    keys = set()
    for k, v in data.items():
        if isinstance(v, dict):
            keys |= _toml_keys(v, prefix + k + ".")
        else:
            keys.add(prefix + k)
    return keys


def test_default_toml_lists_every_setting_with_the_default_value() -> None:
    data = tomllib.loads(DEFAULT_CONFIG.read_text())
    assert _toml_keys(data) == _fields(Settings)
    loaded = load_settings(DEFAULT_CONFIG, env={})
    defaults = Settings()
    for name in Settings.model_fields:
        if name != "secret_key":
            assert getattr(loaded, name) == getattr(defaults, name), name


def test_readme_settings_table_names_every_setting() -> None:
    readme = (DEFAULT_CONFIG.parent.parent / "README.md").read_text()
    missing = [name for name in sorted(_fields(Settings)) if f"`{name}`" not in readme]
    assert missing == []


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'database_url = "sqlite:///a.db"\nvar_dir = "{tmp_path}"\nsnapshot_every = 7\n')
    s = load_settings(
        cfg,
        env={"PBEM_DATABASE_URL": "postgresql://x@h/db", "PBEM_DEV_PAGES": "false"},
    )
    assert s.database_url == "postgresql://x@h/db"
    assert s.dev_pages is False
    assert s.snapshot_every == 7


def test_pbem_config_variable_selects_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'base_url = "https://example.org"\nvar_dir = "{tmp_path}"\n')
    assert load_settings(env={"PBEM_CONFIG": str(cfg)}).base_url == "https://example.org"


def test_unknown_setting_is_named(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('databse_url = "sqlite://"\n')
    with pytest.raises(SettingsError, match=r"unknown setting 'databse_url'.*database_url"):
        load_settings(cfg, env={})


def test_wrong_kind_of_value_is_explained(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="PBEM_SNAPSHOT_EVERY must be a whole number"):
        load_settings(
            DEFAULT_CONFIG, env={"PBEM_SNAPSHOT_EVERY": "lots", "PBEM_VAR_DIR": str(tmp_path)}
        )


def test_secret_key_is_generated_once_and_kept(tmp_path: Path) -> None:
    env = {"PBEM_VAR_DIR": str(tmp_path / "var")}
    first = load_settings(DEFAULT_CONFIG, env=env).secret_key
    second = load_settings(DEFAULT_CONFIG, env=env).secret_key
    assert len(first) >= 40
    assert first == second
    assert (tmp_path / "var" / "secret_key").stat().st_mode & 0o077 == 0
    given = "a-key-given-by-the-operator"
    assert load_settings(DEFAULT_CONFIG, env={**env, "PBEM_SECRET_KEY": given}).secret_key == given


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PBEM_MAIL_FROM_ADDRESS", "pbem games", "mail.from_address cannot be used"),
        ("PBEM_MAIL_REPLY_DOMAIN", "reply_domain.example.org", "mail.reply_domain cannot"),
        ("PBEM_MAIL_MESSAGE_ID_DOMAIN", "a b", "mail.message_id_domain cannot"),
        ("PBEM_MAIL_FROM_MISMATCH", "hodl", "must be 'refuse' or 'hold'"),
        ("PBEM_BASE_URL", "pbem.example.org", "base_url must start with http"),
    ],
)
def test_values_that_would_break_every_mail_are_refused_at_start(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(DEFAULT_CONFIG, env={"PBEM_VAR_DIR": str(tmp_path), variable: value})


def test_a_secret_key_too_short_to_sign_with_is_refused_when_the_settings_load(
    tmp_path: Path,
) -> None:
    with pytest.raises(SettingsError, match=r"secret_key is too short.*16 bytes"):
        load_settings(env={"PBEM_SECRET_KEY": "short", "PBEM_VAR_DIR": str(tmp_path)})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('snapshot_every = "x"\n', "{file}: snapshot_every must be a whole number, not 'x'"),
        ("dev_pages = 1\n", "{file}: dev_pages must be true or false, not 1"),
        ("base_url = 1\n", "{file}: base_url must be text (in quotes in TOML), not 1"),
        ("mail = 1\n", "{file}: [mail] must be a section (a TOML table)"),
        (
            "[invitations]\norganiser_keys = [1]\n",
            "{file} [invitations]: organiser_keys must be a list of texts, not [1]",
        ),
        (
            "[deadlines]\nsweep_every = 5\n",
            "{file} [deadlines]: unknown setting 'sweep_every'; known settings: sweep_batch, "
            "sweep_interval",
        ),
        ("[mail\n", "{file} is not valid TOML: Expected ']' at the end of a table declaration"),
    ],
)
def test_a_mistake_in_the_file_is_named_with_the_file_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(SettingsError) as raised:
        load_settings(cfg, env={"PBEM_VAR_DIR": str(tmp_path)})
    assert str(raised.value).startswith(message.format(file=cfg))


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("PBEM_DEV_PAGES", "maybe", "PBEM_DEV_PAGES must be true or false, not 'maybe'"),
        ("PBEM_MAIL_MAX_ATTEMPTS", "٣", "PBEM_MAIL_MAX_ATTEMPTS must be a whole number, not '٣'"),
        ("PBEM_DEADLINES_SWEEP_BATCH", "1e3", "PBEM_DEADLINES_SWEEP_BATCH must be a whole number"),
    ],
)
def test_a_mistake_in_a_variable_is_named_with_the_variable(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings(DEFAULT_CONFIG, env={"PBEM_VAR_DIR": str(tmp_path), variable: value})
    assert str(raised.value).startswith(message)


def test_a_missing_file_is_named_with_the_variable_that_chooses_one(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(SettingsError) as raised:
        load_settings(env={"PBEM_CONFIG": str(missing)})
    assert str(raised.value) == (
        f"the settings file {missing} does not exist; set PBEM_CONFIG to a TOML file such as "
        "config/default.toml"
    )


def test_sections_are_set_by_variables_and_other_pbem_variables_are_no_settings(
    tmp_path: Path,
) -> None:
    env = {
        "PBEM_VAR_DIR": str(tmp_path),
        "PBEM_INVITATIONS_ORGANISER_KEYS": "club-key, other-key,",
        "PBEM_DEADLINES_SWEEP_BATCH": " 12 ",
        "PBEM_MAIL_CONFIRMATIONS": "off",
        "PBEM_TEST_POSTGRES_URL": "postgresql://nobody@nowhere/none",
    }
    s = load_settings(DEFAULT_CONFIG, env=env)
    assert s.invitations.organiser_keys == ("club-key", "other-key")
    assert s.deadlines.sweep_batch == 12
    assert s.mail.confirmations is False


def test_settings_built_in_code_read_neither_the_environment_nor_a_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PBEM_SNAPSHOT_EVERY", "7")
    monkeypatch.setenv("PBEM_MAIL_SMTP_URL", "smtp://relay.example.org")
    built = Settings(database_url="sqlite://")
    assert built.snapshot_every == 50
    assert built.mail.smtp_url == ""
    with pytest.raises(TypeError, match="no setting snapshot_evry"):
        built.with_changes(snapshot_evry=7)
