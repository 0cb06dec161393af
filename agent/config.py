"""Settings: environment variables over the config file over defaults.

``KEPT_HOME`` moves everything kept stores; otherwise the platform's user
data directory is used.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from pathlib import Path


def home() -> Path:
    """The folder kept keeps everything in; a KEPT_HOME that cannot be one is refused in one line."""
    if os.environ.get("KEPT_HOME"):
        path = Path(os.environ["KEPT_HOME"]).expanduser()
        _check_home(path)
        return path
    import platformdirs

    return Path(platformdirs.user_data_dir("kept", appauthor=False))


def _check_home(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise ConfigError(
            f"KEPT_HOME={path} is a file, not a folder; point KEPT_HOME at a folder (it is made if missing)"
        )
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"KEPT_HOME={path} is under {parent}, which is a file; point KEPT_HOME at a folder")
            break


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
    model_deadline_seconds: float = 180.0  # one model call, retries included
    extra: dict = field(default_factory=dict)


# Each setting's type and allowed range: a wrong one is refused at load, naming the key,
# the value and what it must be (never a traceback later, never a silently skipped pass).
_RULES: dict[str, tuple[type, float | None, float | None]] = {
    "model": (str, None, None),
    "memory_model": (str, None, None),
    "timezone": (str, None, None),
    "summary_cap": (int, 200, 1_000_000),
    "max_active_facts": (int, 1, 1_000_000),
    "write_every_turns": (int, 1, None),
    "write_min_user_turns": (int, 0, None),
    "write_min_hours": (float, 0, 24 * 365),
    "recall_k": (int, 1, 200),
    "recent_messages": (int, 0, 1000),
    "model_deadline_seconds": (float, 1, 24 * 3600),
}

_ENV = {
    "KEPT_MODEL": "model",
    "KEPT_MEMORY_MODEL": "memory_model",
    "KEPT_TZ": "timezone",
    "KEPT_SUMMARY_CAP": "summary_cap",
    "KEPT_MAX_FACTS": "max_active_facts",
    "KEPT_WRITE_EVERY_TURNS": "write_every_turns",
    "KEPT_WRITE_MIN_USER_TURNS": "write_min_user_turns",
    "KEPT_WRITE_MIN_HOURS": "write_min_hours",
    "KEPT_MODEL_DEADLINE": "model_deadline_seconds",
}


class ConfigError(Exception):
    pass


def _expected(kind: type, low, high) -> str:
    what = {str: "a string", int: "a whole number", float: "a number"}[kind]
    if low is not None and high is not None:
        return f"{what} from {low:g} to {high:g}"
    if low is not None:
        return f"{what} of at least {low:g}"
    return what


def check(key: str, value, where: str):
    """``value`` for setting ``key`` as its type, or ConfigError naming key, value and expected type."""
    kind, low, high = _RULES[key]
    ok = not isinstance(value, bool)
    if kind is str:
        ok = ok and isinstance(value, str) and bool(value.strip())
    elif kind is int:
        ok = ok and isinstance(value, int)
    else:
        ok = ok and isinstance(value, (int, float)) and value == value  # not NaN
        value = float(value) if ok else value
    if ok and kind is not str:
        ok = (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        raise ConfigError(f"{where}: {key} = {value!r} is not {_expected(kind, low, high)}")
    return value.strip() if kind is str else value


def _env_value(raw: str, kind: type):
    if kind is str:
        return raw
    try:
        return int(raw) if kind is int else float(raw)
    except ValueError:
        return raw  # check() refuses it with the expected type


def _register_secrets(data, prefix: str = "") -> None:
    from memory.secrets import register

    for key, value in data.items():
        if isinstance(value, dict):
            _register_secrets(value, f"{prefix}{key}_")
        else:
            register(f"{prefix}{key}", value)


def load() -> Settings:
    settings = Settings()
    path = config_path()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
        except IsADirectoryError:
            raise ConfigError(f"{path} is a folder; kept reads its settings from a file of that name") from None
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        _register_secrets(data)
        for key, value in data.items():
            if key in _RULES:
                setattr(settings, key, check(key, value, str(path)))
            else:
                settings.extra[key] = value
    for env, attr in _ENV.items():
        raw = os.environ.get(env)
        if raw:
            setattr(settings, attr, check(attr, _env_value(raw, _RULES[attr][0]), env))
    return settings


def timezone(settings: Settings, notice=None):
    """The person's zone: kept's own setting (an IANA name), else the host's TZ, else /etc/localtime.

    A wrong zone given to kept is refused; the host's TZ is read in every form
    hosts use (':/etc/localtime', ':Europe/Berlin', 'UTC0',
    'EST5EDT,M3.2.0,M11.1.0') and, when it cannot be read, ignored in favour of
    /etc/localtime with one line to ``notice`` (stderr by default), never fatal.
    """
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if settings.timezone:
        try:
            return ZoneInfo(settings.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"unknown time zone {settings.timezone!r}; use an IANA name such as Europe/Berlin"
            ) from None
    raw = os.environ.get("TZ")
    if raw:
        zone = _host_zone(raw)
        if zone is not None:
            return zone
        fallback = _localtime()
        (notice or _stderr)(
            f"note: TZ={raw!r} is not a time zone kept can read; using {fallback} from /etc/localtime "
            "(set KEPT_TZ to choose one)"
        )
        return fallback
    return _localtime()


def _stderr(line: str) -> None:
    import sys

    print(line, file=sys.stderr)


def _localtime():
    from zoneinfo import ZoneInfo

    try:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            return ZoneInfo(link.split("zoneinfo/", 1)[1])
        with open("/etc/localtime", "rb") as fh:
            return ZoneInfo.from_file(fh, key="localtime")
    except Exception:  # no file, or not a zone file: UTC, as the C library does
        return ZoneInfo("UTC")


# A POSIX TZ rule: std offset [dst [offset] [,start[/time],end[/time]]], e.g. EST5EDT,M3.2.0,M11.1.0.
_NAME = r"(?:[A-Za-z]{3,}|<[+-]?[A-Za-z0-9+-]+>)"
_OFFSET = r"[+-]?\d{1,2}(?::\d{2}){0,2}"
_RULE = r"(?:M\d{1,2}\.\d\.\d|J?\d{1,3})(?:/[+-]?\d{1,3}(?::\d{2}){0,2})?"
_POSIX_TZ = re.compile(rf"{_NAME}{_OFFSET}(?:{_NAME}(?:{_OFFSET})?(?:,{_RULE},{_RULE})?)?")


def _host_zone(raw: str):
    from zoneinfo import ZoneInfo

    name = raw[1:] if raw.startswith(":") else raw  # POSIX: a leading ':' names a zone file
    if name.startswith("/"):
        try:
            real = os.path.realpath(name)
            if "zoneinfo/" in real:
                return ZoneInfo(real.split("zoneinfo/", 1)[1])
            with open(name, "rb") as fh:
                return ZoneInfo.from_file(fh, key=name)
        except Exception:
            return None
    try:
        return ZoneInfo(name)
    except Exception:
        pass
    if _POSIX_TZ.fullmatch(name):
        return HostRuleZone(name)
    return None


class HostRuleZone(tzinfo):
    """A POSIX TZ rule string, read by the C library (time.localtime) rather than by kept:
    the process's own TZ is that string, so the offsets are exactly the host's."""

    def __init__(self, rule: str):
        import time

        self.rule = rule
        time.tzset()  # the C library rereads TZ (it holds this rule) in case it changed since start

    def __str__(self) -> str:
        return self.rule

    def __repr__(self) -> str:
        return f"HostRuleZone({self.rule!r})"

    def _local(self, dt: datetime):
        import time

        stamp = time.mktime((dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, 0, 0, -1))
        return time.localtime(stamp)

    def utcoffset(self, dt):
        return timedelta(seconds=self._local(dt).tm_gmtoff) if dt is not None else None

    def dst(self, dt):
        return timedelta(hours=1) if dt is not None and self._local(dt).tm_isdst > 0 else timedelta(0)

    def tzname(self, dt):
        return self._local(dt).tm_zone if dt is not None else self.rule

    def fromutc(self, dt):
        import calendar
        import time

        stamp = calendar.timegm(dt.replace(tzinfo=None).timetuple())
        return dt + timedelta(seconds=time.localtime(stamp).tm_gmtoff)
