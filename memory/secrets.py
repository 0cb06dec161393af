"""Text that looks like a credential never reaches MEMORY, facts, recall or logs.

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


def redact(text: str) -> str:
    """``text`` with every credential-looking span replaced by a marker."""
    return _SECRET.sub(REDACTED, text)


def contains_secret(text: str) -> bool:
    return _SECRET.search(text) is not None
