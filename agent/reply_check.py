"""A reply is checked before it is shown: it may not claim an action no tool
did, repeat the person's message or an earlier reply, and acting calls come
only from requests to act.

A small model imitates what it sees: kept's own result lines ("schedule_meeting
done: event id: 2 …") turned up as replies with no call behind them, and one
echoed introduction was copied, name swapped, into every later reply. Both are
failed generations: retried once with the model's sampling changed, else
replaced by an honest line, which is stored marked ``failed`` so the model is
never shown it as an example (agent/context.py leaves failed replies out of
the history).

Confirmations of what a tool did are sentences built here from the tool's
result, never the model's words about it (``confirmation``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent.models.base import Message, Model, Response, ToolSpec, Usage
from agent.models.calls import call_model
from memory.asked import asked_for, asked_thing
from memory.text import acts as _acts
from memory.text import words
from memory.text.acts import (
    about_the_person,
    asks_for_help,
    asks_how_addressed,
    is_question,
    is_request,
)
from memory.text.bilingual import english_reading
from memory.text.script import reads_simplified, simplified

# Tools named like these only look things up; every other tool acts.
READING = ("list_", "search_", "get_", "find_")


def asks_to_act(request: str) -> bool:
    """Whether ``request`` licenses an acting tool: it asks kept to act on someone or something
    (memory.text.acts.asks_to_act), and not only how to treat the person (memory.soul.only_treatment:
    "call me Dong-ge, and no bold or stars when you talk to me" asks for no tool)."""
    if not _acts.asks_to_act(request):
        return False
    from memory import soul

    return not soul.only_treatment(request)


# What kept may claim to have done, by the tool that does it. These are
# kept's own action words (its tools' vocabulary), not a reading of the person.
_CLAIMS: dict[str, tuple[str, ...]] = {
    "schedule_meeting": ("booked", "scheduled", "set up", "put it in", "added it to your calendar"),
    "send_message": ("sent", "messaged", "emailed"),
    "assign_task": ("assigned", "created a task", "added a task"),
    "cancel_event": ("cancelled", "canceled"),
    "complete_task": ("completed", "marked it done", "marked it as done", "marked as done"),
}
_CJK_CLAIMS: dict[str, str] = {
    "schedule_meeting": "预订|预约|安排|订|约",
    "send_message": "发送|发出|发给|发",
    "assign_task": "分配|创建|添加",
    "cancel_event": "取消",
    "complete_task": "完成|标记",
}
# "已为你预订", "已经发送", "订好了"
_CJK_CLAIM = {
    name: re.compile(rf"已(?:经)?(?:为您|为你|帮您|帮你|给您|给你)?(?:{stems})|(?:{stems})好了")
    for name, stems in _CJK_CLAIMS.items()
}
# "I booked", "I've sent", "has been scheduled", "is now cancelled", "Done:", and the
# shape of kept's result lines ("event id: 2"), which the model copied.
_LATIN_CLAIM = re.compile(
    r"\b(?:i|i've|i have|we|we've|kept)\s+(?:just\s+|now\s+|already\s+|successfully\s+)?(?P<a>{verbs})\b"
    r"|\b(?:has|have)\s+(?:now\s+|just\s+)?been\s+(?:successfully\s+)?(?P<b>{verbs})\b"
    r"|\b(?:is|are)\s+now\s+(?P<c>{verbs})\b"
    r"|^\s*(?:done|all set|success)\b[!.:,]"
    r"|\b(?:event|task|message)[ _]id\s*[:=#]?\s*\d"
    r"|\b(?P<tool>{tools})\s+(?:done|ok|succeeded|failed)\b".format(
        verbs="|".join(re.escape(v) for vs in _CLAIMS.values() for v in vs),
        tools="|".join(_CLAIMS),
    ),
    re.I | re.M,
)
# kept's own confirmation sentences (agent/confirm.py), which the model copied from the chat as
# replies ("Sent to Fiona by chat: …" to a question): each claims its tool's action.
_KEPT_LINE = {
    "schedule_meeting": re.compile(r"^\s*Booked:"),
    "cancel_event": re.compile(r"^\s*Cancelled:"),
    "send_message": re.compile(r"^\s*Sent to\b[^:\n]{0,80}:"),
    "assign_task": re.compile(r"^\s*Task for\b[^:\n]{0,80}:"),
}
_NEGATED = re.compile(
    r"\b(not|n't|never|cannot|can't|could not|couldn't|won't|didn't|haven't|hasn't|no)\b"
    r"|没|未|不",
    re.I,
)

HONEST_NO_ACTION = (
    "I have not booked, sent or changed anything: no tool ran for that. "
    'If you want me to act, say it as a request, e.g. "Book a meeting with Marco tomorrow at 2pm".'
)
HONEST_NO_ANSWER = "I could not work that out. Could you say it another way?"
HONEST_DONT_KNOW = "I don't know: you have not told me that, and nothing I have stored says it."
HONEST_DONT_KNOW_ZH = "我不知道：你没有告诉过我，我存的记录里也没有。"


def dont_know(request: str) -> str:
    """kept's honest "I don't know", in the question's language."""
    return HONEST_DONT_KNOW_ZH if words.written_in_chinese(request) else HONEST_DONT_KNOW


# A reply whose word trigrams are this much inside the person's message or an
# earlier reply copies it (the echoed introduction, name swapped, measured
# 0.5; an answer that names the same project and day, 0.33).
PARROT_CONTAINMENT = 0.5
PARROT_MIN_GRAMS = 3


@dataclass
class Verdict:
    ok: bool
    reason: str = ""  # "" | "invented action: …" | "parrot: …"


# ---------------------------------------------------------------- measures


def _grams(text: str, n: int = 3) -> set[tuple[str, ...]]:
    """Word n-grams of ``text``: kept's tokens, with a CJK run as its characters."""
    toks: list[str] = []
    for t in words.tokens(text):
        if words.has_cjk(t):
            if len(t) == 1:
                toks.append(t)
        else:
            toks.append(t)
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def _plain(text: str) -> tuple[str, ...]:
    """The words as written, stop words kept: "I do not know when the launch is." is not "When is the launch?"."""
    return tuple(re.findall(r"\w+", text.casefold()))


def containment(reply: str, source: str) -> float:
    """Share of the reply's word trigrams found in ``source`` (0 when the reply is too short to tell)."""
    mine = _grams(reply)
    if len(mine) < PARROT_MIN_GRAMS:
        return 0.0
    return len(mine & _grams(source)) / len(mine)


@reads_simplified
def claimed_actions(reply: str) -> set[str]:
    """The tools whose action the reply says was done ("I booked…" → schedule_meeting).

    A claim in a negated sentence ("I have not sent it") or a question ("Shall I
    book it?") is no claim. A copy of kept's result-line shape claims every action.
    """
    found: set[str] = set()
    for sentence in re.split(r"(?<=[.!?。！？\n])\s*", reply):
        if not sentence.strip() or sentence.rstrip().endswith(("?", "？")) or _NEGATED.search(sentence):
            continue
        for m in _LATIN_CLAIM.finditer(sentence):
            verb = (m.group("a") or m.group("b") or m.group("c") or "").lower()
            tool = m.group("tool")
            if tool:
                found.add(tool.lower())
            elif verb:
                found |= {name for name, vs in _CLAIMS.items() if verb in vs}
            else:
                found |= set(_CLAIMS)
        found |= {name for name, pattern in _CJK_CLAIM.items() if pattern.search(sentence)}
        found |= {name for name, pattern in _KEPT_LINE.items() if pattern.match(sentence)}
        if not _CONDITION.search(sentence):
            # A promise to act ("I'll send it to Dora now", 我会帮您发送这个消息) claims the action as
            # surely as a report: kept acts within the turn or not at all, so no later doing keeps it.
            for m in _LATIN_PROMISE.finditer(sentence):
                found |= {name for name, vs in _PROMISED_VERBS.items() if m.group("verb").lower() in vs}
            found |= {name for name, pattern in _CJK_PROMISE.items() if pattern.search(sentence)}
    return found


# The future of the claim verbs in their base forms: "I'll book", "I will send", "I'm going to set up".
_PROMISED_VERBS = {
    "schedule_meeting": ("book", "schedule", "set up"),
    "send_message": ("send", "message", "email"),
    "assign_task": ("assign", "create a task", "add a task"),
    "cancel_event": ("cancel",),
    "complete_task": ("complete", "mark it done", "mark it as done"),
}
_LATIN_PROMISE = re.compile(
    r"\b(?:i'll|i will|i'm going to|i am going to|we'll|we will)\s+(?:now\s+|go ahead and\s+|right away\s+)?"
    r"(?P<verb>{})\b".format("|".join(re.escape(v) for vs in _PROMISED_VERBS.values() for v in vs)),
    re.I,
)
# "我会帮您发送", "我这就安排": the speaker, a future or an immediate, a claim verb of two characters
# (one alone is too many words' first: 发现, 约定, 订阅).
_CJK_PROMISE = {
    name: re.compile(
        "(?:我|咱)(?:们)?(?:会|将|这就|马上|立刻|现在就)(?:为您|为你|帮您|帮你|给您|给你)?(?:{})".format(
            "|".join(stem for stem in stems.split("|") if len(stem) >= 2)
        )
    )
    for name, stems in _CJK_CLAIMS.items()
}
# A promise on a condition ("I'll book it once you confirm the time", 等你确认了我就发) is honest.
_CONDITION = re.compile(r"\b(?:if|once|when|after|as soon as)\s+you\b|如果|等你|一旦|确认后|之后再", re.I)


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")


def ungrounded(reply: str, shown: str, request: str = "") -> list[str]:
    """Names and numbers the reply states that appear nowhere in what the model
    was shown (memory, the chat, the message): "My dog's name is Sam." when no
    Sam was ever mentioned, "你女儿叫李佳发。" when no 李佳 or 佳发 was.

    A Latin name is a capitalised word that does not open its sentence; a
    Chinese one is a run of characters no dictionary word covers
    (memory.text.bilingual.unlisted), less the particles and the question's
    own characters around it, and grounded when it was shown as written
    ("她叫李佳" after "我女儿李佳")."""
    seen = set(words.tokens(shown))
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", reply.strip()):
        for m in _NAME.finditer(sentence):
            if m.start() > 0 and not set(words.tokens(m.group(0))) <= seen:
                out.append(m.group(0))
        for t in words.tokens(sentence):
            if any(ch.isdigit() for ch in t) and t not in seen:
                out.append(t)
    if words.has_cjk(reply):
        from memory.text import bilingual

        for run in bilingual.unlisted(reply):
            name = _name_in(run, request)
            if len(name) > 1 and name not in shown:
                out.append(name)
    return out


def _name_in(run: str, request: str) -> str:
    """A run of unlisted characters without what surrounds the name in it: particles, pronouns
    (characters kept's tokens drop) and the question's own characters ("叫李佳发" after
    "我女儿叫什么名字？" is 李佳发)."""
    start, end = 0, len(run)
    while start < end and (not words.tokens(run[start]) or run[start] in request):
        start += 1
    while end > start and (not words.tokens(run[end - 1]) or run[end - 1] in request):
        end -= 1
    return run[start:end]


# A reply that opens as a tool call in JSON ({"name": ..., "arguments": ...}), fenced, tagged or bare.
_WRITTEN_CALL = re.compile(
    r'\s*(?:```\w*\s*)?(?:<tool_call>\s*)?(?:\[\s*)?\{\s*"(?:name|function|tool|arguments|parameters)"\s*:'
)


def check(
    reply: str,
    *,
    request: str,
    earlier: list[str],
    done: list[Any],
    parrot: bool = True,
    shown: str | None = None,
    memory: list[str] | tuple[str, ...] = (),
    said: list[str] | tuple[str, ...] = (),
) -> Verdict:
    """Whether ``reply`` may be shown. ``done``: this turn's executed calls
    (with ``name`` and ``is_error``); ``parrot``: also check for repetition;
    ``shown``: everything the model was shown, when an answer to a question
    must not state names or numbers from outside it; ``memory``: the memory
    blocks in the prompt, and ``said``: the person's earlier messages, which a
    reply may not copy unless it answers a question with them. ``earlier``
    holds kept's earlier replies (``repeats`` says what a parrot is)."""
    if _WRITTEN_CALL.match(reply):
        # A call the model wrote as text (cut off, or in a turn that took no call) did nothing:
        # shown, it reads as kept's own action, or as noise.
        return Verdict(False, "a tool call written as text, not made")
    from agent.context import copies_prompt

    if parrot and copies_prompt(reply):
        return Verdict(False, "parrot: it copies kept's own prompt (its clock line or memory headings)")
    succeeded = {c.name for c in done if not c.is_error and acts(c.name)}
    claimed = claimed_actions(reply)
    # A claim is covered by a successful call of its tool; a tool kept has no
    # claim words for (and a bare "Done.") is covered by any successful action.
    covered = claimed <= succeeded or bool(succeeded - set(_CLAIMS)) or (claimed == set(_CLAIMS) and succeeded)
    if claimed and not covered:
        return Verdict(
            False, f"invented action: claims {', '.join(sorted(claimed - succeeded))} with no such call this turn"
        )
    if not parrot or any(acts(c.name) for c in done):  # a look-up first is no licence to copy
        return Verdict(True)
    if shown is not None and is_question(request):
        invented = ungrounded(reply, shown, request)
        if invented:
            return Verdict(False, f"ungrounded answer: {', '.join(invented[:3])} appear nowhere in memory or the chat")
    why = repeats(reply, request, earlier, memory, said)
    if why:
        return Verdict(False, f"parrot: {why}")
    off = off_question(reply, request)
    return Verdict(False, f"off the question: {off}") if off else Verdict(True)


# The wh-words that ask for a kind of value, and the kind (memory.superseding's readers): a reply
# to "how many…" holds a number, to "who…" a name. Closed classes of both languages.
_ASKS_KIND = (
    (re.compile(r"\bhow\s+(?:many|much|long|far|old)\b|多少|几(?!点)", re.I), ("amount", "time", "date")),
    (re.compile(r"\bwhen\b|\bwhat\s+(?:time|date|day)\b|什么时候|几点|哪天|哪一天", re.I), ("date", "time", "amount")),
    (re.compile(r"\bwho(?:m|se|'s)?\b|谁", re.I), ("name",)),
    (re.compile(r"\bwhere(?:'s)?\b|哪里|哪儿|哪个|哪家|哪条", re.I), ("name",)),
)


def off_question(reply: str, request: str, today: date | None = None) -> str:
    """Why ``reply`` cannot answer the question ``request``, or "": it shares no content word with
    the question and holds no value of the kind the question asks for ("How many learners…" →
    "I am Vuvu - everyone does."). Only questions whose wh-word asks for a kind of value are
    judged; an honest "I don't know" is an answer."""
    from memory import superseding
    from memory.text.overlap import content_words

    if not is_question(request) or is_request(request) or not reply.strip():
        return ""
    request = simplified(request)  # read as the other readers read it (memory.text.script)
    if reply.strip() in (HONEST_DONT_KNOW, HONEST_DONT_KNOW_ZH, HONEST_NO_ANSWER) or _DONT_KNOW.search(reply):
        return ""
    kinds = next((k for rx, k in _ASKS_KIND if rx.search(request)), None)
    if kinds == ("name",) and words.has_cjk(request):
        kinds = None  # a Chinese name is often all dictionary characters (郑经理): not told apart from words
    if kinds is None:
        return ""
    if content_words(reply) & content_words(request):
        return ""
    held = superseding.read(reply, today or date.today())
    if any(held.of(k) for k in kinds):
        return ""
    return f"shares no word with the question and holds no {' or '.join(dict.fromkeys(kinds))} it asks for"


_DONT_KNOW = re.compile(r"\b(?:don'?t|do not)\s+know\b|\bno idea\b|不知道|没有告诉", re.I)


def repeats(
    reply: str,
    request: str,
    earlier: list[str],
    memory: list[str] | tuple[str, ...] = (),
    said: list[str] | tuple[str, ...] = (),
) -> str:
    """Why ``reply`` parrots, or "".

    Issue 18's definition: a reply that repeats the person's message or an
    earlier reply (``earlier``). Besides, a reply that does not answer the
    question it was asked may not copy a memory block (the model copied
    MEMORY's "Who they are" lines as replies), nor may any reply copy an
    earlier message of the person's that shares no word with the question
    (``said``: the introduction, copied with a name swapped). An answer may
    quote what the person said earlier about what is asked: that is where it
    is known."""
    mine = _plain(reply)
    # A reply that shares words with the question it answers may give the same
    # short answer again ("The Atlas budget is now 55,000 euros.") and may
    # quote memory or the person's own sentence; one that shares none is a copy.
    answers = is_question(request) and bool(set(words.tokens(reply)) & set(words.tokens(request)))
    # An answer may say the question back with the value it asks for ("车队现在有52辆冷藏车" to
    # "车队现在有多少辆冷藏车？"): a reply holding a value of the asked kind the question lacks
    # is no copy of it.
    sources = [] if _adds_asked_value(reply, request) else [(request, "the person's message")]
    # The same question asked again gets the same answer ("23" to "open CAPA 还剩几个来着?" after "23"
    # to "现在还有多少个 open CAPA?"): a reply whose value of the asked kind a known line about the
    # question's thing holds answers from what it knows, and that is no copy of a reply or a block.
    grounded = _grounded_value(reply, request, list(memory) + list(said))
    sources += [] if grounded else [(e, "an earlier reply") for e in earlier]
    asked = set(words.tokens(request))
    sources += [
        (m, "an earlier message of the person's") for m in said if not answers or not set(words.tokens(m)) & asked
    ]
    if not answers and not grounded and not asks_how_addressed(request):  # how kept calls them is SOUL's words
        sources += [(m, "a memory block") for m in memory]
    for source, label in sources:
        if mine and mine == _plain(source) and not (answers and source is not request):
            return f"the same words as {label}"
        share = containment(reply, source)
        if share >= PARROT_CONTAINMENT:
            return f"{share:.0%} of its word trigrams repeat {label}"
    return ""


def _grounded_value(reply: str, request: str, lines: list[str]) -> bool:
    """Whether ``reply`` gives a number the question asks for (how many, 多少, 几) that a known
    line speaking of the question's thing holds too: a line that shares a content word with the
    question and has the reply's number among its words. A copied reply with a name swapped,
    or a block copied to an unrelated question, holds no such number."""
    from memory import asked
    from memory.text.acts import split
    from memory.text.overlap import content_words

    if not is_question(request) or asked.NUMBER not in asked.kinds(request):
        return False
    values = {t for t in words.tokens(reply) if any(ch.isdigit() for ch in t)} - set(words.tokens(request))
    if not values:
        return False
    thing = content_words(request)
    return any(
        values & set(words.tokens(line)) and thing & content_words(line) for text in lines for line in split(text)
    )


def _adds_asked_value(reply: str, request: str) -> bool:
    """Whether ``reply`` holds a value of a kind the question ``request`` asks for (memory/asked.py
    reads both) that the question itself does not hold."""
    from memory import asked

    if not is_question(request):
        return False
    return any(asked.holds_kind(k, reply) and not asked.holds_kind(k, request) for k in asked.kinds(request))


# ---------------------------------------------------------------- requests


def acts(name: str) -> bool:
    return not name.startswith(READING)


# ---------------------------------------------------------------- confirmations


def said(name: str, arguments: dict, result: Any, is_error: bool) -> str:
    """One sentence for one tool call, built from its result (agent/confirm.py's where it has one)."""
    from agent import confirm

    if is_error or (isinstance(result, dict) and "error" in result):
        error = result.get("error") if isinstance(result, dict) else result
        return f"Not done ({name.replace('_', ' ')}): {error}"
    sentence = confirm.describe(name, arguments, result)
    if sentence:
        return sentence
    r = result if isinstance(result, dict) else {}
    shown = "; ".join(f"{k.replace('_', ' ')} {v}" for k, v in r.items() if isinstance(v, (str, int, float)))
    return f"Done ({name.replace('_', ' ')}): {shown}." if shown else f"Done ({name.replace('_', ' ')})."


def confirmations(done: list[Any]) -> str:
    """This turn's acting calls in kept's own sentences."""
    return "\n".join(said(c.name, c.arguments, c.result, c.is_error) for c in done if acts(c.name))


# ---------------------------------------------------------------- the checked call


def _earlier(convo: list[Message], request: str = "") -> tuple[list[str], list[str]]:
    """The chat's earlier replies, and the person's earlier messages (a copied introduction counts
    when it answers nothing), with the person's messages merged into the request (replies kept
    wrote are left out of the history, so the messages around them join the last one) as
    messages of their own."""
    last_user = max((i for i, m in enumerate(convo) if m.role == "user"), default=0)
    replies = [m.content for m in convo[:last_user] if m.role == "assistant" and m.content]
    said = [m.content for m in convo[:last_user] if m.role == "user" and m.content]
    last = convo[last_user].content if convo and convo[last_user].role == "user" else ""
    if request and last.endswith(request) and len(last) > len(request):
        said += [part for part in last[: -len(request)].split("\n\n") if part.strip()]
    return replies, said


def request_alone(convo: list[Message], request: str) -> list[Message]:
    """The conversation from the person's request on, the request as they wrote it.

    In a session the 0.5B model made 0 of 5 requested calls where single
    turns scored 10 of 12: earlier replies ("Budget: 40,000 euros") are
    copied instead of acted on, and a message whose reply failed is merged
    into the request after it. A request to act needs no earlier turn.
    """
    last_user = max((i for i, m in enumerate(convo) if m.role == "user"), default=-1)
    return [Message("user", request)] + convo[last_user + 1 :]


def request_last(convo: list[Message], request: str) -> list[Message]:
    """The conversation with the request as the last message alone, and the person's messages
    merged into it (replies kept wrote are left out of the history, so the messages before them
    join it) as messages of their own before it. Merged, the embedded model read the statements
    before a question as a part of it (it called send_message for "which noodle sells best?"
    after a message that asked for one), and so did what reads the request (the tools offered,
    the tool a request's shape calls for). The embedded model takes two user messages in a row;
    quoted in the system prompt instead, they were answered with the block's heading, translated."""
    last_user = max((i for i, m in enumerate(convo) if m.role == "user"), default=-1)
    last = convo[last_user].content if last_user >= 0 else ""
    if not request or not last.endswith(request) or len(last) <= len(request):
        return convo
    before = [Message("user", part.strip()) for part in last[: -len(request)].split("\n\n") if part.strip()]
    return convo[:last_user] + before + [Message("user", request)] + convo[last_user + 1 :]


# kept has no tool that reminds: said plainly, so "noted" promises nothing it cannot do.
NO_REMINDERS = "I can't send reminders, but it's kept: ask me about it any time."
NO_REMINDERS_ZH = "我没法主动提醒你，但已经记下了，随时可以问我。"


def acknowledgement(statement: str, today: date, reminder: bool = False) -> str:
    """kept's own reply to a statement: noted, with the days it names worked out.

    The 0.5B model's replies to statements were copies of the message, of
    MEMORY, or inventions ("Please call me on Tuesday 2026-12-01 at 12:00");
    a statement asks for nothing, and what it says is kept for the write pass.
    ``reminder``: the message asks to be reminded or held to something, which
    no tool of kept's does; the reply says so.
    """
    from memory.text import dates

    found = [(said, span.start) for _, _, said, span in dates.find(statement, today) if span.start == span.end]
    if words.written_in_chinese(statement):
        days = "，".join(f"{said}：{day.month}月{day.day}日" for said, day in found)
        if reminder:
            return "好的" + (f"（{days}）" if days else "") + "。" + NO_REMINDERS_ZH
        return "好的，记下了" + (f"（{days}）" if days else "") + "。"
    days = "; ".join(f"{said}: {day:%a} {day.day} {day:%b}" for said, day in found)
    return "Noted" + (f" ({days})" if days else "") + "." + (" " + NO_REMINDERS if reminder else "")


def unknown_to_kept(request: str, known: list[str], tools: list[ToolSpec] | None) -> bool:
    """A question about the person's world that nothing kept holds can answer.

    Most of its content words appear in no memory block and no message of the
    chat, none of those is a word of what a look-up tool lists (calendar,
    tasks, sent messages), and it names no time (a look-up would): "What's
    my dog's name?" in a chat that never spoke of a dog.
    """
    from memory.text.dates import mentions_time
    from memory.text.overlap import content_words

    if not is_question(request) or is_request(request) or not about_the_person(request):
        return False
    if mentions_time(request):
        return False
    asked = content_words(request)
    if not asked:
        return False
    from memory.recall import store_names

    if set(words.tokens(request)) & set(store_names(known)):
        return False  # a name kept holds: whether anything was said of it is nothing_bears_on's to judge
    held = content_words("\n".join(known))
    missing = asked - held
    return len(missing) * 2 > len(asked) and not missing & _listed(tools)


# Whose thing a Chinese question asks of: "我女儿在哪个学校上学？" asks of the person's daughter; when
# no line speaks of her, nothing known bears on the question, whatever its noun.
_OWNED_ZH = re.compile(r"^(?:我|我们)的?(?P<whose>(?!们)[\u4e00-\u9fff]{2})(?=在|是|叫|住|上|的|有|喜欢|去)")
_QUESTION_WORDS = frozenset(words.tokens("what which who whom whose where when how many much name called"))
# The units of time a question may ask for ("what days", "which night", "what date").
_TIME_UNITS = frozenset(words.tokens("day days date night nights time times week month year hour morning evening"))
_DAY_NAMES = frozenset(words.tokens("monday tuesday wednesday thursday friday saturday sunday")) | frozenset(
    words.MONTHS
)
BEARS = 0.30  # cosine of what is asked with a line, below which the line does not speak of it


def term_words(term: str) -> set[str]:
    """The words that speak of ``term`` in a line, in either script, less the question words. A
    Chinese term of two characters or more is met by its words, not by one of its characters alone
    (床位 "beds" is not spoken of by 那位 "that one")."""
    found = (set(words.tokens(english_reading(term))) | set(words.tokens(term))) - _QUESTION_WORDS
    return {w for w in found if len(w) > 1 or not words.has_cjk(w)} if len(term.strip()) > 1 else found


def _line_words(line: str) -> set[str]:
    return set(words.tokens(line)) | set(words.tokens(english_reading(line)))


def nothing_bears_on(request: str, known: list[str]) -> bool:
    """A question about the person's world where no line kept holds (recalled facts, memory,
    the chat) speaks of what it asks: no word of the asked thing is in any of them (in either
    script), no day is named when it is a unit of time, and none is near it in meaning
    (memory/meaning.py). "What's Duncan's mobile number?" when Duncan is
    known but no number of his was ever given; "How many learners…" when only a camp of that
    grade was spoken of. Without the meaning model, only the word test is made."""
    from memory import meaning
    from memory.recall import store_names
    from memory.text import dates
    from memory.text.acts import self_contained, split

    if not is_question(request) or is_request(request) or dates.mentions_time(request):
        return False
    lines = [line for text in known for line in split(text) if line.strip()]
    if not lines:
        return False  # nothing was shown to judge by (a one-shot `kept ask`): the model may look it up
    if self_contained(request, frozenset(store_names(lines))) is not None:
        return False  # a question of general knowledge: not kept's to answer from memory

    def spoken_of(wanted: set[str]) -> bool:
        return any(wanted & _line_words(line) for line in lines)

    owned = _OWNED_ZH.match(request.strip())
    if owned and (whose := term_words(owned.group("whose"))) and not spoken_of(whose):
        return True  # whose thing it asks of (我女儿…) was never spoken of
    asked = asked_thing(request)
    if not asked:
        return False

    # A word of what is asked in a line, in either script ("day rate" in "…at €700 a day",
    # 手机号 against "cell 604-…" through its English senses).
    wanted = term_words(asked)
    if not wanted or spoken_of(wanted):
        return False
    if wanted & _TIME_UNITS and any(
        dates.mentions_time(line) or set(words.tokens(line)) & _DAY_NAMES or dates.find(line, date.today())
        for line in lines
    ):
        return False  # "what days…", "which night…": a line that names a day or a time speaks of it
    if not (meaning.enabled() and meaning.available()):
        return True

    vectors = meaning.embed([english_reading(asked)] + [english_reading(line) for line in lines])
    return float((vectors[1:] @ vectors[0]).max()) < BEARS


# How near in meaning (memory/meaning.py) a line holding a value of the asked kind must be to the
# question to count as speaking of it in other words: measured on the dev first sessions, answers
# scored 0.53-0.90 against their question, and the nearest value-holding line of a never-said
# question 0.23-0.42 ("What time does the practice close on Saturdays?" against a meeting "at
# 8:15am, before clinic starts").
NEAR_VALUE = 0.50


def _words_of(text: str) -> set[str]:
    """A text's content words in either script (memory/asked.py's ``words_of``, shared with recall)."""
    from memory import asked

    return asked.words_of(text)


def no_value_of_kind(request: str, known: list[str], tools: list[ToolSpec] | None = None) -> bool:
    """A question asking for a kind of value (a time, a number…) about something kept knows of,
    where no known line holds a value of that kind for it.

    The kind is read from the question's words (memory/asked.py: ``kinds`` for when / what time
    / how many / 多少, ``value_kind`` for an attribute naming a form, "the price", 电话). The thing
    asked about is the question's content words without its question and form words. It is
    spoken of when a known line shares one of them (in either script); the question is
    answerable when a line holding a value of the kind shares one (or follows one that does, in
    the same message: "We opened a noodle bar. It seats 45."), or is near it in meaning.
    So "What time does the practice close on Saturdays?", after an introduction naming the
    practice and a meeting "tomorrow at 8:15am, before clinic starts", is unknown: the practice
    was spoken of, never with a time. A thing never spoken of is left to the other tests (a
    value may be known in other words); a question a look-up tool can answer (it names a day,
    or what kept's tools hold: a meeting, a task, a message) goes to the model."""
    from memory import asked, meaning
    from memory.recall import store_names
    from memory.text import dates
    from memory.text.acts import self_contained, split

    if not is_question(request) or is_request(request) or dates.mentions_time(request):
        return False
    # The reading of the question is memory's (memory/asked.py: ``readable_kinds``, ``thing_words``,
    # ``about_with_value``); the reply's own parts are the attribute frames and the tools.
    wanted = asked.readable_kinds(request, asked_for(request))
    if not wanted:
        return False
    texts = [[line for line in split(text) if line.strip()] for text in known]
    lines = [line for text in texts for line in text]
    if not lines or self_contained(request, frozenset(store_names(lines))) is not None:
        return False
    thing = _thing_words(request)
    if not thing or thing & _tool_words(tools):
        return False
    spoken, about, elsewhere = asked.about_with_value(wanted, thing, texts)
    if not spoken or about:
        return False
    holding = [texts[t][s] for t, s in elsewhere]
    if not holding or not (meaning.enabled() and meaning.available()):
        return not holding  # without the meaning model a value said in other words cannot be ruled out
    vectors = meaning.embed([english_reading(request)] + [english_reading(line) for line in holding])
    return float((vectors[1:] @ vectors[0]).max()) < NEAR_VALUE


def _thing_words(question: str) -> set[str]:
    """The content words of what a question asks about (memory/asked.py's ``thing_words``,
    shared with recall)."""
    from memory import asked

    return asked.thing_words(question)


def _said_before(db: Any, request: str, limit: int = 400) -> list[str]:
    """The person's stored messages, oldest first, less this turn's own."""
    if db is None:
        return []
    from memory import messages

    said = [m.text for m in messages.history(db, limit=limit) if m.role == "user" and m.text]
    if said and said[-1].strip() == request.strip():
        said.pop()
    return said


def _person_said(db: Any, convo: list[Message], request: str) -> list[str]:
    """Everything the person said, oldest first: the stored messages, then those of the chat not
    stored among them (each once, so the latest said is last)."""
    stored = _said_before(db, request)
    return stored + [m.content for m in convo if m.role == "user" and m.content and m.content not in stored]


def held_by_tools(db: Any) -> list[str]:
    """What the calendar and the task list hold, one line each (a title, who, when): a value asked
    for may be there though no message or fact says it ("When is the launch?" after a booking in
    another chat)."""
    if db is None:
        return []
    import sqlite3

    from tools import lists

    try:
        events = [f"{e.title} with {', '.join(e.attendees)} at {e.start.isoformat()}" for e in lists.events(db)]
        tasks = [f"{t.title} for {t.assignee} due {t.due or ''}" for t in lists.tasks(db, status="open")]
    except sqlite3.Error:  # a store without the tools' tables
        return []
    return events + tasks


def _tool_words(tools: list[ToolSpec] | None) -> set[str]:
    """The words of kept's tools' names (meeting, event, message, task): a question about what
    they hold is a look-up's to answer."""
    from memory.text.overlap import content_words

    return content_words(" ".join(t.name.replace("_", " ") for t in tools or []))


def _listed(tools: list[ToolSpec] | None) -> set[str]:
    """The content words of what the look-up tools list (calendar, tasks, sent messages)."""
    from memory.text.overlap import content_words

    return content_words(
        " ".join(f"{t.name.replace('_', ' ')} {t.description}" for t in tools or [] if t.name.startswith("list_"))
    )


def asked_thing_unheld(request: str, lines: list[str]) -> bool:
    """Whether no word of what a question asks for (``asked_thing``: "barrels" of "How many
    barrels did we brew last month?") is in any line kept holds, in either script.

    Used once the model failed to answer (its replies were withdrawn): up front, a line near the
    asked thing in meaning leaves the question to the model ("barrels" is near "brewing"); when
    the model could not answer from it either, and no line says the thing itself, what kept
    can honestly say is that it does not know, not that it "could not work that out"."""
    from memory.text.acts import split

    if not is_question(request) or is_request(request):
        return False
    asked = asked_thing(request)
    if not asked:
        return False
    wanted = term_words(asked)
    return bool(wanted) and not any(
        wanted & _line_words(line) for text in lines for line in split(text) if line.strip()
    )


def undated_unless_listed(request: str, tools: list[ToolSpec] | None) -> str:
    """``request`` without the days and times it names, when what it asks for is nothing a
    look-up tool lists; else ``request`` as it is.

    The tests of what kept holds leave a question that names a day to the model, which may look
    it up ("What's on tomorrow?"). But a day only narrows what is asked: "How many barrels did
    we brew last month?" asks for barrels, which no calendar, task list or outbox holds (their
    tools' names and descriptions say what they list), so the day is no reason to let the
    model guess, and the question is judged without it. A question that asks for no thing in
    particular, or for one the tools list (meetings, tasks, messages), keeps its day."""
    from memory.text import dates
    from memory.text.overlap import content_words

    if tools is None or not dates.mentions_time(request):
        return request
    asked = asked_for(request)
    thing = content_words(asked) - _QUESTION_WORDS if asked else set()
    if not thing or thing & (_tool_words(tools) | _listed(tools)):
        return request
    out = request
    for start, end, _, _ in reversed(dates.find(request, date.today())):
        out = out[:start] + out[end:]
    return re.sub(r"\s+([?？.!])", r"\1", re.sub(r"\s{2,}", " ", out)).strip()


# ---------------------------------------------------------------- answers from the person's own words


def promised_answer(request: str, said: list[str]) -> str:
    """kept's answer to "what did I promise X?" from the person's own words: the sentences of
    their messages (``said``, oldest first) that name X and commit them (memory.text.commitments
    ``commits``: a first-person future, a verb of committing, or a commitment it reads), quoted,
    the latest last; ""
    when the question is of another shape, names no one, or no such sentence was said.

    The 0.5B model answered these with a date, a question back or "Sure! Here's how…" though
    the sentence was in its prompt. What was promised is a sentence of the person's own that
    names the one it was promised to: that is a reading of the store, not of any wording, so
    it holds for any promise and any name, in either language."""
    from memory.text import people
    from memory.text.acts import sentences
    from memory.text.commitments import asks_what_was_committed, commits, committed_to

    # Which questions ask it, and which sentences say a commitment: memory.text.commitments' reading.
    if not asks_what_was_committed(request):
        return ""
    from memory.recall import store_names

    whom = people.named(request)
    if committed_to(request):
        whom.append(committed_to(request))
    # A name the person's messages write as one, wherever the question puts it ("Grace那边我答应了什么?").
    names = set(store_names(said))
    whom += [w for w in re.findall(r"[A-Za-z][A-Za-z'-]+", request) if set(words.tokens(w)) & names and w not in whom]
    whom = [w.strip() for w in whom if w.strip()]
    if not whom:
        return ""
    found: list[str] = []
    for message in reversed(said):
        if message.strip() == request.strip():
            continue
        for a, b in reversed(sentences(message)):
            sentence = message[a:b].strip()
            if sentence in found or is_question(sentence) or not any(_names(sentence, w) for w in whom):
                continue
            if commits(sentence):
                found.append(sentence)
    if not found:
        return ""
    quoted = found[:2][::-1]
    if words.written_in_chinese(request):
        return "你说过：" + "".join(f"“{q}”" for q in quoted)
    return "You told me: " + " ".join(f'"{q}"' for q in quoted)


def number_answer(request: str, said: list[str]) -> str:
    """kept's answer to a question asking for a number (memory/asked.py reads the kind: how
    many, 多少, an attribute naming an amount) from the person's own words: their latest
    statement that speaks of the question's thing (``_thing_words``, in either script) and
    holds a number, quoted; "" when none does.

    The latest statement, because a later value of the same thing supersedes an earlier one
    ("open 的 CAPA 一共 37 个" then "…现在只剩 23 个了"): the person says a change after what it
    changes. Only numbers: a question asking when is left to the model, since a day or a time
    is said of many things about one subject (a promise about the Tordis "by Thursday" is no
    date of its dry dock). Offline over the dev first sessions (all but test18), with the count's
    noun read (``asked.counts``): 18 of 164 questions with expected words answered, 17 right (one
    stale value), and 2 of 51 never-said ones (7 without the noun read)."""
    from memory import asked
    from memory.text.acts import sentences

    if not is_question(request) or is_request(request):
        return ""
    kinds = set(asked.kinds(request))
    attribute = asked_for(request)
    form = asked.value_kind(attribute) if attribute else None
    if form:
        kinds.add(form)
    if asked.NUMBER not in kinds:
        return ""
    thing = _thing_words(request)
    if not thing:
        return ""
    # What the count is of (memory.asked.counted): a number of something else ("干了十二年了" for
    # 多少个员工, "Grade 9" for how many learners) answers nothing.
    what = asked.counted(request)
    latest = ""
    for message in said:
        if message.strip() == request.strip():
            continue
        for a, b in sentences(message):
            sentence = message[a:b].strip()
            if is_question(sentence) or is_request(sentence):
                continue
            if not asked.counts(sentence, what):
                continue
            if thing & _words_of(sentence) and asked.holds_kind(asked.NUMBER, sentence):
                latest = sentence
    if not latest:
        return ""
    return f"你说过：“{latest}”" if words.written_in_chinese(request) else f'You told me: "{latest}"'


def _names(sentence: str, name: str) -> bool:
    """Whether ``sentence`` names ``name``: as written, a full name by its last word too ("Dr
    Fenwick", "Fenwick"), a Chinese surname and title with the given name between (刘老师 in
    刘芳老师, 罗会长 in 罗建国会长: the order of a Chinese name and its title)."""
    low = sentence.casefold()
    parts = name.split()
    if name.casefold() in low or (len(parts) > 1 and len(parts[-1]) > 2 and parts[-1].casefold() in low):
        return True
    if words.has_cjk(name) and len(name) >= 3:
        return re.search(re.escape(name[0]) + "[\u4e00-\u9fff]{1,2}" + re.escape(name[1:]), sentence) is not None
    return False


def address_answer(request: str, soul_text: str, said: Sequence[str] = ()) -> str:
    """kept's answer to "what do you call me?" from SOUL: the name its naming wish gives
    (memory.text.acts.address_name: 叫我萍姐, "everyone calls me Teddie"), else from the person's
    own latest message that gives one (``said``, oldest first: SOUL may have missed the line), or
    "" when neither does. The 0.5B model answered with a copy of the introduction ("我叫段丽萍，在
    昆明…") or another name of the chat ("I'm Rosalind.")."""
    from memory.text.acts import address_name

    if not asks_how_addressed(request):
        return ""
    name = address_name(soul_text) or next(
        (found for m in reversed(list(said)) if not asks_how_addressed(m) and (found := address_name(m))), ""
    )
    if not name:
        return ""
    return f"我叫你{name}。" if words.written_in_chinese(request) else f"I call you {name}."


def checked_call(
    model: Model,
    convo: list[Message],
    *,
    request: str,
    done: list[Any],
    tools: list[ToolSpec] | None,
    on_text: Callable[[str], None] | None = None,
    known: list[str] | None = None,
    today: date | None = None,
    **kwargs: Any,
) -> tuple[Response, dict[str, str]]:
    """``call_model`` for a chat round, checked. Returns the response and what to
    store with it: ``{"failed": reason}`` for an honest line after failed
    generations, ``{"from_code": reason}`` for a reply kept wrote without the
    model, else ``{}``. The history leaves both kinds out (agent/context.py).

    Acting calls are dropped when the person's message is no request to act on someone or
    something (``memory.text.acts.asks_to_act``: "remind me to…" asks for none).
    For a model whose choices say so (the embedded one), a round whose calls
    all acted ends the turn with kept's own sentences about their results. A
    text reply that fails ``check`` is generated again once with the model's
    sampling changed (``model.resample()`` where it has one); if that fails
    too, the response carries an honest line and the reason is set, so the
    loop stores it marked failed. The text reaches ``on_text`` only after it
    passed: a withdrawn claim is never on the screen.

    ``known``: the texts memory put in the prompt. For a model whose choices
    say so, a statement, or a request only to be reminded or held to something, is
    acknowledged in code (``acknowledgement``), a
    question nothing known can answer is answered "I don't know" in code
    (``unknown_to_kept``), and a request to act is shown alone
    (``request_alone``).
    """
    from agent.models.choices import for_model

    choices = for_model(model)
    if (
        choices.statements_in_code
        and not done
        and not is_question(request)
        and not asks_to_act(request)
        and not asks_for_help(request)
    ):
        from memory import soul

        # A request for no act is to be reminded, which no tool does; one only about how to treat the
        # person ("call me Vaso, numbered lists please") is SOUL's, and no reminder was asked.
        treatment = soul.only_treatment(request)
        reminder = is_request(request) and not treatment
        why = "a request only to be reminded" if reminder else "a wish about treatment" if treatment else "a statement"
        return _in_code(model, acknowledgement(request, today or date.today(), reminder), why, on_text)
    if choices.answers_from_store and not done:
        db = kwargs.get("db")
        if db is not None and asks_how_addressed(request):
            from memory import soul

            named = address_answer(request, soul.render(db), _said_before(db, request))
            if named:
                return _in_code(model, named, "the name SOUL's naming wish gives", on_text)
        promised = promised_answer(request, _person_said(db, convo, request))
        if promised:
            return _in_code(model, promised, "the person's own sentence of the promise", on_text)
    seen: list[str] | None = None  # what kept holds, when the turn read it: the fallback below judges by it
    # How kept addresses the person is SOUL's to answer, in whatever words it holds it.
    if choices.dont_know_in_code and not done and known is not None and not asks_how_addressed(request):
        # The chat's messages, less the question itself (a person's message before it may be merged into it).
        history = [m.content for m in convo if m.role in ("user", "assistant", "tool") and m.content]
        if history and history[-1].endswith(request):
            history[-1] = history[-1][: -len(request)]
        # The person's earlier messages beyond the few the embedded model is shown: what kept
        # holds is all it was told, not the recent window (an introduction ten turns back).
        history += [t for t in _said_before(kwargs.get("db"), request) if t not in history]
        if unknown_to_kept(request, known + history, tools):
            return _in_code(model, dont_know(request), "nothing kept holds answers it", on_text)
        asked = undated_unless_listed(request, tools)
        if nothing_bears_on(asked, known + history):
            return _in_code(model, dont_know(request), "nothing kept holds speaks of what it asks", on_text)
        seen = known + history + held_by_tools(kwargs.get("db"))
        if no_value_of_kind(asked, seen, tools):
            return _in_code(model, dont_know(request), "nothing kept holds has a value of the kind asked", on_text)
    if choices.answers_from_store and not done:
        # After the "I don't know" tests: a value never said is not answered from a line near it.
        told = number_answer(request, _person_said(kwargs.get("db"), convo, request))
        if told:
            return _in_code(model, told, "the person's latest sentence holding the number asked", on_text)
    earlier, said = _earlier(convo, request)
    if choices.check_parrot and kwargs.get("db") is not None:
        # A parrot is a copy of any earlier reply (issue 18), not only of those still in the prompt:
        # the embedded model sees few recent messages, and a `kept ask` or a new chat sees none of
        # the last one's, yet its replies were copied from there.
        from memory import messages

        earlier += [r for r in messages.generated_replies(kwargs["db"]) if r not in earlier]
    if choices.request_alone and is_request(request):
        convo = request_alone(convo, request)
    elif choices.request_alone:
        convo = request_last(convo, request)
    if choices.confirm_in_code and convo and convo[-1].role == "tool":
        last_round = done[-_trailing_tools(convo) :]
        if all(acts(c.name) for c in last_round):
            # Stored as kept's own line: shown to the model, it was copied as a reply to later questions.
            return _in_code(model, confirmations(last_round), "a confirmation from the tool results", on_text)
    # An acting call needs a request to act on someone or something: "remind me to call the bank"
    # asks kept to hold the person to their own doing, which no tool does (memory.text.acts).
    request_to_act = not choices.calls_need_request or asks_to_act(request)
    hold = choices.hold_reply
    shown = None if hold else on_text
    failed = ""
    response = None
    for attempt in (1, 2):
        response = call_model(model, convo, tools=tools, on_text=shown, **kwargs)
        if response.tool_calls:
            kept_calls = [c for c in response.tool_calls if request_to_act or not acts(c.name)]
            if kept_calls:
                response.tool_calls = kept_calls
                if hold and response.text.strip() and on_text:
                    on_text(response.text)
                return response, {}
            # Only acting calls, on a statement or a question: answer in words instead.
            response = call_model(model, convo, tools=None, on_text=shown, **kwargs)
        evidence = (
            "\n".join([kwargs.get("system", "")] + [m.content for m in convo if m.content])
            if choices.check_parrot
            else None
        )
        verdict = check(
            response.text,
            request=request,
            earlier=earlier,
            done=done,
            parrot=choices.check_parrot,
            shown=evidence,
            memory=known or (),
            said=said,
        )
        if verdict.ok:
            if hold and response.text and on_text:
                on_text(response.text)
            return response, {}
        failed = verdict.reason
        if not hold or attempt == 2:
            break  # on the screen already (say so below it), or rerun once already
        # Only before the rerun: a resample left set would take the tools from the next turn.
        resample = getattr(model, "resample", None) or getattr(getattr(model, "model", None), "resample", None)
        if resample is not None:
            resample()
    honest = (
        HONEST_NO_ACTION
        if failed.startswith("invented")
        else dont_know(request)
        if failed.startswith("ungrounded") or (seen is not None and asked_thing_unheld(request, seen))
        else HONEST_NO_ANSWER
    )
    if on_text:
        on_text(honest if hold else f"\n({honest})")
    assert response is not None  # the loop ran at least once
    return Response(honest, [], response.usage, response.model, "end_turn"), {"failed": failed}


def _in_code(
    model: Model, text: str, why: str, on_text: Callable[[str], None] | None
) -> tuple[Response, dict[str, str]]:
    if on_text:
        on_text(text)
    return Response(text, [], Usage(), getattr(model, "name", ""), "end_turn"), {"from_code": why}


def _trailing_tools(convo: list[Message]) -> int:
    n = 0
    for m in reversed(convo):
        if m.role != "tool":
            break
        n += 1
    return n
