"""The person's own accounts that kept delivers to: one CalDAV server (events,
tasks) and one SMTP server (email).

Where each comes from, first found wins:

1. the environment (for scripts and tests): ``KEPT_CALDAV_URL``,
   ``KEPT_CALDAV_USER``, ``KEPT_CALDAV_PASSWORD``, ``KEPT_CALDAV_CALENDAR``;
   ``KEPT_SMTP_URL`` (``smtp://user:pass@host:port`` or ``smtps://...``),
   ``KEPT_SMTP_FROM``;
2. ``accounts.json`` in kept's home, written by ``kept connect``. It holds no
   password: that is in the OS keyring, or, where no keyring backend exists
   (a headless Linux box), in ``passwords.json`` beside it, owner-only.

No password is ever put in the database, a log, a fact or an export; the
``Account`` repr leaves it out, and error text goes through ``scrub``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

CALDAV, SMTP = "caldav", "smtp"
KINDS = (CALDAV, SMTP)
KEYRING_SERVICE = "kept"
ACCOUNTS_FILE, PASSWORDS_FILE = "accounts.json", "passwords.json"
SMTP_PORTS = {"smtp": 587, "smtps": 465}


class AccountError(ValueError):
    """An account that cannot be used as written; the text says why, in one line, without the password."""


@dataclass
class Account:
    kind: str
    url: str  # never carries a password
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    sender: str | None = None  # SMTP: the From address
    calendar: str | None = None  # CalDAV: a calendar name; None picks the first that holds events
    source: str = "environment"  # "environment" or the accounts file's path
    password_store: str = "none"  # "environment", "keyring", "file" or "none"

    # --- SMTP ---------------------------------------------------------------

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or SMTP_PORTS.get(parts.scheme, 443 if parts.scheme == "https" else 80)

    @property
    def implicit_tls(self) -> bool:
        return urlsplit(self.url).scheme == "smtps"

    def public(self) -> dict:
        """What `kept connect list` shows: everything but the password."""
        row = {
            "name": self.kind,
            "url": self.url,
            "user": self.user,
            "from": self.sender,
            "calendar": self.calendar,
            "source": self.source,
            "password": self.password_store,
        }
        return {k: v for k, v in row.items() if v is not None}


def scrub(text: str, *secrets: str | None) -> str:
    """``text`` with every given secret replaced by '***' (errors may echo a URL or a login)."""
    for secret in secrets:
        if secret and len(secret) >= 1:
            text = text.replace(secret, "***")
    return text


def _masked(url: str) -> str:
    """``url`` with the password (if any) shown as '***'."""
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, userinfo = head.partition("://")
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{tail}"


def parse_url(kind: str, raw: str, *, where: str) -> tuple[str, str | None, str | None]:
    """Check a server URL; return it without credentials, and the user and password it carried."""
    raw = (raw or "").strip()
    schemes = ("smtp", "smtps") if kind == SMTP else ("http", "https")
    example = (
        "smtp://user:password@mail.example.com:587 (or smtps://... for TLS from the start)"
        if kind == SMTP
        else "https://cal.example.com/dav/"
    )
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        raise AccountError(f"{where}: {_masked(raw)!r} is not a valid URL; use one like {example}") from None
    if parts.scheme not in schemes or not parts.hostname:
        raise AccountError(f"{where}: {_masked(raw)!r} is not a {kind} URL; use one like {example}")
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if port:
        netloc += f":{port}"
    clean = urlunsplit(
        (parts.scheme, netloc, parts.path if kind == CALDAV else "", parts.query if kind == CALDAV else "", "")
    )
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    return clean, user, password


# --- loading ----------------------------------------------------------------


def load(home: Path, env: Mapping[str, str] | None = None) -> dict[str, Account]:
    """The configured accounts by kind. Raises AccountError for one that is malformed."""
    env = os.environ if env is None else env
    found: dict[str, Account] = {}
    stored = _read_json(home / ACCOUNTS_FILE)
    if env.get("KEPT_CALDAV_URL"):
        url, user, password = parse_url(CALDAV, env["KEPT_CALDAV_URL"], where="KEPT_CALDAV_URL")
        found[CALDAV] = Account(
            CALDAV,
            url,
            env.get("KEPT_CALDAV_USER") or user,
            env.get("KEPT_CALDAV_PASSWORD") or password,
            calendar=env.get("KEPT_CALDAV_CALENDAR") or None,
            password_store="environment" if (env.get("KEPT_CALDAV_PASSWORD") or password) else "none",
        )
    if env.get("KEPT_SMTP_URL"):
        url, user, password = parse_url(SMTP, env["KEPT_SMTP_URL"], where="KEPT_SMTP_URL")
        sender = env.get("KEPT_SMTP_FROM") or (user if user and "@" in user else None)
        found[SMTP] = Account(
            SMTP, url, user, password, sender=sender, password_store="environment" if password else "none"
        )
    for kind in KINDS:
        if kind in found or kind not in stored:
            continue
        row = stored[kind]
        if not isinstance(row, dict) or not isinstance(row.get("url"), str):
            raise AccountError(f"{home / ACCOUNTS_FILE}: the {kind} entry has no url; run `kept connect {kind}` again")
        url, _, _ = parse_url(kind, row["url"], where=f"{home / ACCOUNTS_FILE} ({kind})")
        account = Account(
            kind,
            url,
            row.get("user"),
            sender=row.get("from"),
            calendar=row.get("calendar"),
            source=str(home / ACCOUNTS_FILE),
            password_store=row.get("password", "none"),
        )
        account.password = _read_password(home, account)
        found[kind] = account
    if SMTP in found and not found[SMTP].sender:
        raise AccountError(
            "the smtp account has no From address: set KEPT_SMTP_FROM, or run `kept connect smtp URL --from ADDRESS`"
        )
    return found


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AccountError(f"cannot read {path}: {exc}; fix it, or remove it and run `kept connect` again") from None
    if not isinstance(data, dict):
        raise AccountError(f"{path} is not a JSON object; remove it and run `kept connect` again")
    return data


def _key(account: Account) -> str:
    return f"{account.kind}:{account.user or ''}@{account.host}"


def _read_password(home: Path, account: Account) -> str | None:
    if account.password_store == "keyring":
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(KEYRING_SERVICE, _key(account))
        except KeyringError:
            return None
    if account.password_store == "file":
        value = _read_json(home / PASSWORDS_FILE).get(_key(account))
        return value if isinstance(value, str) else None
    return None


# --- saving -----------------------------------------------------------------


def save(home: Path, account: Account, password: str | None) -> str:
    """Write ``account`` to accounts.json and its password to the keyring (or the owner-only file).

    Returns where the password went: "keyring", "file" or "none".
    """
    from memory.files import write_private

    home.mkdir(parents=True, exist_ok=True)
    stored = _read_json(home / ACCOUNTS_FILE)
    if account.kind in stored:
        remove(home, account.kind)
        stored = _read_json(home / ACCOUNTS_FILE)
    where = "none"
    if password:
        where = "keyring" if _keyring_set(_key(account), password) else "file"
        if where == "file":
            secrets = _read_json(home / PASSWORDS_FILE)
            secrets[_key(account)] = password
            write_private(home / PASSWORDS_FILE, json.dumps(secrets, indent=2).encode("utf-8"))
    row = {
        "url": account.url,
        "user": account.user,
        "from": account.sender,
        "calendar": account.calendar,
        "password": where,
    }
    stored[account.kind] = {k: v for k, v in row.items() if v is not None}
    write_private(home / ACCOUNTS_FILE, json.dumps(stored, indent=2, ensure_ascii=False).encode("utf-8"))
    return where


def _keyring_set(key: str, password: str) -> bool:
    """True when the OS keyring took the password; False when there is no usable backend."""
    import keyring
    from keyring.errors import KeyringError

    try:
        keyring.set_password(KEYRING_SERVICE, key, password)
    except (KeyringError, RuntimeError):
        return False
    return True


def remove(home: Path, kind: str) -> bool:
    """Forget the stored account ``kind`` and its password. False when there was none."""
    from memory.files import write_private

    stored = _read_json(home / ACCOUNTS_FILE)
    row = stored.pop(kind, None)
    if row is None:
        return False
    try:
        url, _, _ = parse_url(kind, row.get("url", ""), where="accounts.json")
        account = Account(kind, url, row.get("user"))
        key = _key(account)
    except AccountError:
        key = None
    if key and row.get("password") == "keyring":
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.delete_password(KEYRING_SERVICE, key)
        except KeyringError:
            pass
    secrets = _read_json(home / PASSWORDS_FILE)
    if key and key in secrets:
        del secrets[key]
        write_private(home / PASSWORDS_FILE, json.dumps(secrets, indent=2).encode("utf-8"))
    write_private(home / ACCOUNTS_FILE, json.dumps(stored, indent=2, ensure_ascii=False).encode("utf-8"))
    return True
