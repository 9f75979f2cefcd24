"""The [mail] settings and their short environment names."""

from __future__ import annotations

from pathlib import Path

from pbem.app.config import DEFAULT_CONFIG, load_settings


def test_short_and_full_environment_names_set_the_mail_settings(tmp_path: Path) -> None:
    env = {
        "PBEM_VAR_DIR": str(tmp_path),
        "PBEM_SMTP_URL": "smtp://relay.example.org:587?starttls=1",
        "PBEM_INBOUND_SECRET": "hook-secret",
        "PBEM_IMAP_URL": "imaps://u:p@imap.example.org/INBOX",
        "PBEM_MAIL_RELAY_INTERVAL": "9",
    }
    mail = load_settings(DEFAULT_CONFIG, env=env).mail
    assert mail.smtp_url == "smtp://relay.example.org:587?starttls=1"
    assert mail.inbound_secret == "hook-secret"
    assert mail.imap_url == "imaps://u:p@imap.example.org/INBOX"
    assert mail.relay_interval == 9
    # The full name wins when both are given.
    both = {**env, "PBEM_MAIL_SMTP_URL": "smtp://other:25"}
    assert load_settings(DEFAULT_CONFIG, env=both).mail.smtp_url == "smtp://other:25"


def test_the_default_mail_settings_write_files_and_close_the_webhook(tmp_path: Path) -> None:
    mail = load_settings(DEFAULT_CONFIG, env={"PBEM_VAR_DIR": str(tmp_path)}).mail
    assert mail.smtp_url == "" and mail.inbound_secret == "" and mail.imap_url == ""
