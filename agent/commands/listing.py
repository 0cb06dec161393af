"""What `kept calendar list`, `kept outbox list` and `kept tasks list` share: each item
with its delivery state, printed as JSON or said to be empty, and the phrase for a state."""

from __future__ import annotations

import json

import typer

from agent.confirm import plural


def deliverer():
    """The configured accounts; a malformed one is said in one line (items stay queued)."""
    from agent import config
    from tools.delivery import Deliverer

    return Deliverer.from_home(config.home())


def state_text(delivery, tz) -> str:
    """One short phrase for a delivery row: what the person needs to know about it."""
    from tools import lists

    if delivery is None or delivery.state == lists.LOCAL:
        return "recorded, not delivered"
    if delivery.state == lists.DELIVERED:
        return "delivered"
    if delivery.state == lists.PENDING:
        when = delivery.next_retry.astimezone(tz).strftime("%H:%M") if delivery.next_retry else "now"
        tried = (
            f", tried {delivery.attempts}x: {delivery.last_error}" if delivery.attempts and delivery.last_error else ""
        )
        return f"pending (next try {when}{tried})"
    return f"failed after {plural(delivery.attempts, 'attempt')}: {delivery.last_error}"


def with_delivery(found, states, tz) -> list[dict]:
    """Each item's ``as_dict(tz)`` with its delivery row (``{"state": "local"}`` for one never queued)."""
    from tools import lists

    rows = []
    for item in found:
        delivery = states.get(item.id)
        rows.append({**item.as_dict(tz), "delivery": delivery.as_dict(tz) if delivery else {"state": lists.LOCAL}})
    return rows


def recorded_only(found, states) -> list:
    """The items that never entered the delivery queue: in kept's own record only."""
    from tools import lists

    return [item for item in found if item.id not in states or states[item.id].state == lists.LOCAL]


def echo_rows(rows: list[dict], as_json: bool, *, empty: str) -> bool:
    """Print ``rows`` as JSON, or ``empty`` when there are none; True when nothing more is to be said."""
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return True
    if not rows:
        typer.echo(empty)
        return True
    return False
