"""Which model to use: ``provider:name`` from the flag, KEPT_MODEL, or the keys set.

Provider modules import their SDKs on first use, so choosing is cheap.
"""

from __future__ import annotations

import os

from agent.models.base import NOT_CONFIGURED, Model, ModelError

DEFAULTS = {
    "anthropic": ("claude-sonnet-4-5", "claude-haiku-4-5"),
    "openai": ("gpt-4.1", "gpt-4.1-mini"),
    "local": ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct"),
}
PROVIDERS = ("anthropic", "openai", "local", "scripted")

HOW_TO_CONFIGURE = (
    "no model is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, point OPENAI_BASE_URL at an "
    "OpenAI-compatible server, or pass --model provider:name (anthropic:…, openai:…, local)"
)


def default_provider() -> str:
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return "openai"
    return "local"


def parse(spec: str | None, *, memory: bool = False) -> tuple[str, str]:
    """``"openai:gpt-4.1"`` -> ("openai", "gpt-4.1"); a bare provider gets its default model."""
    if not spec:
        provider = default_provider()
        return provider, DEFAULTS[provider][1 if memory else 0]
    provider, _, name = spec.partition(":")
    provider = provider.strip().lower()
    if provider not in PROVIDERS:
        raise ModelError(
            NOT_CONFIGURED,
            f"unknown model provider {provider!r} in {spec!r}; use one of: " + ", ".join(PROVIDERS[:3]),
        )
    if not name:
        if provider not in DEFAULTS:
            raise ModelError(NOT_CONFIGURED, f"{spec!r} needs a model name after the colon")
        name = DEFAULTS[provider][1 if memory else 0]
    return provider, name


def create(spec: str | None, *, memory: bool = False) -> Model:
    provider, name = parse(spec, memory=memory)
    if provider == "anthropic":
        from agent.models.anthropic import AnthropicModel

        return AnthropicModel(name)
    if provider == "openai":
        from agent.models.openai import OpenAIModel

        return OpenAIModel(name)
    if provider == "local":
        from agent.models.local import LocalModel

        return LocalModel(name)
    raise ModelError(NOT_CONFIGURED, "the scripted model exists only inside tests and evals")
