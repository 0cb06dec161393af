"""Task tools: assigning with due phrases, listing with filters, completing."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools import all_tools, lists
from tools.base import ToolContext, ToolError
from tools.tasks import TOOLS

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 9, 30, tzinfo=BERLIN)  # a Monday
T = {t.name: t for t in TOOLS}


@pytest.fixture
def ctx(db):
    return ToolContext(db=db, now=NOW, tz=BERLIN)


def assign(ctx, **arguments):
    return T["assign_task"].call(ctx, arguments)


def test_task_tools_are_registered():
    assert {"assign_task", "list_tasks", "complete_task"} <= {t.name for t in all_tools()}


def test_assign_with_day_moment_and_no_due(ctx, db):
    day = assign(ctx, assignee="Sam", title="Send the Q3 budget", due="Friday")
    assert (day["due"], day["due_weekday"], day["status"]) == ("2026-12-04", "Friday", "open")
    moment = assign(ctx, assignee="me", title="Book flights", due="tomorrow 17:00")
    assert moment["due"] == "2026-12-01T17:00:00+01:00" and moment["due_weekday"] == "Tuesday"
    chinese = assign(ctx, assignee="李雷", title="准备周报", due="下周二")
    assert chinese["due"] == "2026-12-08"
    plain = assign(ctx, assignee="Lee", title="Tidy the wiki")
    assert "due" not in plain
    stored = lists.get_task(db, day["task_id"])
    assert (stored.assignee, stored.title, stored.status) == ("Sam", "Send the Q3 budget", "open")


def test_due_in_the_past_is_refused(ctx, db):
    with pytest.raises(ToolError, match="due: 'yesterday' is 2026-11-29, in the past"):
        assign(ctx, assignee="Sam", title="X", due="yesterday")
    with pytest.raises(ToolError, match="due: 'today 8:00' .* in the past"):
        assign(ctx, assignee="Sam", title="X", due="today 8:00")
    assert lists.tasks(db) == []


def test_unreadable_due_lists_formats(ctx):
    with pytest.raises(ToolError, match="due: could not read 'soonish'.*Accepted formats"):
        assign(ctx, assignee="Sam", title="X", due="soonish")


@pytest.mark.parametrize(
    "arguments, needles",
    [
        ({"title": "X"}, ["assignee is required", "'me' for the person"]),
        ({"assignee": "Sam"}, ["title is required", "What is to be done"]),
        ({"assignee": " ", "title": "X"}, ["assignee: must not be empty"]),
    ],
)
def test_invalid_arguments_name_the_argument(ctx, arguments, needles):
    with pytest.raises(ToolError) as info:
        assign(ctx, **arguments)
    for needle in needles:
        assert needle in str(info.value)


def test_list_orders_by_due_and_filters(ctx):
    assign(ctx, assignee="Sam", title="later", due="Dec 10")
    assign(ctx, assignee="sam", title="undated")
    assign(ctx, assignee="Sam", title="sooner", due="Tuesday")
    assign(ctx, assignee="Lee", title="lee's")
    result = T["list_tasks"].call(ctx, {"assignee": "SAM"})
    assert [t["title"] for t in result["tasks"]] == ["sooner", "later", "undated"]
    assert T["list_tasks"].call(ctx, {})["count"] == 4


def test_complete_and_status_filters(ctx):
    a = assign(ctx, assignee="Sam", title="a")
    assign(ctx, assignee="Sam", title="b")
    done = T["complete_task"].call(ctx, {"task_id": a["task_id"]})
    assert done["status"] == "done" and done["done_at"] == "2026-11-30T09:30:00+01:00"
    titles = lambda status: [t["title"] for t in T["list_tasks"].call(ctx, {"status": status})["tasks"]]
    assert titles("open") == ["b"]
    assert titles("done") == ["a"]
    assert titles("all") == ["a", "b"]
    assert titles("Completed") == ["a"]
    with pytest.raises(ToolError, match="status: 'later' is not a status; use 'open', 'done' or 'all'"):
        T["list_tasks"].call(ctx, {"status": "later"})


def test_complete_errors(ctx):
    a = assign(ctx, assignee="Sam", title="a")
    T["complete_task"].call(ctx, {"task_id": str(a["task_id"])})
    with pytest.raises(ToolError, match=r"task \d+ \('a'\) is already done"):
        T["complete_task"].call(ctx, {"task_id": a["task_id"]})
    with pytest.raises(ToolError, match="no task has task_id 42; call list_tasks"):
        T["complete_task"].call(ctx, {"task_id": 42})
    with pytest.raises(ToolError, match="task_id is required"):
        T["complete_task"].call(ctx, {})
