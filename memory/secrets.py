"""Text that looks like a credential, or is one of the keys kept is configured
with, never reaches MEMORY, facts, recall, stored errors or logs.

Patterns are deliberately broad: a false positive costs a redacted word, a
false negative leaks a key into a file that lives forever.
"""

from __future__ import annotations

import re

REDACTED = "[redacted secret]"

_PATTERNS = [
    # PEM private keys, whole block.
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    # Provider keys and tokens with well-known prefixes.
    r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_\-]{30,}",
    r"\bglpat-[A-Za-z0-9_\-]{20,}",
    r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{5,}",  # JWT
    r"\bbearer\s+[A-Za-z0-9_\-\.=]{16,}",
    # "password: hunter2", "api_key=...", "token is abc..." and the Chinese forms.
    r"\b(?:password|passwd|pwd|passphrase|api[_ -]?key|secret(?:[_ -]?key)?|access[_ -]?token|auth[_ -]?token|token)\b"
    r"\s*(?:is|was|:|=|＝|：)\s*[\"']?[^\s\"',;，。]{4,}",
    r"(?:密码|口令|密钥|令牌)\s*(?:是|为|:|：|=)?\s*[^\s，。,;]{4,}",
]
_SECRET = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


# A key of no known shape is still known by its value: whatever the environment or
# the config file holds under a name like these is removed wherever it appears.
_KEY_NAME = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)$", re.I)
MIN_KEY_CHARS = 8  # shorter values ("1", "true") would redact ordinary words
_registered: set[str] = set()


def register(name: str, value) -> None:
    """Remember a configured value (e.g. a key from config.toml) if its name says it is a secret."""
    if isinstance(value, str) and _KEY_NAME.search(name) and len(value.strip()) >= MIN_KEY_CHARS:
        _registered.add(value.strip())


def configured_keys() -> list[str]:
    """The values of every key-like environment variable and registered setting, longest first."""
    import os

    found = {v.strip() for k, v in os.environ.items() if _KEY_NAME.search(k) and len(v.strip()) >= MIN_KEY_CHARS}
    return sorted(found | _registered, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every configured key's value and every credential-looking span replaced by a marker."""
    for value in configured_keys():
        text = text.replace(value, REDACTED)
    return _SECRET.sub(REDACTED, text)


def contains_secret(text: str) -> bool:
    return any(v in text for v in configured_keys()) or _SECRET.search(text) is not None
