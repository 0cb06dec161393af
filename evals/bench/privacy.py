"""The privacy pass: a store with private data in every table, then every tool
and every chat command run in a team chat, counting the private strings that
reach a model request or the screen (must be 0).

Each private row carries a marker word that appears nowhere else, so a leak is
a plain substring test. The same pass run in a private chat is the control: it
must see the markers, or the seed (not the scope) would be why nothing leaked.
`kept bench faults` prints the figures; tests/faults/test_privacy.py runs it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 10, 6, 10, 0, tzinfo=BERLIN)
TEAM_CHAT = "standup"

# table -> the marker its private row carries
MARKERS = {
    "messages": "Quarrytone",
    "tool messages": "Brimwhistle",
    "outbox": "Fennimoor",
    "outbox (command)": "Lockridge",
    "event title": "Harrowgate",
    "event notes": "Wispmantle",
    "task": "Cobblestrand",
    "facts": "Tindervale",
    "memory": "Glimmerholt",
    "soul": "Quillonby",
    "promises": "Marrowfield",
    "series": "Oakenshaw",
    "secret": "hunter2-Vexaline",
}


def seed(db, now: datetime = NOW) -> dict[str, int]:
    """Private data in every table; returns the ids a hostile tool call would aim at."""
    from memory import facts, notes, promises, soul
    from memory import messages as store
    from memory.db import transaction
    from tools import lists

    me = store.get_chat(db)
    m = MARKERS
    store.add_message(
        db,
        me,
        "user",
        "me",
        f"Between us: the {m['messages']} launch slips to March. My password is {m['secret']}",
        now - timedelta(days=2),
    )
    store.add_message(db, me, "assistant", "kept", f"Noted: {m['messages']} slips.", now - timedelta(days=2))
    store.add_message(
        db, me, "tool", "list_messages", json.dumps({"body": m["tool messages"]}), now - timedelta(days=2)
    )
    with transaction(db) as conn:
        soul.save(conn, f"Call me Captain {m['soul']}.", "asked in conversation")
        notes.save(conn, notes.MEMORY, f"keep: the {m['memory']} budget is 48,000 euros", "write pass")
        facts.add_fact(conn, f"the {m['facts']} budget is 48,000 euros", "2026-10-01", [])
        promises.add(conn, "me", f"send Priya the {m['promises']} timeline", "2026-10-01", to_whom="Priya")
        conn.execute(
            "INSERT INTO series (name, key, created_at) VALUES (?, ?, ?)",
            (f"{m['series']} outages", m["series"].lower(), "2026-10-01"),
        )
        series_id = conn.execute("SELECT id FROM series").fetchone()[0]
        conn.execute(
            "INSERT INTO series_events (series_id, on_date, message_id, text, created_at) VALUES (?, ?, ?, ?, ?)",
            (series_id, "2026-10-02", 1, f"another {m['series']} outage", "2026-10-02"),
        )
    sent = lists.add_outbox(
        db, recipient="Dana", body=f"the {m['outbox']} offer", now=now - timedelta(days=1), chat=me.name
    )
    lists.add_outbox(db, recipient="Ravi", body=f"the {m['outbox (command)']} draft", now=now - timedelta(days=1))
    event = lists.add_event(
        db,
        title=f"{m['event title']} interview",
        start=now + timedelta(days=1),
        end=now + timedelta(days=1, hours=1),
        now=now,
        attendees=["Dana"],
        notes=f"bring the {m['event notes']} file",
        chat=me.name,
    )
    task = lists.add_task(db, assignee="me", title=f"renew the {m['task']} lease", now=now, chat=me.name)
    return {"event": event.id, "task": task.id, "outbox": sent.id}


def tool_calls(ids: dict[str, int]) -> list[tuple[str, dict]]:
    """Every tool, called the way that would show private rows if it were not scoped."""
    tomorrow = (NOW + timedelta(days=1)).date().isoformat()
    return [
        ("list_messages", {}),
        ("list_messages", {"to": "Dana"}),
        ("send_message", {"to": "Dana", "body": "Standup moved to 10:15."}),
        ("list_events", {"from_date": "today", "to_date": "next week", "include_cancelled": True}),
        ("schedule_meeting", {"title": "Team sync", "start": f"{tomorrow}T10:30", "duration_minutes": 30}),
        ("cancel_event", {"event_id": ids["event"]}),
        ("cancel_event", {"event_id": ids["event"]}),  # a second try: the "already cancelled" error path
        ("list_tasks", {"status": "all"}),
        ("list_tasks", {"assignee": "me"}),
        ("complete_task", {"task_id": ids["task"]}),
        ("complete_task", {"task_id": ids["task"]}),
        ("assign_task", {"assignee": "Sam", "title": "Write the standup notes"}),
        # Lower case: a search matches case-blind, and the model's own query is not a leak.
        ("search_memory", {"query": " ".join(MARKERS.values()).lower()}),
    ]


@dataclass
class PrivacyTally:
    chat_kind: str
    tools: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    model_requests: int = 0
    in_requests: dict[str, int] = field(default_factory=dict)  # marker table -> occurrences
    on_screen: dict[str, int] = field(default_factory=dict)

    @property
    def leaked(self) -> int:
        return sum(self.in_requests.values()) + sum(self.on_screen.values())


def run_pass(db, team: bool = True) -> PrivacyTally:
    """Seed ``db`` (an empty store), then drive every tool and slash command in one chat."""
    from agent.models import scripted
    from agent.models.scripted import ScriptedModel
    from agent.repl import COMMANDS, Quit, Repl
    from agent.session import open_session
    from tools import all_tools

    ids = seed(db)
    calls = tool_calls(ids)
    names = {t.name for t in all_tools()}
    missing = names - {name for name, _ in calls}
    if missing:  # a new tool must join the pass before the pass can say anything
        raise AssertionError(f"the privacy pass does not drive these tools: {sorted(missing)}")
    # One turn per tool call (the call, then a reply), so each request shows its own tool result.
    steps: list[scripted.Step] = [
        step for name, args in calls for step in (scripted.tool_call(name, **args), scripted.text("Done."))
    ]
    steps.append(scripted.text("You're welcome."))
    model = ScriptedModel(steps)
    chat = TEAM_CHAT if team else "me"
    session = open_session(model=model, db=db, chat_name=chat, team=team, approve=lambda prompt: True)
    session.clock = lambda: NOW
    screen: list[str] = []
    repl = Repl(session, write=screen.append, color=False)
    for name, _ in calls:
        repl.handle(f"please run {name}")
    # A last turn that names every marker (in lower case, so the question itself is no leak):
    # what recall, promises and series would put into a private chat's prompt for it.
    repl.handle(
        "how many times did these come up, and what do you know about them: "
        + ", ".join(MARKERS.values()).lower()
        + "?"
    )
    for command in COMMANDS:
        try:
            repl.handle("/" + command.name)
        except Quit:
            pass
    sent = "\n".join(
        r.system + "\n" + json.dumps([m.__dict__ for m in r.messages], ensure_ascii=False, default=str)
        for r in model.requests
    )
    shown = "".join(screen)
    tally = PrivacyTally(
        "team" if team else "private",
        tools=[n for n, _ in calls],
        commands=[c.name for c in COMMANDS],
        model_requests=len(model.requests),
    )
    for table, marker in MARKERS.items():
        tally.in_requests[table] = sent.count(marker)
        tally.on_screen[table] = shown.count(marker)
    return tally


def report(team: PrivacyTally, control: PrivacyTally) -> str:
    leaks = {t: team.in_requests[t] + team.on_screen[t] for t in MARKERS if team.in_requests[t] + team.on_screen[t]}
    seen = sum(1 for t in MARKERS if control.in_requests[t] + control.on_screen[t])
    return (
        f"privacy: {len(team.tools)} tool calls ({len(set(team.tools))} tools) and {len(team.commands)} chat commands "
        f"in a team chat over private data in {len(MARKERS)} places; {team.model_requests} model requests; "
        f"private strings in model requests {sum(team.in_requests.values())}, on the screen "
        f"{sum(team.on_screen.values())}"
        + (f" ({leaks})" if leaks else "")
        + f"; control (same pass in a private chat) saw {seen} of {len(MARKERS)} private places"
    )
