"""The screen: a before-call step of the turn for a model that cannot be trusted with tool calls.

A small model (the embedded 0.5B) calls tools on plain questions, copies the
prompt's clock instead of working out "tomorrow at 3pm", and fills optional
fields from the schema's own examples ("Room 4"). So, before its calls run,
``screen`` gets the turn as data (the request, now, the zone, what memory put
in the prompt, the conversation) and:

- drops a call whose tool is unknown, whose required values are missing or
  appear nowhere in the request, the conversation or memory, or that acts
  when the request only asks a question or only asks to be reminded of the
  person's own doing (memory.text.acts decides: "Can you send…?" acts, "Did
  I send…?" asks, "Remind me to send…" asks for no act);
- reads the day and time the request names with memory.text.dates. It never
  puts a parse it could not make unambiguously in place of the model's
  value: when the model's value means the same moment it stays; when it
  means another (or nothing readable), the request's own words replace it
  and the tool reads them; when the request's time is ambiguous ("this
  weekend at 10") or names several times the model matched none of, the call
  is held and its result asks the person which;
- drops an optional value that the request, memory and this turn's tool
  results never gave, so the tool's default applies;
- checks the people, the time and the deadline of an acting call against the
  request's own reading, by the kind each argument holds (``ToolSpec.kinds``,
  declared with the tool's arguments): a person the request names in its head
  (memory.text.people) and the call left out is added to a list of people, or
  put in a one-person argument whose value names nobody the request names; a
  start or a deadline the request names and the model left out is filled in;
  a deadline whose time of day the model dropped gets the request's phrase;
  a message body that lost a number, time or day the dictated message holds
  ("Text Ana that the call is at 7am") becomes the request's own words.
  Nothing is filled that the request does not say.

Every drop, change and hold is a ``Note`` on the turn's result
(``TurnResult.screened``), logged, and shown by ``kept ask`` and ``kept chat``
as one line (``describe``).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent.models.base import Message, ToolCall, ToolSpec
from memory.text import dates, people, tokens, words
from memory.text.acts import asks_for_the_speaker, asks_only
from memory.text.overlap import content_words

log = logging.getLogger("kept.screen")

# Tools named like these only look things up; every other tool acts.
READING = ("list_", "search_", "get_", "find_")
# Arguments that hold a moment, and ones that hold a day.
MOMENT_ARGS = ("start", "when", "time", "datetime")
DAY_ARGS = ("from_date", "date", "due", "due_date", "deadline")
# A second bound on a range: kept only when the request says it.
BOUND_ARGS = ("end", "to_date")
TIME_ARGS = set(MOMENT_ARGS + DAY_ARGS + BOUND_ARGS)

_UNIT = re.compile(r"[\u3400-\u9fff]|[^\s\u3400-\u9fff]+")  # Latin words as units, each CJK character alone
_SENTENCE_END = re.compile(r"[!?。！？]$")  # a hard end ("." may close "p.m." or "Dec.")
# The longest phrase of time read: "next Friday at 2:30 pm" is 5 Latin words; a Chinese one counts
# its characters, "下星期三下午三点四十五" 11 (cut at 8 units it read 三点四十: 15:40).
_MAX_UNITS = 8
_MAX_CJK_UNITS = 14
_MAX_REQUEST = 1000  # characters; a longer paste is not a booking request
_CJK = re.compile(r"[\u3400-\u9fff]")
_JOINED = re.compile(r"\b(?:to|until|till|and|then|from|instead of|rather than|or)\b|->|到|改|和|跟|从", re.I)


@dataclass
class Request:
    """What the step gets: the turn as data, not scraped from the prompt."""

    text: str  # the person's message this turn
    now: datetime
    tz: ZoneInfo
    memory: list[str] = field(default_factory=list)  # what memory put in the prompt (facts, promises, counts)
    messages: list[Message] = field(default_factory=list)  # the conversation as the model saw it, tool results included


@dataclass
class Note:
    """One thing the screen did to a call."""

    tool: str
    action: str  # "dropped", "changed", "held"
    detail: str

    def __str__(self) -> str:
        return f"{self.action} {self.tool}: {self.detail}" if self.action != "changed" else f"{self.tool} {self.detail}"


@dataclass
class Screened:
    calls: list[ToolCall]  # run these
    held: list[tuple[ToolCall, str]]  # do not run: answer each with this error, which asks the person
    notes: list[Note]
    dropped: list[ToolCall] = field(default_factory=list)  # whole calls the guard removed


def describe(notes: list[Note]) -> str:
    """The one line ``kept ask`` and ``kept chat`` show: what the screen dropped, changed or held."""
    if not notes:
        return ""
    return "screen: " + "; ".join(str(n) for n in notes)


# ---------------------------------------------------------------- evidence


def _grounded_text(value: str, evidence: str, evidence_words: set[str]) -> bool:
    cjk = _CJK.findall(value)
    if cjk:
        return any(ch in evidence for ch in cjk)
    words = content_words(value)
    if not words:
        return True
    # A prefix match lets "meeting" ground "meetings" and "Anna's" ground "Anna".
    return any(w in evidence_words or any(e.startswith(w[:5]) for e in evidence_words if len(w) >= 5) for w in words)


@dataclass
class Evidence:
    """Where a tool call's values may come from.

    ``everything``: memory, the conversation and this turn's tool results.
    ``current``: memory, the latest request, the question it answers (if the
    reply before it asked one) and this turn's tool results. A time must
    come from ``current``: an earlier request's "tomorrow at 3pm" does not
    license a new booking on a plain question.
    """

    everything: str
    current: str
    request: str = ""

    def __post_init__(self) -> None:
        self.words = content_words(self.everything)
        self.current_words = content_words(self.current)

    def gave(self, value: Any, strict: bool) -> bool:
        """Whether ``value`` came from the current evidence: one of its words (``strict``: every one) is there."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value).removesuffix(".0") in self.current
        text = str(value)
        if not strict:
            return _grounded_text(text, self.current, self.current_words)
        cjk = _CJK.findall(text)
        if cjk:
            return all(ch in self.current for ch in cjk)
        return all(_grounded_text(w, self.current, self.current_words) for w in content_words(text))


def evidence(request: Request) -> Evidence:
    messages = request.messages or [Message("user", request.text)]
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
    # The reply before the request counts when it asked something ("Shall I book 3pm?" "yes").
    before = messages[last_user - 1] if last_user > 0 else None
    start = (
        last_user - 1 if before and before.role == "assistant" and before.content.rstrip().endswith("?") else last_user
    )
    everything = "\n".join(request.memory + [m.content for m in messages if m.content]).lower()
    current = "\n".join(request.memory + [m.content for m in messages[start:] if m.content]).lower()
    return Evidence(everything, current, request.text)


def _grounded(name: str, value: Any, ev: Evidence) -> bool:
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, (int, float)):
        return str(value).removesuffix(".0") in ev.everything
    if isinstance(value, list):
        return bool(value) and all(_grounded(name, v, ev) for v in value)
    if isinstance(value, dict):
        return all(_grounded(k, v, ev) for k, v in value.items())
    text = str(value)
    if name in TIME_ARGS:
        # A time the model worked out ("2026-12-03T09:00" from "Thursday 9am") is grounded
        # when the request (or memory) names some day or time at all; a plain question names none.
        return dates.mentions_time(ev.current) or _grounded_text(text, ev.current, ev.current_words)
    return _grounded_text(text, ev.everything, ev.words)


# ---------------------------------------------------------------- the guard


def _only_treatment(request: str) -> bool:
    from memory import soul
    from memory.text.acts import asks_to_act

    return asks_to_act(request) and soul.only_treatment(request)


def guard(calls: list[ToolCall], tools: list[ToolSpec], ev: Evidence) -> tuple[list[ToolCall], list[Note]]:
    """Keep the calls a request could have asked for; a note for each other one."""
    specs = {t.name: t for t in tools}
    kept: list[ToolCall] = []
    notes: list[Note] = []
    question = asks_only(ev.request)
    # "Remind me to call the bank Friday", 你帮我记着: kept is asked to hold the person to their own
    # doing, not to act on anyone (memory.text.acts.asks_to_act); no tool does that.
    reminder = not question and asks_for_the_speaker(ev.request)
    # "Call me Dong-ge, and no bold or stars": how to treat the person, which no tool does either.
    wish = not question and not reminder and _only_treatment(ev.request)
    for call in calls:
        spec = specs.get(call.name)
        if spec is None:
            notes.append(Note(call.name, "dropped", "no such tool"))
            continue
        if question and not call.name.startswith(READING):
            notes.append(Note(call.name, "dropped", "it acts, and the request only asks a question"))
            continue
        if reminder and not call.name.startswith(READING):
            notes.append(Note(call.name, "dropped", "it acts, and the request only asks to be reminded"))
            continue
        if wish and not call.name.startswith(READING):
            notes.append(Note(call.name, "dropped", "it acts, and the request only says how to treat the person"))
            continue
        props = spec.parameters.get("properties", {})
        required = spec.parameters.get("required", [])
        # Unknown keys may be another name for a required one (tools map "date" to "start").
        unknown = [k for k in call.arguments if k not in props]
        missing = [r for r in required if call.arguments.get(r) in (None, "", [])]
        if missing and not unknown:
            notes.append(Note(call.name, "dropped", f"missing {', '.join(missing)}"))
            continue
        ungrounded = [r for r in required if r in call.arguments and not _grounded(r, call.arguments[r], ev)]
        if ungrounded:
            notes.append(Note(call.name, "dropped", f"{', '.join(ungrounded)} not found in the request or memory"))
            continue
        kept.append(call)
    return kept, notes


# ---------------------------------------------------------------- times in the request


@dataclass
class Named:
    """A day and/or time the request names, and the words it names it with."""

    phrase: str
    day: Any  # datetime.date | None
    has_clock: bool
    moment: datetime | None = None  # when it names a day and a time, or an exact moment


@dataclass
class Reading:
    """What the request says about when: its best phrase, the other moments it names, or why it is ambiguous."""

    named: Named | None = None
    moments: list[datetime] = field(default_factory=list)  # every distinct moment the request names
    ambiguous: str = ""  # the resolver's refusal, naming the readings


def named_time(request: str, now: datetime, tz: ZoneInfo) -> Named | None:
    """The phrase in ``request`` that names a day and a time (else the fullest that names either)."""
    return read_request(request, now, tz).named


def read_request(request: str, now: datetime, tz: ZoneInfo) -> Reading:
    if len(request) > _MAX_REQUEST or not dates.mentions_time(request):
        return Reading()
    units = list(_UNIT.finditer(request))
    best: tuple[tuple, Named] | None = None
    best_day: tuple[tuple, Named] | None = None  # the fullest phrase naming only a day
    best_clock: tuple[tuple, Named] | None = None  # ... and only a time
    refused: tuple[int, str] | None = None  # the fullest ambiguous phrase
    timed: list[tuple[int, int, datetime]] = []  # (first unit, last unit, moment) of each phrase naming day and time
    for i in range(len(units)):
        latin = cjk = 0
        for j in range(i, len(units)):
            if _CJK.match(units[j].group()):
                cjk += 1
            else:
                latin += 1
            if latin > _MAX_UNITS or cjk > _MAX_CJK_UNITS:
                break
            if j > i and _SENTENCE_END.search(units[j - 1].group()):
                break  # a phrase of time lies inside one sentence ("…at four in the afternoon? Their price list for next year…")
            phrase = request[units[i].start() : units[j].end()].strip(" ,.;!?，。！？'\"")
            if not phrase or not dates.mentions_time(phrase):
                continue
            meaning = sum(1 for u in units[i : j + 1] if u.group().lower().strip(",.") not in dates.FILLER)
            try:
                parsed = dates.read(phrase, now, tz)
            except dates.Ambiguous as exc:
                # Two readings side by side are two times when words join them ("from tomorrow at 10 to Thursday").
                linked = exc.conflict and _JOINED.search(phrase)
                if not linked and (refused is None or meaning > refused[0]):
                    refused = (meaning, str(exc))
                continue
            except dates.DateError:
                continue
            day = parsed.day if parsed.exact is None else parsed.exact.astimezone(tz).date()
            has_clock = parsed.clock is not None or parsed.exact is not None
            moment = _moment(phrase, now, tz) if day is not None and has_clock else None
            if moment is not None:
                timed.append((i, j, moment))
            # Day and time first, then the most that is not filler, then the shortest:
            # "tomorrow at 3pm", not "tomorrow at 3pm about the".
            score = (day is not None and has_clock, meaning, -len(phrase))
            named = Named(phrase, day, has_clock, moment)
            if best is None or score > best[0]:
                best = (score, named)
            if has_clock and day is None and (best_clock is None or score > best_clock[0]):
                best_clock = (score, named)
            if day is not None and not has_clock and (best_day is None or score > best_day[0]):
                best_day = (score, named)
    # The times the request names: its fullest phrases, not the parts inside them
    # ("Friday at 9am" inside "a week from Friday at 9am" is no time of its own).
    # Two phrases that share words are one time said once, read two ways ("the day after tomorrow at
    # 11" and "tomorrow at 11 in the morning" in "the day after tomorrow at 11 in the morning"): the
    # best reading's phrase is kept, then the longest, and one that overlaps a kept phrase is none.
    moments: list[datetime] = []
    kept: list[tuple[int, int]] = []
    first = best[1].phrase if best else None
    for i, j, moment in sorted(
        timed,
        key=lambda t: (
            request[units[t[0]].start() : units[t[1]].end()].strip(" ,.;!?，。！？'\"") != first,
            t[0] - t[1],
        ),
    ):
        if any(i <= b and a <= j for a, b in kept):
            continue
        kept.append((i, j))
        if moment not in moments:
            moments.append(moment)
    reading = Reading(best[1] if best else None, moments)
    if best is not None and not (best[1].day and best[1].has_clock) and best_day and best_clock:
        # "at 4pm after the review tomorrow": the day and the time, said apart, read together.
        joined = f"{best_day[1].phrase} {best_clock[1].phrase}"
        try:
            parsed = dates.read(joined, now, tz)
            reading.named = Named(joined, parsed.day, parsed.clock is not None, _moment(joined, now, tz))
            reading.moments = [reading.named.moment] if reading.named.moment else []
        except dates.DateError:
            pass
    # An ambiguous phrase that says more than the best reading ("this weekend at 10" over "at 10"): ask.
    if refused is not None and (best is None or refused[0] > best[0][1]):
        reading.ambiguous = refused[1]
    return reading


def _moment(phrase: str, now: datetime, tz: ZoneInfo) -> datetime | None:
    try:
        return dates.moment(phrase, now, tz)
    except dates.DateError:
        return None


def _day_of(value: Any, now: datetime, tz: ZoneInfo):
    try:
        parsed = dates.read(str(value), now, tz)
    except dates.DateError:
        return None
    return parsed.day if parsed.exact is None else parsed.exact.astimezone(tz).date()


# ---------------------------------------------------------------- the repair


def repair(
    call: ToolCall, spec: ToolSpec, request: Request, ev: Evidence, reading: Reading
) -> tuple[ToolCall, list[Note], str]:
    """``call`` with its time arguments checked against the request and its ungrounded
    optional values dropped; the notes; and a reason to hold the call ('' to run it)."""
    props: dict = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    args = dict(call.arguments)
    notes: list[Note] = []
    from_request: set[str] = set()
    now, tz = request.now, request.tz

    moment_arg = next((a for a in MOMENT_ARGS if a in props and a in args), None)
    if moment_arg:
        value = args[moment_arg]
        theirs = _moment(str(value), now, tz)
        named = reading.named
        if reading.ambiguous and (named is None or not named.has_clock or theirs not in reading.moments):
            return call, notes, f"{moment_arg}: {reading.ambiguous}"
        if named is not None and named.day is not None and not named.has_clock and not _clock_given(theirs, ev):
            # The tool needs a time of day "as the person said it": a request that names only a day
            # ("…, due tomorrow") gave none, so the model's is invented (a task was booked as a meeting).
            return call, notes, f"{moment_arg}: the request names {named.phrase!r} but no time of day; ask what time"
        if named is not None and named.has_clock and named.moment is not None:
            from_request.add(moment_arg)
            if theirs is not None and theirs in reading.moments:
                pass  # the model's value means a moment the request names: it stays
            elif len(reading.moments) > 1:
                listed = " or ".join(dates_iso(m, tz) for m in reading.moments)
                return call, notes, f"{moment_arg}: the request names more than one time ({listed}); ask which"
            else:
                args[moment_arg] = named.phrase
                meant = f" ({dates_iso(theirs, tz)})" if theirs else ""
                notes.append(
                    Note(
                        call.name,
                        "changed",
                        f"{moment_arg} {value!r}{meant} -> {named.phrase!r} "
                        f"({dates_iso(named.moment, tz)}, as the request says it)",
                    )
                )
        elif named is not None and named.has_clock and named.day is None and theirs is not None and not reading.moments:
            # A time of day with no day ("上午十点半…你给安排一下", "at 3pm"): the day may come from the
            # talk, the time of day is the request's. The model's day keeps, at the request's time;
            # passed already today, the next such time (as the tool reads the phrase alone).
            fixed = _at_clock(theirs, named.phrase, now, tz)
            if fixed is not None and fixed != theirs:
                from_request.add(moment_arg)
                args[moment_arg] = dates_iso(fixed, tz)
                notes.append(
                    Note(
                        call.name,
                        "changed",
                        f"{moment_arg} {value!r} ({dates_iso(theirs, tz)}) -> {args[moment_arg]!r} "
                        f"({named.phrase!r} in the request)",
                    )
                )
    day_arg = next((a for a in DAY_ARGS if a in props and a in args), None)
    if day_arg and reading.named is not None and reading.named.day is not None:
        value = args[day_arg]
        from_request.add(day_arg)
        wanted = reading.named.day
        named = reading.named
        if spec.kinds.get(day_arg) == DEADLINE and named.has_clock and named.moment is not None:
            # A deadline keeps its time of day ("tomorrow at 5pm"): the day alone would make it the end of the day.
            if _moment(str(value), now, tz) != named.moment and len(reading.moments) <= 1:
                args[day_arg] = named.phrase
                notes.append(
                    Note(
                        call.name,
                        "changed",
                        f"{day_arg} {value!r} -> {named.phrase!r} ({dates_iso(named.moment, tz)}, as the request says it)",
                    )
                )
        elif _day_of(value, now, tz) != wanted:
            args[day_arg] = wanted.isoformat()
            notes.append(
                Note(
                    call.name,
                    "changed",
                    f"{day_arg} {value!r} -> {wanted.isoformat()!r} ({reading.named.phrase!r} in the request)",
                )
            )

    for name in list(args):
        if name in required or name not in props or name in from_request:
            continue
        value = args[name]
        schema = props[name]
        if isinstance(value, bool) or value is None or "enum" in schema:
            continue
        if isinstance(value, list):
            kept = [v for v in value if ev.gave(v, False)]
            if kept != value:
                notes.append(
                    Note(
                        call.name,
                        "dropped",
                        f"{name} {[v for v in value if v not in kept]!r} (not in the request or memory)",
                    )
                )
                if kept:
                    args[name] = kept
                else:
                    del args[name]
            continue
        if name in BOUND_ARGS:
            start = _moment(str(args[moment_arg]), now, tz) if moment_arg and args.get(moment_arg) else None
            end = _moment(str(value), now, tz)
            if start is not None and end == start:
                # The model copied the start into the end: no end was said, the default length applies.
                notes.append(Note(call.name, "dropped", f"{name} {value!r} (the same moment as the start)"))
                del args[name]
                continue
            if start is not None and end is not None and end < start and _day_of(value, now, tz) is not None:
                # A dated end before the start ("tomorrow at 10am" for a start the day after tomorrow
                # at 10am: the model took a part of the request's own phrase) is no bound the request
                # set; the tool would refuse the whole call for it. The default length applies.
                notes.append(Note(call.name, "dropped", f"{name} {value!r} (before the start)"))
                del args[name]
                continue
            # An end or a last day is kept only when the request itself says it:
            # memory's dates would otherwise ground any date the model copies.
            if set(tokens(str(value))) <= set(tokens(request.text)):
                continue
            notes.append(Note(call.name, "dropped", f"{name} {value!r} (the request names no such bound)"))
            del args[name]
            continue
        if not ev.gave(value, isinstance(value, str)):
            notes.append(Note(call.name, "dropped", f"{name} {value!r} (not in the request or memory)"))
            del args[name]
    if not notes:
        return call, [], ""
    return ToolCall(call.id, call.name, args), notes, ""


def _at_clock(theirs: datetime, phrase: str, now: datetime, tz: ZoneInfo) -> datetime | None:
    """``theirs`` moved to the time of day ``phrase`` names; when that has passed, the next such time."""
    try:
        clock = dates.read(phrase, now, tz).clock
    except dates.DateError:
        return None
    if clock is None:
        return None
    local = theirs.astimezone(tz)
    fixed = local.replace(hour=clock.hour, minute=clock.minute, second=0, microsecond=0)
    if fixed >= now:
        return fixed
    try:
        return dates.moment(phrase, now, tz)
    except dates.DateError:
        return None


def _clock_given(theirs: datetime | None, ev: Evidence) -> bool:
    """Whether the time of day of the model's moment was given by memory or this turn ("the usual
    time", with a fact saying 10:00)."""
    return theirs is not None and f"{theirs:%H:%M}" in tokens(ev.current)


def dates_iso(moment: datetime, tz: ZoneInfo) -> str:
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M")


# ---------------------------------------------------------------- values of the kinds the tool declares

PEOPLE, PERSON, MOMENT, DEADLINE, MATERIAL, LABEL = "people", "person", "moment", "deadline", "material", "label"
_DAY_TERMS = frozenset(tokens("monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight"))


def _values(text: str) -> set[str]:
    """The values a text carries, as kept's tokens normalise them (7am and 7:00 alike, 周五 and
    Friday alike): numbers, times and days; and the days memory.text.dates reads in it, resolved
    from one reference day (明天 and "tomorrow" alike, 明天 and 今天 apart)."""
    from datetime import date

    found = {t for t in tokens(text) if any(c.isdigit() for c in t) or t in _DAY_TERMS}
    try:
        found |= {span.label() for _, _, _, span in dates.find(text, date.today())}
    except dates.DateError:
        pass  # an ambiguous phrase adds no day
    return found


def _lost_message(value: str, said: str) -> str:
    """Why a message body the model wrote is not the message the request dictates (``said``):
    it lost a value the dictated one holds, or it keeps none of its words ("I'm sorry, I can't
    help with that" for "let Piotr know nobody mows until the frost lifts"). '' when it is it."""
    if not value.strip():
        return "the call left it out"
    lost = _values(said) - _values(value)
    if lost:
        return f"it lost {', '.join(sorted(lost))}"
    if content_words(said) and not content_words(said) & content_words(value):
        return "it keeps none of the dictated words"
    return ""


_FIRST_PERSON = re.compile(r"^(?:me|myself|i|我|我自己|自己)$", re.I)
_LIST_SPLIT = re.compile(r"\s*(?:[,;、，]|\band\b|和)\s*")


def said_people(request: Request) -> list[str]:
    """The people the request names in its head, with the store's names (as memory and the chat
    show them this turn) read in any casing."""
    from memory.recall import store_names

    # The request itself is left out: its own opening verb would pass for a name never seen in lower case.
    seen = request.memory + [
        m.content for m in request.messages if m.content and m.role != "tool" and m.content != request.text
    ]
    return people.named(request.text, frozenset(store_names(seen)) if seen else frozenset())


def _labelled(call: ToolCall, spec: ToolSpec, said: list[str], ev: Evidence, request_text: str) -> ToolCall:
    """``call`` with a label (a meeting's title) written from the request's people where the
    model's is in neither the request nor memory: the 0.5B model titles a Chinese request in
    English ("Video call with Boss Tu" for 跟屠老板约个视频会), and the guard dropped a booking whose
    day, time and people the request gave. A title names the thing booked; it carries no value
    the person must have said. With no people read, the model's title stands to be judged."""
    labels = [f for f, kind in spec.kinds.items() if kind == LABEL and f in call.arguments]
    if not said or not labels:
        return call
    args = dict(call.arguments)
    for f in labels:
        if not _grounded(f, args[f], ev):
            args[f] = (
                f"和{'、'.join(said)}的会"
                if words.written_in_chinese(request_text)
                else f"Meeting with {', '.join(said)}"
            )
    return ToolCall(call.id, call.name, args) if args != call.arguments else call


def _names_in(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if v]
    if isinstance(value, str) and value.strip():
        return [v for v in _LIST_SPLIT.split(value) if v.strip()]
    return []


def fill(
    call: ToolCall, spec: ToolSpec, said: list[str], reading: Reading, request_text: str = ""
) -> tuple[ToolCall, list[Note]]:
    """``call`` with the people and times the request states and the model dropped or changed,
    by the kinds of its arguments: a value the request does not state is never added."""
    if not spec.kinds or call.name.startswith(READING):
        return call, []
    props: dict = spec.parameters.get("properties", {})
    args = dict(call.arguments)
    notes: list[Note] = []

    def key_for(field_name: str) -> str:
        """The key the model used for a field: the field's own, or another name of it."""
        if field_name in args:
            return field_name
        others = [k for k in args if k not in props and spec.kinds.get(k) == spec.kinds[field_name]]
        return others[0] if others else field_name

    fields = [f for f in props if f in spec.kinds]
    person_fields = [f for f in fields if spec.kinds[f] in (PEOPLE, PERSON)]
    given = [n for f in person_fields for n in _names_in(args.get(key_for(f)))]
    missing = [n for n in said if not any(people.same_person(n, v) for v in given)]
    for f in person_fields:
        key = key_for(f)
        value = args.get(key)
        if isinstance(value, str) and spec.kinds[f] == PERSON:
            # A Chinese name cut with its neighbour (刘佳发 from 刘佳发个消息): the request's reading is the name.
            wider = [n for n in said if _CJK.search(n) and n in value and value != n and value in request_text]
            if wider:
                args[key] = wider[0]
                notes.append(Note(call.name, "changed", f"{key} {value!r} -> {wider[0]!r} (the name in the request)"))
                value = wider[0]
        if spec.kinds[f] == PEOPLE and missing:
            # A name the model put in another argument and nothing marks as taking part ("Atlas" of
            # "Schedule Atlas sync with Sam") is what the meeting is about, not who attends.
            elsewhere = [
                str(v) for k, v in args.items() if isinstance(v, str) and spec.kinds.get(k) not in (PEOPLE, PERSON)
            ]
            joining = [
                n
                for n in missing
                if not any(people.same_person(n, v) for v in elsewhere)
                or people.companion(n, request_text)
                or any(people.companion(n, v) for v in elsewhere)
            ]
            if joining:
                args[key] = _names_in(value) + joining
                notes.append(Note(call.name, "changed", f"{key} + {joining!r} (named in the request)"))
            missing = []
        elif spec.kinds[f] == PERSON and len(missing) == 1:
            names_someone = any(people.same_person(n, v) for n in said for v in _names_in(value))
            # "me" stays when the request says it ("Remind me to …"): the person is not named, but meant.
            self_meant = isinstance(value, str) and _FIRST_PERSON.match(value.strip()) is not None
            if names_someone or self_meant:
                continue
            args[key] = missing[0]
            was = f" {value!r} ->" if value else ""
            notes.append(Note(call.name, "changed", f"{key}{was} {missing[0]!r} (named in the request)"))
            missing = []
    said_text = people.material(request_text)
    for f in (f for f in fields if spec.kinds[f] == MATERIAL and said_text):
        key = key_for(f)
        value = str(args.get(key) or "")
        why = _lost_message(value, said_text)
        if why:
            # The message the request dictates, as said, when the model's text is not it.
            args[key] = said_text[:1].upper() + said_text[1:]
            notes.append(Note(call.name, "changed", f"{key} -> the request's own words ({why})"))
    named = reading.named
    single = named is not None and not reading.ambiguous and len(reading.moments) <= 1
    for f in fields:
        if f in args or key_for(f) != f or not single:
            continue
        assert named is not None  # single says so
        timed = named.has_clock and named.moment is not None  # a start needs a day and a time of day
        if not (spec.kinds[f] == MOMENT and timed or spec.kinds[f] == DEADLINE and named.day is not None):
            continue
        args[f] = named.phrase
        notes.append(
            Note(call.name, "changed", f"{f} + {named.phrase!r} (the request's time, which the call left out)")
        )
    return (ToolCall(call.id, call.name, args), notes) if notes else (call, [])


# ---------------------------------------------------------------- the step


def screen(calls: list[ToolCall], tools: list[ToolSpec], request: Request) -> Screened:
    """What runs of the model's calls, what is held to ask the person, and a note of each change."""
    ev = evidence(request)
    specs = {t.name: t for t in tools}
    kinded = [c for c in calls if c.name in specs and specs[c.name].kinds and not c.name.startswith(READING)]
    reading = read_request(request.text, request.now, request.tz) if calls else Reading()
    said = said_people(request) if kinded else []
    filled: list[ToolCall] = []
    fills: dict[str, list[Note]] = {}
    for call in calls:
        if call in kinded and not asks_only(request.text):
            call, fills[call.id] = fill(call, specs[call.name], said, reading, request.text)
            call = _labelled(call, specs[call.name], said, ev, request.text)
        filled.append(call)
    kept, notes = guard(filled, tools, ev)
    out: list[ToolCall] = []
    held: list[tuple[ToolCall, str]] = []
    for call in kept:
        fixed, changes, hold = repair(call, specs[call.name], request, ev, reading)
        if not hold:  # a held call does not run: what was filled into it is moot
            notes += fills.get(call.id, []) + changes
        if hold:
            held.append((call, hold))
            notes.append(Note(call.name, "held", hold))
        else:
            out.append(fixed)
    for note in notes:
        log.info("screen %s %s: %s", note.action, note.tool, note.detail)
    return Screened(out, held, notes, [c for c, f in zip(calls, filled, strict=True) if f not in kept])


def held_result(reason: str) -> dict[str, str]:
    """The tool result a held call gets: it asks the person instead of guessing."""
    return {"error": f"not run: {reason}. Ask the person which they mean."}


def as_json(notes: list[Note]) -> list[dict[str, str]]:
    return [{"tool": n.tool, "action": n.action, "detail": n.detail} for n in notes]
