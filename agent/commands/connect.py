"""`kept connect`: the person's own calendar (CalDAV) and mail (SMTP) accounts.

The password is asked for (never an argument, so it stays out of shell
history) and kept in the OS keyring, or in an owner-only file beside the
accounts when this machine has no keyring backend.
"""

from __future__ import annotations

import json
import sys

import typer

from agent.commands.errors import fail

app = typer.Typer(
    help="Connect your own calendar (CalDAV) and mail (SMTP) accounts, so what kept books and sends reaches them.",
    no_args_is_help=True,
)
NAME = "connect"

STDIN_OPT = typer.Option(False, "--password-stdin", help="Read the password from standard input instead of asking.")
TEST_OPT = typer.Option(
    True, "--test/--no-test", help="Reach the server once the account is saved, and say what it found."
)


def _home():
    from agent import config

    return config.home()


def _password(label: str, from_stdin: bool, inline: str | None) -> str | None:
    if inline is not None:
        return inline
    if from_stdin:
        line = sys.stdin.readline().rstrip("\r\n")
        return line or None
    value = typer.prompt(f"Password for {label} (empty for none)", default="", hide_input=True, show_default=False)
    return value or None


def _save(account, password: str | None, test: bool) -> None:
    from tools.delivery import accounts

    where = accounts.save(_home(), account, password)
    stored = {
        "keyring": "in the OS keyring",
        "file": f"in {_home() / accounts.PASSWORDS_FILE} (owner-only; this machine has no keyring backend)",
        "none": "none given",
    }[where]
    typer.echo(f"Saved the {account.kind} account {account.url} (password: {stored}).")
    if test:
        _test(account.kind)


@app.command("caldav")
def caldav(
    url: str = typer.Argument(
        ..., help="The server, your principal or one calendar, e.g. https://cal.example.com/dav/"
    ),
    user: str = typer.Option(..., "--user", "-u", help="Your login name on the calendar server."),
    calendar: str | None = typer.Option(
        None,
        "--calendar",
        help="The calendar to use, by name. Default: the one the URL names, else the first that holds events.",
    ),
    password_stdin: bool = STDIN_OPT,
    test: bool = TEST_OPT,
) -> None:
    """Connect a CalDAV calendar: bookings, cancels and tasks go there, and its events count as conflicts."""
    from tools.delivery.accounts import CALDAV, Account, AccountError, parse_url

    try:
        clean, url_user, url_password = parse_url(CALDAV, url, where="URL")
    except AccountError as exc:
        fail(str(exc))
    password = _password(f"{user} at {clean}", password_stdin, url_password)
    _save(Account(CALDAV, clean, user or url_user, calendar=calendar, source="file"), password, test)


@app.command("smtp")
def smtp(
    url: str = typer.Argument(
        ..., help="smtp://USER@HOST:587 (STARTTLS) or smtps://USER@HOST:465 (TLS from the start)."
    ),
    sender: str = typer.Option(..., "--from", help="Your address, the From of every message, e.g. ana@example.com"),
    user: str | None = typer.Option(None, "--user", "-u", help="Login name, if not in the URL (often your address)."),
    password_stdin: bool = STDIN_OPT,
    test: bool = TEST_OPT,
) -> None:
    """Connect an SMTP server: an email to an address is delivered through it."""
    from tools.delivery.accounts import SMTP, Account, AccountError, parse_url

    try:
        clean, url_user, url_password = parse_url(SMTP, url, where="URL")
    except AccountError as exc:
        fail(str(exc))
    if "@" not in sender or " " in sender.strip():
        fail(f"--from {sender!r} is not an email address")
    login = user or url_user
    password = _password(f"{login} at {clean}", password_stdin, url_password) if login else None
    _save(Account(SMTP, clean, login, sender=sender.strip(), source="file"), password, test)


@app.command("list")
def list_accounts(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text.")) -> None:
    """Show the connected accounts (never a password: only where it is kept)."""
    from tools.delivery.accounts import AccountError, load

    try:
        found = load(_home())
    except AccountError as exc:
        fail(str(exc))
    rows = [a.public() for a in found.values()]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        typer.echo(
            "No accounts connected: events and messages stay in kept. "
            "`kept connect caldav URL --user NAME` or `kept connect smtp URL --from ADDRESS` connects one."
        )
        return
    for row in rows:
        extra = "".join(f", {k} {row[k]}" for k in ("user", "from", "calendar") if k in row)
        source = "environment" if row["source"] == "environment" else "kept connect"
        typer.echo(f"{row['name']:7} {row['url']}{extra} (from {source}; password: {row['password']})")


def _test(name: str) -> None:
    from tools.delivery import Deliverer, DeliveryProblem
    from tools.delivery.accounts import SMTP

    delivery = Deliverer.from_home(_home())
    if delivery.problem:
        fail(delivery.problem)
    account = delivery.accounts.get(name)
    if account is None:
        fail(f"no {name} account is connected; `kept connect list` shows what is")
    try:
        if name == SMTP:
            from tools.delivery import smtp

            typer.echo(smtp.greet(account, delivery.timeout))
        else:
            typer.echo(delivery.server().describe())
    except DeliveryProblem as problem:
        fail(problem.line)


@app.command("test")
def test(name: str = typer.Argument(..., help="caldav or smtp.")) -> None:
    """Reach the server and say what it found: calendars and whether they take tasks, or the SMTP greeting."""
    from tools.delivery.accounts import KINDS

    if name not in KINDS:
        fail(f"{name!r} is not an account name; use caldav or smtp")
    _test(name)


@app.command("remove")
def remove(name: str = typer.Argument(..., help="caldav or smtp.")) -> None:
    """Forget an account and its stored password. Queued items stay queued for when one is connected again."""
    from tools.delivery import accounts

    if name not in accounts.KINDS:
        fail(f"{name!r} is not an account name; use caldav or smtp")
    try:
        removed = accounts.remove(_home(), name)
    except accounts.AccountError as exc:
        fail(str(exc))
    if not removed:
        fail(
            f"no {name} account was saved by `kept connect`"
            + (" (the one in use comes from the environment)" if _from_env(name) else "")
        )
    typer.echo(f"Removed the {name} account and its password.")


def _from_env(name: str) -> bool:
    import os

    return bool(os.environ.get(f"KEPT_{name.upper()}_URL"))
