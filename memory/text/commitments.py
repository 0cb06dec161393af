"""Reading commitments: which clauses of a message may commit someone to act.

A recall-first pre-filter for the memory model, which confirms or drops each
candidate: a commitment missed here is never seen, a false alarm costs a few
tokens. So the reading is by clause structure, not by a list of phrasings:

- a clause commits when its subject is the speaker (said, or left out as
  people do in chat: "will send it tonight", "明早把纪要发群里") and its verb
  looks ahead: a future or modal ("I'll", "gonna", "need to", "得", "会"),
  ownership ("X is on me", "leave it with me", "我负责"), an agreement made
  ("agreed to", "told Hannah I'd", "答应了"), a debt ("I still owe",
  "还没回"), a reminder asked for, an action stated with a time still to come
  ("tomorrow I'm calling the bank", "周五前把合同给你"), or an
  acknowledgement carrying the task ("yep, on it", "收到，马上处理");
- the same shapes with another subject ("Sam said he'll send the quote",
  "客户答应下周一前付尾款") are a third party's promise, kept apart;
- not candidates: questions and requests (``memory.text.acts``), hedges and
  wishes, what already happened (a past time, "已经"), states ("I'll be in
  Berlin") and orders of food or items to a server ("I'll have the salmon",
  "来两杯冰美式").

The closed-class words below (modals, pronouns, prepositions, particles) are
the grammar the reading rests on, not phrasings of particular promises.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from memory.text.acts import base_verb, is_question, is_request, sentences
from memory.text.people import lemmas
from memory.text.script import quotes_original, reads_simplified

OWN, THIRD = "own", "third"


@dataclass
class Candidate:
    """A clause that may hold a commitment, as found by ``detect``."""

    who: str  # "I" or "we" for the speaker; a third party's name or pronoun ("Sam", "he", "客户")
    what: str  # the words of the commitment, e.g. "send Priya the timeline doc by Friday"
    span: tuple[int, int]  # character offsets of the sentence in the text
    matched: str  # text[span[0]:span[1]]
    cue: str  # the structure that fired: future, obligation, promised, reminder, ownership, owe, plan, ack
    to_whom: str = ""  # a best guess from the words; the model decides
    due_text: str = ""  # the words naming the due date, if any
    party: str = OWN  # OWN: the speaker's commitment; THIRD: someone else's promise to the speaker


# --- questions and requests ----------------------------------------------------

_CJK = re.compile(r"[\u4e00-\u9fff]")


_ON_THE_SPEAKER = {"reminder", "ownership", "ack", "promised", "owe", "todo"}


def _on_the_speaker(cue: str, sentence: str) -> bool:
    """A sentence shaped like a request still commits the speaker when its structure puts the task on them."""
    if cue in _ON_THE_SPEAKER:
        return True
    if _CJK.search(sentence):
        return False  # "帮我查一下…", "要不要我帮你问问": asked of kept, or offered
    # An English clause with its own first-person subject, or one that dropped it before a future.
    return cue == "future" or bool(re.search(r"\b(?:i|we)\b", _normal(sentence), re.I))


# --- time ----------------------------------------------------------------------

# Near-future words the calendar resolver has no date for ("later", "回头").
_SOON = re.compile(
    r"\b(?:later|soon|asap|right away|first thing|next|eod|eow|end of (?:the )?(?:day|week|month)|by (?:noon|\d)"
    r"|by (?:the |my |our |your |lunch|noon|the weekend|\w+ing\b)"
    # "after standup", "before the call", "until Dana signs": something still to happen first
    r"|(?:before|after|until|till) (?!(?:that|this|all|it|which|what|i|we|you|he|she|they|last|yesterday)\b)\w"
    r"|once\b|tonight|tomorrow)",
    re.I,
)
_ZH_SOON = re.compile(
    r"回头|马上|立刻|立即|待会儿?|等会儿?|一会儿|稍后|晚点|尽快|上午|下午|晚上|早上|中午|\S{1,3}(?:之前|以前|前)(?=[把给发交，,]|$)|之后|以后"
)


def _ref() -> date:
    return date(2026, 6, 10)  # any Wednesday: only whether a time is before or after the day matters


def _when(phrase: str) -> tuple[bool, bool] | None:
    """(ahead, past) for one time phrase, read as the date reader reads a booking's, said at noon on
    ``_ref()``; None when it does not read as one. A time of day alone is its next occurrence ("at
    3pm", "by noon"), a weekday alone the next one ("Wednesday morning" said on a Wednesday), a
    moment counted from now ("in an hour") is ahead; "this morning" is neither."""
    from memory.text import dates

    ref = _ref()
    utc = ZoneInfo("UTC")
    noon = datetime.combine(ref, time(12), tzinfo=utc)
    try:
        got = dates.read(phrase, noon, utc)
    except dates.DateError:  # Ambiguous is one
        return None
    if got.exact is not None:
        return got.exact > noon, got.exact < noon
    if got.day is None:
        return True, False
    if got.day != ref:
        return got.day > ref, got.day < ref
    return got.clock is not None and got.clock > time(12), False


def _times(clause: str) -> tuple[bool, bool]:
    """(mentions a time still to come, mentions a past time)."""
    from memory.text import dates

    ahead = past = False
    ref = _ref()
    read = [_when(clause[s:e]) for s, e in dates.time_phrases(clause, ref)]
    for got in read:
        if got is not None:
            ahead, past = ahead or got[0], past or got[1]
    # A day of the month alone ("on the 12th") is read too: this reading only ever counts as a time
    # to come beside a future, a modal or an arranged action, never by itself.
    for _, _, words, span in dates.find(clause, ref, phrase=True):
        if span.end < ref:
            past = True
        elif span.start > ref or re.search(r"tonight|this (?:afternoon|evening)|今晚", words, re.I):
            ahead = True  # "today" alone is the present ("the wifi is flaky today"), a later part of it is ahead
    if re.search(r"\blast (?:night|week|month|year)\b|\bago\b|\balready\b|\bearlier\b|\bjust now\b", clause, re.I):
        past = True
    # A perfective 了 ("签了合同") reports what happened: a part of the day then is no time still to come.
    done = bool(re.search(r"(?<![为除])了(?!解)", clause))
    past = past or done
    if _SOON.search(clause) or (_ZH_SOON.search(clause) and not done):
        ahead = True
    return ahead, past


# --- English -------------------------------------------------------------------

_CONTRACTIONS = [
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "can not"),
    (r"\bshan't\b", "shall not"),
    (r"n't\b", " not"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"'ve\b", " have"),
    (r"'re\b", " are"),
    (r"\bi'm\b", "i am"),
    (r"\bgonna\b", "going to"),
    (r"\bgotta\b", "got to"),
    (r"\bwanna\b", "want to"),
    # "Mei's going to", "that one's on me": the verb 's, not the possessive
    (r"'s (?=going|on me|on it|mine|with me|covered|handled|all|\w+ing\b)", " is "),
    # chat spellings: "we r", "u r"
    (r"\b(we|you|they|u) r\b", r"\1 are"),
]

_FIRST = {"i", "we"}
# The auxiliaries and modals: a closed class; what follows them is not the present tense of an act.
_AUXILIARIES = (
    "will|shall|would|can|could|may|might|must|should|do|did|does|have|has|had|am|are|was|were|be|need|ought|dare"
)
_NOBODY = {"it", "there", "nobody", "nothing", "none", "everybody", "everyone", "anyone", "anybody"}
_PRONOUN_THIRD = {"he", "she", "they"}
_DISCOURSE = re.compile(
    r"^(?:(?:ok(?:ay)?|yep|yup|yes|yeah|sure(?: thing)?|right|alright|fine|great|cool|np|no problem|no worries|got it"
    r"|will do|on it|sounds good|noted|thanks|and|so|then|also|oh|hey|hi|ah|well|anyway|fyi|tbh|honestly|ok then"
    r"|好的?|收到|行|没问题|嗯|放心)\b[\s,.!:;—-]*)+",
    re.I,
)
# An acknowledgement that by itself takes the task on.
_ACK_TASK = re.compile(
    r"^\s*(?:[\w ]{0,12}[,.!]\s*)?(?:i am |i )?(?:on it|will do|leave it with me|count on me|i got this|got this)\b"
    # "consider it done", "consider the cake handled": the thing, then a participle of what will be true of it
    r"|^\s*(?:[\w ]{0,12}[,.!]\s*)?consider (?!(?:you|yourself|yourselves|me|us)\b)(?:[\w'-]+ ){1,5}?(?:done|\w+ed)\s*[.!]*$",
    re.I,
)
_VAGUE = re.compile(r"\b(?:some ?day|one day|eventually|at some point|sometime|some time)\b", re.I)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|may|probably|possibly|if|unless|whether|not sure|unsure|thinking (?:of|about)"
    r"|wondering|some ?day|one day|eventually|at some point|sometime|some time|would love|wish|hope|when i said)\b",
    re.I,
)
# Modals and what they say, with the word that must precede "would" for it to report an agreement.
_MODAL = re.compile(
    r"\b(?P<m>will|shall|would|am going to|is going to|are going to|going to|need to|needs to|have to|has to"
    r"|have got to|has got to|got to|must|should|ought to|had better|plan to|intend to|am about to)\b",
    re.I,
)
_REPORTING = re.compile(
    r"\b(?:told|tell|said|says|promised|promise|assured|agreed|swore|confirmed|confirms|wrote|writes|texted"
    r"|replied|messaged|emailed)\b[^.]*$",
    re.I,
)
# After a modal: words that make no action (states, deliberation, negation).
_NOT_ACTION = re.compile(
    r"^(?:not|never|think|see|consider|wait|wonder|guess|know|love|like|prefer|rather|hate|miss|lose|fail|say|admit"
    r"|probably|maybe|perhaps|possibly|pass\b|sleep on|try\b|leave it|let it|keep (?:that|it|this) in mind"
    r"|hope|need a|be(?! sure\b| done\b| in your\b| with you\b| on your\b| ready\b| over\b| sent\b| there\b| here\b))\b",
    re.I,
)
_ADVERB = re.compile(
    r"^(?:really|definitely|just|also|still|then|first|totally|absolutely|surely|certainly|def)\s+", re.I
)


def _ongoing(after: str) -> bool:
    """A future progressive acting on something: "(I shall) be sending the results to the board"
    (not "be waiting", "be staying in")."""
    m = re.match(r"be ([a-z]+ing)\b", after, re.I)
    return m is not None and _on_something(after[m.end() :])


# A result reported as promised: "assured us the boiler would be fixed by Monday".
_RESULT = re.compile(r"^be (?:\w+ed|done|sent|back|here|there|ready|at)\b", re.I)
# An order to a server: a consumption verb and a bare object, nothing owed to anyone, no time.
_ORDER_VERB = re.compile(
    r"^(?:have|take|get|go with|go for|order|grab)\s+(?:a|an|the|one|two|three|\d+|some|my)\b", re.I
)
_NOT_AN_ORDER = re.compile(
    r"\b(?:to|for|from|off|by|back|over|up|out|about|care|before|after|until|done|ready|covered|sorted|copied|fixed"
    r"|sent|signed|[a-z]+ed|you|your|him|her|them)\b",
    re.I,
)
_OWNERSHIP = re.compile(
    r"\b(?:(?:is|are) (?:all )?(?:on me|mine|with me|my job|my responsibility)|leave (?:it|that|this|.+?) (?:with|to) me"
    r"|on the hook for|responsible for|in charge of|count me in|(?:got|have) .{1,40} covered"
    r"|my (?:job|task|responsibility|plan)\b.{0,30}\bis to|i will own|i own\b)",
    re.I,
)
_AGREED = re.compile(
    r"\b(?:(?:agreed|committed|volunteered|signed up|offered|said yes)\s+(?:to|that|for)|(?:promised|promise)(?!\s+(?:me|us)\b))\b",
    re.I,
)
_OWE = re.compile(r"\b(?:owe|owes)\b|\bstill (?:have not|not|need to|got to|have to)\b|\byet to\b", re.I)
_REMINDER = re.compile(
    r"\b(?:remind me|ping me|nudge me|do not let me forget|make sure (?:that )?(?:i|we)\b"
    r"|set (?:a |me a )?reminder|note to self)\b",
    re.I,
)
_HEADER = re.compile(r"^\s*(?P<head>[^:]{2,40}):\s*(?P<rest>[a-z]+\b.*)$", re.I)
_TODO_HEAD = re.compile(r"\b(?:note to self|to-?do|my list|on my list|reminder|plan|for (?:myself|me))\b", re.I)
_PROGRESSIVE = re.compile(r"^(?:(?P<subj>i|we) (?:am|are) )?(?P<v>[a-z]+ing)\b", re.I)
# A result offered: "you'll have the draft from me", "expect the summary from me".
_YOU_RESULT = re.compile(
    r"^(?:you will (?:have|get|receive|see)\b.*\b(?:from me|my)\b|(?:expect|look out for|watch for)\b.*\bfrom me\b)",
    re.I,
)
# "you'll have it by noon", "you will get the figures tomorrow": the thing itself, with a time still
# to come (not "you'll have a great time", "you'll get used to it").
_YOU_GET = re.compile(
    r"^you will (?:have|get|receive|see) (?:it|them|that|this|these|those|(?:the|my|our) \w+)\b(?! used\b)", re.I
)
_LET_ME = re.compile(
    r"\blet me (?!know\b|think\b|see\b|guess\b|be\b|say\b|ask you\b|explain\b|get this straight\b)", re.I
)


def _normal(text: str) -> str:
    s = text.replace("’", "'").replace("‘", "'")
    for pattern, repl in _CONTRACTIONS:
        s = re.sub(pattern, repl, s, flags=re.I)
    # "ill ring the vet": I'll without its apostrophe, when a verb's base form follows (not "ill with flu")
    s = re.sub(r"\bill (?=([a-z]+)\b)", lambda m: "i will " if base_verb(m.group(1)) else m.group(0), s, flags=re.I)
    return re.sub(r"\s+", " ", s).strip()


# Where a sentence's clauses meet; a comma or colon between digits is inside a number ("$86,000", "1:1").
CLAUSE_BREAK = r"(?<!\d)[,:]|[,:](?!\d)|[，：—–]|\s-\s|\band then\b"


@quotes_original
def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence: split at commas, colons and dashes (English and Chinese)."""
    return [c.strip() for c in re.split(CLAUSE_BREAK, sentence) if c.strip()]


_AUXILIARY = re.compile(
    r"(?:'s|\s+(?:have|has|had|am|is|are|was|were|do|does|did|already|now|officially|basically))+\s*$", re.I
)


def _party(subject: str) -> tuple[str, str] | None:
    """(party, who) from the words before a modal; None when the subject is "you"."""
    words = _DISCOURSE.sub("", subject.strip()).strip(" ,.!")
    words = re.sub(
        r"\b(?:really|definitely|just|also|still|then|probably|totally|first)\b", "", words, flags=re.I
    ).strip()
    # The auxiliaries and the copula between a subject and what it does ("I have agreed", "we are on
    # the hook", "Kofi's responsible"): the subject is the word before them.
    words = _AUXILIARY.sub("", words).strip()
    if not words:
        return OWN, "I"
    last = words.split()[-1].lower()
    if last in _FIRST:
        return OWN, "we" if last == "we" else "I"
    if last == "you":
        return None
    if last in _PRONOUN_THIRD:
        return THIRD, last
    if last in _NOBODY:
        return None  # "it's going to rain", "nobody's going to read it": nobody's promise
    return THIRD, words


def _en(sentence: str) -> tuple[str, str, str, str] | None:
    """(cue, party, who, what) for the first committing clause of an English sentence."""
    s = _normal(sentence)
    m = _REMINDER.search(s)
    if m and not re.search(r"\bremind me (?:what|who|when|where|how|which|why|whether)\b", s, re.I):
        rest = re.sub(r"^\s*:?\s*(?:to|about|that|of)?\s*", "", s[m.end() :])
        return "reminder", OWN, "I", rest or s
    if _ACK_TASK.search(s):
        return "ack", OWN, "I", s
    header = _HEADER.match(s)
    if header:
        ahead, _ = _times(header.group("head"))
        if ahead or _TODO_HEAD.search(header.group("head")):
            return "todo", OWN, "I", header.group("rest")
    ack = bool(_DISCOURSE.match(s))
    if _VAGUE.search(s):
        return None  # "we need to talk at some point": an intention, not a commitment
    for i, clause in enumerate(clauses(s)):
        if i and _HEDGE.search(" ".join(clauses(s)[:i])):
            break  # "If the client agrees, I'll send it": conditional on someone else
        found = _en_clause(clause, ack)
        if found:
            return found
    return None


def _en_clause(clause: str, ack: bool) -> tuple[str, str, str, str] | None:
    core = _DISCOURSE.sub("", clause).strip()
    if not core:
        return None
    ahead, past = _times(core)
    m = _OWNERSHIP.search(core)
    if m and not _HEDGE.search(core[: m.start()]):
        # "that one is on me", "leave it with me": the speaker owns it, whatever the subject; "Kofi's
        # on the hook for…", "she is in charge of…": the subject does.
        mine = re.search(r"\b(?:i|me|my|mine)\b", m.group(0), re.I)
        party = (OWN, "I") if mine else (_party(core[: m.start()]) or (OWN, "I"))
        return "ownership", party[0], party[1], core
    m = _AGREED.search(core)
    if m and not _HEDGE.search(core[: m.start()]):
        agreed = _party(core[: m.start()]) or (OWN, "I")
        return "promised", agreed[0], agreed[1], core[m.end() :].strip()
    debt = _OWE.search(core)
    owed = _party(core[: debt.start()]) if debt else None
    if owed:  # "I still owe Dev a reply", "still haven't sent Olga the NDA"; "Sam still owes me the quote"
        return "owe", owed[0], owed[1], core
    let = _LET_ME.search(core)
    if let and not _HEDGE.search(core):
        return "let_me", OWN, "I", core[let.end() :]
    if _YOU_RESULT.match(core) or (ahead and not past and _YOU_GET.match(core)):
        return "future", OWN, "I", core
    for m in _MODAL.finditer(core):
        before, after = core[: m.start()], _ADVERB.sub("", core[m.end() :].strip())
        if _HEDGE.search(before) or not after or re.match(r"(?:you|i|we|he|she|they)\b", after, re.I):
            continue  # a hedge, or the subject after its modal ("will you send it?"): asked, not committed
        modal = m.group("m").lower()
        if modal == "would" and not _REPORTING.search(before):
            continue  # "I'd love to", "I'd be late": a wish or a state, unless an agreement is reported
        if "going" in modal and re.search(r"\b(?:was|were)\s*$", before, re.I):
            continue  # "I was going to call them but…": an intention in the past
        if re.search(r"\b(?:if|unless)\b", after, re.I):
            continue  # "…will spoil if the tank warms up": on a condition
        found = _party(before)
        reported = _REPORTING.search(before)
        if reported and (found is None and _RESULT.match(after) or found and found[0] == THIRD):
            # "the mechanic assured me the car would be ready", "Sam said he'd send it", "she said it
            # would be done": the one who said so made the promise, whatever its clause is about
            found = _party(before[: reported.start()]) or found
        if found is None:
            continue
        party = found
        if party[0] == THIRD and re.match(r"^be (?:in your|with you|on your|over)\b", after, re.I):
            party = (OWN, "I")  # "the revised budget will be in your inbox": a result offered
        elif _NOT_ACTION.match(after) and not (reported and _RESULT.match(after)) and not _ongoing(after):
            continue
        order = _ORDER_VERB.match(after)
        if order and not _NOT_AN_ORDER.search(after[order.end() :]) and not ahead:
            continue  # "I'll have the salmon with a side salad": an order to a server
        if party[0] == THIRD and len(party[1].split()) > 4:
            continue
        cue = "obligation" if re.search(r"to$|must|should|better", modal) and "going" not in modal else "future"
        return cue, party[0], party[1], after
    m = _PROGRESSIVE.match(core)
    # "patching the staging box now": an action under way as it is said takes the task on, as an
    # acknowledgement does
    under_way = re.search(r"\bnow\s*[.!]*$", core, re.I)
    trip = m and m.group("subj") and not _on_something(core[m.end() :])
    if m and (ahead or ack or under_way) and not past and not _HEDGE.search(core) and not trip:
        return "ack" if ack else "plan", OWN, "I", core
    # "tomorrow morning I'm calling the bank", "Ana's taking the 6am feed tomorrow": a subject, an
    # action arranged on something, a time still to come.
    m = re.search(r"\b(?:am|is|are) ([a-z]+ing)\b", core, re.I)
    arranger = _party(core[: m.start()]) if m else None
    if (
        m
        and arranger
        and ahead
        and not past
        and not _HEDGE.search(core[: m.start()])
        and _on_something(core[m.end() :])
    ):
        return "plan", arranger[0], arranger[1], core[m.start() :] if arranger[0] == OWN else core
    # "tomorrow I send you the rates": the present for an arranged act, with a time to come
    m = re.search(r"\b(?:i|we) (?!(?:" + _AUXILIARIES + r")\b)([a-z]+)\b", core, re.I)
    arranged = m and ahead and not past and base_verb(m.group(1)) and not _NOT_ACTION.match(m.group(1))
    if m and arranged and not _HEDGE.search(core) and _on_something(core[m.end() :]):
        return "plan", OWN, "we" if core[m.start()].lower() == "w" else "I", core[m.start() :]
    if ack and ahead and not past and re.search(r"\b(?:goes|go|gets|going|will)\b", core, re.I):
        return "ack", OWN, "I", core  # "yep, the report goes to finance by Friday": the acknowledgement takes it on
    return None


# Where a verb of motion or of staying goes ("flying to Perth", "heading out at 5", "working from
# home"): no thing is acted on, so an arranged trip or stay is the speaker's own plan, not a task.
_PLACE = {"to", "at", "in", "into", "from", "home", "abroad", "away", "around", "there", "here", "through", "across"}
_PARTICLE = {"up", "out", "off", "over", "back", "down"}


def _on_something(rest: str) -> bool:
    """Whether what follows an -ing verb acts on something ("calling the bank", "picking up the
    kids"), as against a trip or a stay ("flying to Perth", "heading out at 5")."""
    words = re.findall(r"[a-z']+", rest.lower())
    if words and words[0] in _PARTICLE:
        words = words[1:]
    return bool(words) and words[0] not in _PLACE


# --- Chinese -------------------------------------------------------------------

_ZH_REMINDER = re.compile(r"提醒我|别让我忘了?|帮我记着|记得提醒|记得(?:叫|让|喊)我")
_ZH_HEDGE = re.compile(
    r"我想|得说|要说|得承认|也许|可能|或许|大概|要是|如果|假如|的话|考虑|想想|希望|说不定|不确定|看天气|看情况|改天|有空的时候|哪天"
    r"|本来|原本"  # a plan that was, not one that is
)
_ZH_PAST = re.compile(
    r"已经|刚才|刚刚|昨天|昨晚|前天|上周|上个月|上星期|去年|过了|完了[。！!]*$|好了[。！!]*$|了[。！!]*$"
)
_ZH_PROMISE = re.compile(r"答应|承诺|保证")
_ZH_OWN = re.compile(
    r"我(?:们)?.{0,4}就(?=[^是在有])|我(?:们)?(?:来|去|负责|会|要|得|必须|需要|将|一定|马上|尽快|这就|还欠|欠|把)|交给我|包在我身上|我还没|还没"
)
_ZH_BARE = re.compile(r"^(?:得|必须|要|会|负责|还欠|欠)")
_ZH_ACTION = re.compile(r"把|给|发|交|打|做|写|改|修|办|去|回|弄|搞|整理|准备|确认|处理|沟通|跟进|安排|带|帮|出|提交")


def _zh_action(clause: str) -> bool:
    """An action in a Chinese clause; an English verb counts in a mixed one ("我明天send你") when 我 is its subject."""
    own = _ZH_OBJECT_ME.sub("", clause)  # "给我", "叫我": the speaker as object is no subject
    return bool(_ZH_ACTION.search(own) or re.search(r"[A-Za-z]{2,}", own) and "我" in own)


_ZH_ORDER = re.compile(r"(?:^|我)?(?:来|要|点)(?:一|两|二|三|四|五|几|\d+)(?:份|杯|碗|瓶|盘|碟|串|听|罐|打|客)")
_ZH_OBJECT_ME = re.compile(r"[给让跟和帮对向被叫请告诉]我")
# The verbs that report a promise (saying, committing): a closed class; 话 is Cantonese "says".
_ZH_REPORTING = ("说", "答应", "承诺", "保证", "表示", "许诺", "说好", "讲好", "同意", "话")
_ZH_COMMITTING = ("答应", "承诺", "保证", "许诺", "说好", "讲好", "同意")
_ZH_FIRST = ("我", "我们", "咱", "咱们")
_ZH_THIRD = ("他", "她", "他们", "她们")
# jieba's tags of what stands before a verb without being its subject: times, adverbs, locatives,
# conjunctions, interjections, particles, numerals and measures, punctuation.
_ZH_NOT_SUBJECT = ("t", "d", "f", "c", "e", "y", "u", "m", "q", "x", "l")


def _zh_words(text: str) -> list[tuple[int, str, str]]:
    """(offset, word, tag) for each word of a Chinese ``text``, by jieba's tagger."""
    from memory.text.people import tagged

    out, at = [], 0
    for word, tag in tagged(text):
        # a pronoun the tagger ran together with the modal after it (its dictionary has 我会, "our society")
        split = re.fullmatch(r"(我们|我|你们|你|他们|她们|他|她)(会|将|要)", word)
        if split:
            out += [(at, split.group(1), "r"), (at + len(split.group(1)), split.group(2), "v")]
        else:
            out.append((at, word, tag))
        at += len(word)
    return out


def _zh_may_be_subject(word: str, tag: str) -> bool:
    from memory.text import dates

    if tag == "eng":
        return not dates.mentions_time(word)  # "tomorrow我会…": a time, in English
    if tag == "l" or (tag == "t" and word.startswith(("老", "小", "阿"))):
        # A set phrase is a time (下周一) or a subject (翻译社); 老/小/阿 and a surname is a familiar
        # name the tagger may read as a time (老周: 周 "week"). The date reader tells them apart.
        return not dates.mentions_time(word)
    return not tag.startswith(_ZH_NOT_SUBJECT)


def _zh_subject(before: str) -> tuple[str, str]:
    """(party, who) of a Chinese verb from what stands before it in its clause: the speaker when
    nothing does but times, adverbs and acknowledgements (the subject dropped, as chat does) or
    我/我们 alone; a third party when a name, a noun or a pronoun does, "my X" too (我妈, 我们经理:
    我 and then a noun is the noun's owner, not the subject)."""
    clause = re.split(r"[，,。；;!！?？]", before)[-1]
    clause = re.sub(
        r"^\s*(?:(?:ok|okay|k|yes|yep|yeah|sure)\b\s*)?(?:好的?|收到|行|没问题|嗯)?\s*", "", clause, flags=re.I
    )
    words = [(w, t) for _, w, t in _zh_words(clause) if w.strip() and _zh_may_be_subject(w, t)]
    if not words or all(w in _ZH_FIRST for w, _ in words):
        return OWN, "we" if any(w in ("我们", "咱们") for w, _ in words) else "I"
    return THIRD, "".join(w for w, _ in words)


# A promise between third parties (小王答应他女朋友…, "he'd help his neighbour"): its recipient is
# someone of theirs, a third-person owner before a noun.
_ZH_TO_WHOM = ("了", "过", "帮", "给", "替", "为", "跟", "和", "对", "的")


def _zh_their_recipient(after: str) -> bool:
    """Whether what follows a verb of promising opens with someone of a third party's (他女朋友, 给她的客户)."""
    words = [(w, t) for _, w, t in _zh_words(after) if w.strip() and w not in _ZH_TO_WHOM]
    return len(words) > 1 and words[0][0] in _ZH_THIRD and words[1][1].startswith("n")


_EN_THEIR_RECIPIENT = re.compile(
    r"\b(?:promised|promises|promise|told|tells|assured|help|helps|helping)\s+(?:his|her|their|its)\s+\w+", re.I
)


_BETWEEN_OTHERS = ("", "", "", "")


def _zh_reported(s: str) -> tuple[str, str, str, str] | None:
    """A sentence reporting someone's promise (客户答应下周一前付尾款, 我妈说周末帮我们带孩子) or the
    speaker's own (我答应了小陈帮她改简历): (cue, party, who, what); ``_BETWEEN_OTHERS`` for a promise
    between third parties, which concerns nobody on the speaker's side."""
    for at, word, tag in _zh_words(s):
        if word not in _ZH_COMMITTING and not (word in _ZH_REPORTING and tag.startswith(("v", "n"))):
            continue  # 说 and 话 report only as verbs (the tagger's n for Cantonese 话); 同意 is tagged an adverb too
        party, who = _zh_subject(s[:at])
        after = s[at + len(word) :]
        if party == OWN:
            if word in _ZH_COMMITTING and not re.search(r"已经|完了|好了", after):
                return "promised", OWN, who, after  # an agreement made commits, said in the perfective too
            return None
        if _zh_their_recipient(after):
            return _BETWEEN_OTHERS
        return "promised", THIRD, who, after
    return None


def _zh(sentence: str) -> tuple[str, str, str, str] | None:
    s = sentence.strip()
    reminder = _ZH_REMINDER.search(s)
    if reminder:
        return "reminder", OWN, "I", s[reminder.end() :] or s
    if _ZH_HEDGE.search(s) or _ZH_ORDER.search(s):
        return None
    ahead, past = _times(s)
    reported = _zh_reported(s)
    if reported is not None:
        return None if reported == _BETWEEN_OTHERS else reported
    m = re.search(r"(?P<subj>他们|她们|他|她)(?:会|要|将|明天|下周|把)", s)
    if m:
        return "future", THIRD, m.group("subj"), s[m.end() :]
    if past and not ahead or re.search(r"了[。！!]*$", s) and not re.search(r"就|马上|快", s):
        return None
    for at, word, tag in _zh_words(s):
        # The modal as a word of its own (not 会 in 机会, 开会), or closing a name the tagger ran into it (小李会).
        if word in ("会", "将") or (tag == "nr" and len(word) > 2 and word.endswith(("会", "将"))):
            at += len(word) - 1
            party, who = _zh_subject(s[:at])
            if party == THIRD:
                return "future", THIRD, who, s[at + 1 :]
            if ahead and _zh_action(s[at:]) and not _zh_negated(s[at:]):
                return "future", OWN, who, s  # 我明天会把报价单寄给你: the future with a time to come
            break
    promised = _ZH_PROMISE.search(s)
    if promised:
        return "promised", OWN, "we" if "我们" in s[: promised.start()] else "I", s[promised.end() :]
    if re.search(r"还没|还欠", s):
        return "owe", OWN, "I", s
    if past and not ahead:
        return None
    m = _ZH_OWN.search(_ZH_OBJECT_ME.sub("", s))
    if m and not past:
        return "future", OWN, "we" if "我们" in m.group(0) else "I", s
    clause = re.sub(r"^(?:[A-Za-z]+\s*)?(?:好的?|收到|行|没问题|嗯|ok|OK|okay)?[，,\s]*", "", s)
    if _ZH_BARE.match(clause) and _zh_action(clause):
        return "obligation", OWN, "I", clause
    for clause in clauses(s):
        # A time still to come and then an action, in one clause: "周五前把合同草稿给你", "下午我给供应商打个电话";
        # a time and a state is no commitment ("我下周在柏林", "下午很安静"); the clause's own tense
        # counts ("这个bug我认领了，明天修").
        rest = _strip_times(clause)
        ahead_here, past_here = _times(clause)
        if (
            ahead_here
            and not past_here
            and _zh_action(clause)
            and not rest.startswith(("在", "是", "有"))
            and not _zh_negated(clause)
        ):
            return "plan", OWN, "I", s
    return None


def _zh_negated(clause: str) -> bool:
    """Whether a Chinese clause negates its verb (我今晚不去, 还没定, 别等我): 不, 没, 别 as words of
    their own, not in 没问题 ("no problem") or 不好意思 ("sorry")."""
    words = [w for _, w, _ in _zh_words(clause)]
    return any(
        w in ("不", "没", "没有", "别", "甭", "不会", "不能", "不用")
        and (i + 1 >= len(words) or words[i + 1] != "问题")
        for i, w in enumerate(words)
    )


def _strip_times(s: str) -> str:
    from memory.text import dates

    out = s
    for start, end, _, _ in reversed(dates.find(s, _ref())):
        out = out[:start] + out[end:]
    return _ZH_SOON.sub("", out).lstrip("我们， ,")


# --- the reading ---------------------------------------------------------------


@quotes_original
def detect(text: str) -> list[Candidate]:
    """Clauses of ``text`` that may commit the speaker, or report someone's promise to them.

    High recall by design: the memory model confirms each candidate.
    """
    found: list[Candidate] = []
    for start, end in sentences(text):
        sentence = text[start:end]
        got = _read(sentence)
        if got is None:
            continue
        cue, party, who, what = got
        what = tidy(what)
        if not what:
            continue
        found.append(Candidate(who, what, (start, end), sentence, cue, guess_to_whom(what), due_words(sentence), party))
    return found


# A line of a chat or a message pasted with its writer ("Priya: np, I'll cover Sat", "me: sure,
# sending in 5", "Mechanic texted: 'ready by noon'"): "me", a name of one to three capitalised
# words, or anyone with a verb of writing, then a colon.
_SPEAKER = re.compile(
    r"^\s*(?:(?P<me>me|i|我)|(?P<name>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2})"
    r"|(?P<who>[A-Z][\w.'-]*(?: [\w.'-]+){0,2}?) (?:just )?(?:texted|wrote|replied|messaged|emailed|said|says|writes))"
    r"\s*[:：]\s*['\"“‘]?(?P<rest>.+?)['\"”’]?\s*$"
)


def _writer(label: re.Match[str]) -> str:
    """Who wrote a labelled line: "me", a name (a capitalised word the lexicon does not know: not
    "Update:", "Important:"), or whoever a verb of writing follows; "" for none."""
    if label.group("me"):
        return "me"
    if label.group("who"):
        return label.group("who")
    name = label.group("name")
    return name if any(not lemmas(w.lower()) for w in name.split()) else ""


# A memo's heading before a colon, no writer: "Re:", "FYI:", "TODO:" (abbreviations the lexicon lacks).
_MEMO = re.compile(r"^(?:re|fwd?|fyi|ps|nb|btw|cc|eta|asap|todo|to-?do|tl;?dr)$", re.I)
# A task-list item: "- [ ] send Fatima the schedule", "☐ book the hall".
_TASK_ITEM = re.compile(r"^\s*(?:[-*•]\s*)?(?:\[ \]|☐)\s*(?P<rest>\S.*)$")


def _read(sentence: str) -> tuple[str, str, str, str] | None:
    """(cue, party, who, what) for one sentence, or None."""
    item = _TASK_ITEM.match(sentence)
    if item:
        return "todo", OWN, "I", item.group("rest")
    label = _SPEAKER.match(sentence)
    writer = _writer(label) if label else ""
    if label and writer and not _MEMO.match(writer):
        got = _read_said(label.group("rest"))
        if got is None or writer == "me":
            return got
        cue, party, who, what = got
        # the writer's own commitment is theirs, a third party's to them; "it will be ready" said by them is theirs
        return cue, THIRD, writer if party == OWN else who, what
    return _read_said(sentence)


def _read_said(sentence: str) -> tuple[str, str, str, str] | None:
    """(cue, party, who, what) for a sentence as its writer said it, or None."""
    # "(Can you) remind me to…" asks for a reminder, a commitment of the person's; "did you remind me…?" asks about one.
    reminder = (_REMINDER.search(_normal(sentence)) or _ZH_REMINDER.search(sentence)) and not is_question(sentence)
    if not reminder and is_question(sentence):
        return None
    got = _zh(sentence) if _CJK.search(sentence) else None
    if got is None:
        got = _en(sentence)
    if got is None:
        return None
    cue, party, who, what = got
    if party == THIRD and _EN_THEIR_RECIPIENT.search(_normal(sentence)):
        return None  # "Jonas promised his team…": between other people, nothing owed to the speaker's side
    # A request by its shape (memory.text.acts) asks kept to act ("帮我查一下…", "will you send…"),
    # unless the task is put on the speaker: "leave it with me", "remind me to…", "expect it from me",
    # or a statement that dropped its subject ("going to tidy the wiki", "owe Tariq 40 quid").
    if is_request(sentence) and not _on_the_speaker(cue, sentence):
        # A request in one clause and a commitment in another ("我明天会把报价单寄给你，请留意邮箱"):
        # the clause that is no request is read alone.
        for clause in clauses(sentence):
            if clause != sentence and not is_request(clause) and not is_question(clause):
                alone = _read_said(clause)
                if alone is not None:
                    return alone
        return None
    return got


@quotes_original
def own(text: str) -> list[Candidate]:
    """The speaker's own commitments in ``text`` (third parties' promises left out)."""
    return [c for c in detect(text) if c.party == OWN]


# --- a question about a commitment, and a sentence that says one --------------------------------
#
# The verbs of committing are a closed class in both languages (promise, agree, commit; 答应, 承诺,
# 保证, 许诺, 说好, 讲好, and the dictionary's other verbs glossed "to promise"). A question asks what
# the person committed to when the person is the subject of one, or of a verb of saying or owing ("what did I promise Rosalind?", "what was it I said I'd do
# for Rosalind?", "I owe Ravi what?", 我答应孙丽娟什么事来着, 我之前答应罗会长啥事); a sentence of
# theirs says a commitment when it has one of these verbs, a first-person future ("I'll", "we're going
# to") or a commitment ``detect`` reads. reply_check answers the question from such sentences.
_COMMITTING_EN = r"promised|agreed|committed"
_COMMITTING_ZH = ("答应", "承诺", "保证", "许诺")
_COMMITTING_ZH_SAID = "说好|讲好"  # agreed between two ("we said it was settled"), no verb of promising


@functools.cache
def _promising_zh() -> str:
    """The Chinese verbs of promising: the class above and every word of two characters CC-CEDICT
    glosses "to promise" (应承, 允诺, 应许…, as Cantonese and written Mandarin say it), so the class is
    the dictionary's, not only the words our data used."""
    from memory.text import bilingual

    found = {
        word
        for word, senses in bilingual.definitions().items()
        if len(word) == 2 and any(sense.strip().lower() == "to promise" for sense in senses)
    }
    return "|".join(sorted(found | set(_COMMITTING_ZH)))


def _committing_zh() -> str:
    return _promising_zh() + "|" + _COMMITTING_ZH_SAID


@functools.cache
def _asks_committed() -> re.Pattern[str]:
    return re.compile(
        # the base forms too, after "did" ("what did I say I'd do for her?")
        rf"\b(?:i|we)\s+(?:\w+\s+){{0,2}}?(?:promis\w*|agree[d]?|commit(?:ted)?|offer(?:ed)?|owe|said|say|told|tell)\b"
        rf"|(?:我|我们)(?:之前|上次|刚才|前面|那天)?(?:{_committing_zh()})",
        re.I,
    )


# Chinese: the one committed to stands between the verb and the question word (答应罗会长啥事).
@functools.cache
def _zh_committed_to() -> re.Pattern[str]:
    return re.compile(rf"(?:{_promising_zh()})[了过]?\s*(?P<who>[^\s，,。？?了过]{{1,8}}?)\s*(?:啥|什么|哪)")


@functools.cache
def _says_committed() -> re.Pattern[str]:
    return re.compile(rf"\b(?:{_COMMITTING_EN})\b|{_committing_zh()}", re.I)


_FIRST_FUTURE = re.compile(r"\b(?:i|we) (?:will|would|am going to|are going to)\b", re.I)


@reads_simplified
def asks_what_was_committed(question: str) -> bool:
    """Whether ``question`` (a real question, no request) asks what the person committed to."""
    return is_question(question) and not is_request(question) and _asks_committed().search(question) is not None


@quotes_original
def committed_to(question: str) -> str:
    """The one a Chinese question about a commitment names between its verb and its question word
    (我答应罗会长啥事 -> 罗会长), or ""."""
    m = _zh_committed_to().search(question)
    return m.group("who") if m else ""


@reads_simplified
def commits(sentence: str) -> bool:
    """Whether a sentence of the person's says a commitment of theirs: a verb of committing, a
    first-person future (contractions read: "I'll", "we'd"), or a commitment ``own`` reads."""
    return bool(_says_committed().search(sentence) or _FIRST_FUTURE.search(_normal(sentence)) or own(sentence))


def tidy(what: str) -> str:
    return what.strip().strip(",，。.!！;；:：").strip()


_NAME = r"(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_STOP_NAMES = {
    "I",
    "The",
    "A",
    "An",
    "OK",
    "Friday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Saturday",
    "Sunday",
    "Q1",
    "Q2",
    "Q3",
    "Q4",
    "PR",
    "API",
    "March",
    "June",
    "May",
    "April",
    "Berlin",
}


@quotes_original
def guess_to_whom(what: str) -> str:
    for pattern in (
        r"\b(?:to|for|with|tell|ask|ping|call|email|text|send|give|remind|owe|promised|message|show|pay) " + _NAME,
        r"^" + _NAME + r"\b",
    ):
        for m in re.finditer(pattern, what):
            name = m.group("name")
            if name.split()[0] not in _STOP_NAMES:
                return name
    zh = re.search(
        r"(?:给|跟|和|向|帮|答应了?|答应过)(?P<name>[A-Za-z]+|[\u4e00-\u9fff]{1,2}(?:经理|老师|总|哥|姐))", what
    )
    return zh.group("name") if zh else ""


_DUE_WORDS = re.compile(
    r"\b(?:(?:by|before|on|until|till|due)\s+)?(?:the day after tomorrow|tomorrow(?: morning| afternoon| evening)?|tonight|today"
    r"|this (?:morning|afternoon|evening|week)|end of (?:the )?(?:day|week|month)|eod|eow"
    r"|(?:next|this|coming) (?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|the \d{1,2}(?:st|nd|rd|th)"
    r"|in (?:\d+|a|an|one|two|three|four|five|ten) (?:minutes?|hours?|days?|weeks?))\b"
    r"|(?:明天|后天|今天|今晚|下周[一二三四五六日天]?|这周[一二三四五六日天]?|周[一二三四五六日天末]|星期[一二三四五六日天]|月底|年底|\d{1,2}[号日])(?:前|之前|以前)?",
    re.I,
)


@quotes_original
def due_words(sentence: str) -> str:
    m = _DUE_WORDS.search(sentence)
    return m.group(0) if m else ""
