"""`kept outbox`: the messages kept sent, and the delivery queue."""

from __future__ import annotations

import json

import typer

from agent.commands.errors import fail, open_store_and_zone
from agent.commands.listing import deliverer, echo_rows, recorded_only, state_text, with_delivery

app = typer.Typer(
    help="The messages kept sent for you, whether each was delivered, and retrying those that were not.",
    no_args_is_help=True,
)


def _open():
    return open_store_and_zone()


@app.command("list")
def list_outbox(
    to: str | None = typer.Option(None, "--to", help="Only messages to this name or address."),
    limit: int | None = typer.Option(None, "--limit", "-n", min=1, help="Only the last N messages."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """List sent messages, oldest first, each with its delivery state."""
    from tools import lists
    from tools.delivery import CONNECT_MAIL

    db, tz = _open()
    states = lists.deliveries(db, lists.MESSAGE)
    found = lists.outbox(db, recipient=to, limit=limit)
    rows = with_delivery(found, states, tz)
    if echo_rows(rows, as_json, empty="No messages sent."):
        return
    from agent.terminal import outbox_line

    for row, m in zip(rows, found, strict=True):
        typer.echo(f"{outbox_line(row)}  [{state_text(states.get(m.id), tz)}]")
    local = recorded_only(found, states)
    if local:
        mail = deliverer()
        if mail.mail is None:
            why = mail.problem or "no email account is connected"
            typer.echo(
                f"{len(local)} message{'s were' if len(local) != 1 else ' was'} recorded in kept only, not "
                f"delivered: {why}. Connect one with `{CONNECT_MAIL}`, then `kept outbox retry ID` sends one."
            )


@app.command("retry")
def retry(
    ids: list[int] | None = typer.Argument(
        None,
        help="Outbox message ids to send now (also ones recorded before an account was connected). Default: every waiting or failed item.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Try again now: messages, and calendar events and tasks waiting for the calendar server."""
    from tools import lists

    db, tz = _open()
    delivery = deliverer()
    if delivery.problem:
        fail(delivery.problem)
    if ids:
        results = []
        for item_id in ids:
            message = lists.get_outbox(db, item_id)
            if message is None:
                fail(f"no outbox message #{item_id}; `kept outbox list` shows the ids")
            state, why = delivery.message_state(message.channel, message.recipient)
            if state != lists.PENDING:
                fail(f"#{item_id} cannot be delivered: {why}")
            current = lists.delivery_of(db, lists.MESSAGE, item_id)
            if current is not None and current.state == lists.DELIVERED:
                fail(f"#{item_id} was already delivered ({current.reply}); kept does not send it twice")
            lists.queue_again(db, lists.MESSAGE, item_id, message.sent_at)
            results.append(delivery.deliver(db, lists.MESSAGE, item_id))
    else:
        results = delivery.run_due(db, include_failed=True)
    results = [r for r in results if r is not None]
    if as_json:
        typer.echo(
            json.dumps(
                [{"kind": r.kind, "id": r.item_id, **r.as_dict(tz)} for r in results], ensure_ascii=False, indent=2
            )
        )
        return
    if not results:
        waiting = lists.due_deliveries(db, None, include_failed=True)
        if waiting:
            from tools.delivery import CONNECT_CALENDAR, CONNECT_MAIL

            mail = sum(1 for d in waiting if d.kind == lists.MESSAGE)
            how = " and ".join(
                f"`{h}`" for n, h in ((mail, CONNECT_MAIL), (len(waiting) - mail, CONNECT_CALENDAR)) if n
            )
            fail(
                f"{len(waiting)} item{'s wait' if len(waiting) != 1 else ' waits'} for an account that is not "
                f"connected; connect it with {how}"
            )
        typer.echo("Nothing is waiting for delivery.")
        return
    for r in results:
        label = {"message": "message", "event": "event", "task": "task"}[r.kind]
        typer.echo(
            f"{label} #{r.item_id}: {state_text(r, tz)}" + (f" ({r.reply})" if r.state == lists.DELIVERED else "")
        )
    waiting = [r for r in results if r.state != lists.DELIVERED]
    if waiting:
        fail(f"{len(waiting)} of {len(results)} not delivered yet; each line above says why")
