"""USD per million tokens (input, output, cached input), as published by each provider.

Cached input is what the provider read from its prompt cache (Anthropic's
cache reads, OpenAI's cached tokens): the adapters count it inside the input
tokens, and it is billed at its own, lower rate. Anthropic's cache writes
cost 1.25x input; they are priced here as plain input, an underestimate.

Dated, because prices change: a cost computed from this table is an estimate
as of PRICES_AS_OF. Unknown models cost None (unknown), never zero; local
models cost nothing.
"""

from __future__ import annotations

PRICES_AS_OF = "2026-11-01"

PRICES: dict[str, tuple[float, float, float]] = {
    "anthropic:claude-opus-4-1": (15.0, 75.0, 1.5),
    "anthropic:claude-sonnet-4-5": (3.0, 15.0, 0.3),
    "anthropic:claude-sonnet-4-0": (3.0, 15.0, 0.3),
    "anthropic:claude-haiku-4-5": (1.0, 5.0, 0.1),
    "anthropic:claude-3-5-haiku-latest": (0.8, 4.0, 0.08),
    "openai:gpt-5": (1.25, 10.0, 0.125),
    "openai:gpt-5-mini": (0.25, 2.0, 0.025),
    "openai:gpt-5-nano": (0.05, 0.4, 0.005),
    "openai:gpt-4.1": (2.0, 8.0, 0.5),
    "openai:gpt-4.1-mini": (0.4, 1.6, 0.1),
    "openai:gpt-4o": (2.5, 10.0, 1.25),
    "openai:gpt-4o-mini": (0.15, 0.6, 0.075),
}

FREE_PROVIDERS = {"local", "scripted"}


def cost(
    provider: str,
    model: str,
    input_tokens: int | None,
    output_tokens: int | None,
    cached_input_tokens: int | None = None,
) -> float | None:
    """USD for one call; ``input_tokens`` includes ``cached_input_tokens``."""
    if provider in FREE_PROVIDERS:
        return 0.0
    price = PRICES.get(f"{provider}:{model}")
    if price is None:
        # Dated snapshots ("claude-haiku-4-5-20251001") price as their family.
        price = next((p for key, p in PRICES.items() if f"{provider}:{model}".startswith(key)), None)
    if price is None or input_tokens is None or output_tokens is None:
        return None
    cached = min(cached_input_tokens or 0, input_tokens)
    return ((input_tokens - cached) * price[0] + cached * price[2] + output_tokens * price[1]) / 1_000_000
