"""Task tools: assign_task, list_tasks, complete_task.

A due phrase with a time ("Friday 17:00") is a moment; a day alone
("Friday", "明天") is due that whole day and is shown as the date.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field, field_validator

from tools import delivery, lists, when
from tools.arguments import Arguments, RowId
from tools.base import Tool, ToolContext, ToolError, close_item

STATUSES = ("open", "done", "all")


class AssignTaskArgs(Arguments):
    KINDS = {"assignee": "person", "due": "deadline"}
    ALIASES = {
        "to": "assignee",
        "owner": "assignee",
        "who": "assignee",
        "person": "assignee",
        "task": "title",
        "description": "title",
        "name": "title",
        "due_date": "due",
        "deadline": "due",
        "by": "due",
        "when": "due",
    }

    assignee: str = Field(
        min_length=1, max_length=200, description="Who does it: a name, e.g. 'Sam', or 'me' for the person."
    )
    title: str = Field(min_length=1, max_length=500, description="What is to be done, e.g. 'Send the Q3 budget'.")
    due: str | None = Field(
        default=None,
        description="Optional deadline as the person said it: 'Friday', 'tomorrow 17:00', 'Dec 3', '下周二', "
        "or '2026-12-03'. A day alone means by the end of that day.",
    )
    notes: str | None = Field(default=None, max_length=4000, description="Optional details.")


class ListTasksArgs(Arguments):
    ALIASES = {"who": "assignee", "to": "assignee", "owner": "assignee", "state": "status"}

    assignee: str | None = Field(default=None, description="Optional: only tasks for this person, e.g. 'Sam' or 'me'.")
    status: str = Field(default="open", description="'open' (default), 'done', or 'all'.")

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value):
        if value is None:
            return "open"
        if not isinstance(value, str):
            raise ValueError("must be 'open', 'done' or 'all'")
        text = value.strip().lower()
        text = {
            "completed": "done",
            "complete": "done",
            "closed": "done",
            "finished": "done",
            "pending": "open",
            "todo": "open",
            "any": "all",
        }.get(text, text)
        if text not in STATUSES:
            raise ValueError(f"{value!r} is not a status; use 'open', 'done' or 'all'")
        return text


class CompleteTaskArgs(Arguments):
    ALIASES = {"id": "task_id", "task": "task_id"}

    task_id: RowId = Field(description="The task_id from assign_task or list_tasks, e.g. 4.")


def _task(task: lists.Task, ctx: ToolContext) -> dict:
    row = task.as_dict(ctx.tz)
    return {k: v for k, v in row.items() if v is not None and k != "created_at"}


def assign_task(ctx: ToolContext, args: AssignTaskArgs) -> dict:
    due, moment = None, None
    if args.due:
        parsed = when.parse(args.due, ctx.now, ctx.tz, what="due")
        if parsed.exact is None and parsed.clock is None:  # a day: due by its end
            assert parsed.day is not None  # dates.read names a day or a time of day, or raises
            if parsed.day < ctx.now.astimezone(ctx.tz).date():
                raise ToolError(f"due: {args.due!r} is {parsed.day.isoformat()}, in the past; give a future day")
            due = parsed.day.isoformat()
            moment = when.day_start(parsed.day + timedelta(days=1), ctx.tz)
        else:
            moment = when.resolve(args.due, ctx.now, ctx.tz, what="due")
            if moment < ctx.now.replace(second=0, microsecond=0):
                raise ToolError(
                    f"due: {args.due!r} is {when.iso(moment, ctx.tz)}, in the past (now is {when.iso(ctx.now, ctx.tz)})"
                )
            due = when.iso(moment, ctx.tz)
    state, why_local = ctx.deliverer().calendar_state()
    task = lists.add_task(
        ctx.db,
        assignee=" ".join(args.assignee.split()),
        title=args.title,
        now=ctx.now,
        due=due,
        due_moment=moment,
        notes=args.notes,
        chat=ctx.chat_name,
        delivery=state,
    )
    result = _task(task, ctx)
    # With a calendar server connected the task is a VTODO there too.
    result["delivery_state"], result["delivery"] = delivery.deliver_now(ctx, lists.TASK, task.id, state, why_local)
    return result


def list_tasks(ctx: ToolContext, args: ListTasksArgs) -> dict:
    status = None if args.status == "all" else args.status
    found = lists.tasks(ctx.db, assignee=args.assignee, status=status, scope=ctx.scope)
    return {"count": len(found), "tasks": [_task(t, ctx) for t in found]}


def complete_task(ctx: ToolContext, args: CompleteTaskArgs) -> dict:
    task = close_item(
        ctx,
        lists.TASK,
        args.task_id,
        lists.complete_task,
        lists.get_task,
        lambda old: f"('{old.title}') is already done",
    )
    result = _task(task, ctx)
    result["delivery_state"], result["delivery"] = delivery.deliver_change(
        ctx, lists.TASK, task.id, "it was only ever in kept's task list"
    )
    return result


TOOLS = [
    Tool(
        "assign_task",
        "Create a task: assignee (who does it, e.g. 'Sam' or 'me') and title (what to do) are required; due "
        "(e.g. 'Friday' or 'tomorrow 17:00') and notes are optional. Returns task_id and the absolute due date.",
        AssignTaskArgs,
        assign_task,
    ),
    Tool(
        "list_tasks",
        "Show tasks, soonest due first, each with task_id, assignee, title, due and status. Optional assignee "
        "(e.g. 'Sam') and status ('open' by default, 'done', or 'all').",
        ListTasksArgs,
        list_tasks,
    ),
    Tool(
        "complete_task",
        "Mark one task done by its task_id (a number from assign_task or list_tasks; call list_tasks first if "
        "you do not know it).",
        CompleteTaskArgs,
        complete_task,
    ),
]
