"""Settings: environment variables over the config file over defaults.

``KEPT_HOME`` moves everything kept stores; otherwise the platform's user
data directory is used.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


def home() -> Path:
    if os.environ.get("KEPT_HOME"):
        return Path(os.environ["KEPT_HOME"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("kept", appauthor=False))


def db_path() -> Path:
    return home() / "kept.db"


def config_path() -> Path:
    return home() / "config.toml"


def history_path() -> Path:
    return home() / "input_history"


@dataclass
class Settings:
    model: str | None = None  # "provider:name"; None picks by which key is set
    memory_model: str | None = None
    timezone: str | None = None  # IANA name; None uses the machine's
    summary_cap: int = 6000
    max_active_facts: int = 500
    write_every_turns: int = 8
    write_min_user_turns: int = 4
    write_min_hours: float = 3.0
    recall_k: int = 12
    recent_messages: int = 14
    extra: dict = field(default_factory=dict)


_ENV = {
    "KEPT_MODEL": ("model", str),
    "KEPT_MEMORY_MODEL": ("memory_model", str),
    "KEPT_TZ": ("timezone", str),
    "KEPT_SUMMARY_CAP": ("summary_cap", int),
    "KEPT_MAX_FACTS": ("max_active_facts", int),
    "KEPT_WRITE_EVERY_TURNS": ("write_every_turns", int),
    "KEPT_WRITE_MIN_USER_TURNS": ("write_min_user_turns", int),
    "KEPT_WRITE_MIN_HOURS": ("write_min_hours", float),
}


class ConfigError(Exception):
    pass


def load() -> Settings:
    settings = Settings()
    path = config_path()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
        for key, value in data.items():
            if hasattr(settings, key) and key != "extra":
                setattr(settings, key, value)
            else:
                settings.extra[key] = value
    for env, (attr, kind) in _ENV.items():
        raw = os.environ.get(env)
        if raw:
            try:
                setattr(settings, attr, kind(raw))
            except ValueError:
                raise ConfigError(f"{env}={raw!r} is not a valid {kind.__name__}") from None
    return settings


def timezone(settings: Settings):
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = settings.timezone or os.environ.get("TZ")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"unknown time zone {name!r}; use an IANA name such as Europe/Berlin") from None
    try:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            return ZoneInfo(link.split("zoneinfo/", 1)[1])
    except Exception:
        pass
    return ZoneInfo("UTC")
