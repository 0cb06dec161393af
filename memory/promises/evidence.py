"""Evidence that closes a promise: the person's own words, or kept's own fulfilling action.

Nothing else closes a promise: not MEMORY, not a fact, not a model's guess.
"""

from __future__ import annotations

import re
from datetime import date

from memory.db import transaction
from memory.promises.ledger import DONE, OPEN, Promise, close, list_promises, today_here
from memory.text.acts import is_question, sentences
from memory.text.overlap import content_words
from memory.text.script import reads_simplified

# --- evidence in words -------------------------------------------------------

_DONE_EN = re.compile(
    r"\b(?:done|finished|completed|complete|sent|submitted|paid|renewed|booked|delivered|handled|wrapped up|took care"
    r"|did (?:it|that|this)|dealt with|shipped|emailed|called|replied|forwarded|shared|filed|fixed|ordered|signed"
    r"|gave|handed|wrote|reviewed|finalized|finalised|posted|uploaded|followed up|picked up|transferred|told|got it"
    r"|sorted|taken care)\b",
    re.I,
)
_DONE_ZH = re.compile(
    r"已经|已|完成|做完|搞定|办好|弄好|处理好|办完|发了|交了|寄了|给了|打了|续了|订了|付了|回了|发过|改好|写完"
)
_DROP = re.compile(
    r"\b(?:never ?mind|forget (?:about )?(?:it|that|the|about)|no longer (?:need|have to)|don'?t (?:need|have) to"
    r"|do not (?:need|have) to|drop (?:it|that|the)|cancel (?:it|that|the)|scratch that|not needed anymore"
    r"|skip (?:it|that|the)|won'?t be (?:sending|doing)|not going to (?:send|do)|call(?:ed)? it off)\b"
    r"|不用了|算了|不需要了?|不必了?|取消|别管|不发了|不做了|不用发|不用做",
    re.I,
)
_NOT_YET = re.compile(
    r"\b(?:not yet|haven'?t|hasn'?t|didn'?t|did not|have not|not done|not sent|still need|yet to|never)\b|还没|没有|没发|未",
    re.I,
)


# Chinese marks a completed action with the perfective 了 closing its clause ("刚把 deck 发给 Tara
# 了"), whatever the verb: a closed-class particle, not a list of verbs.
_PERFECTIVE_ZH = re.compile(r"[\u4e00-\u9fff][^，,。！!？?]*了\s*[。！!]?\s*$")


@reads_simplified
def completion_cue(text: str) -> bool:
    """A sentence of the message states that something was done (and none denies it)."""
    if _NOT_YET.search(text):
        return False
    return any(
        not is_question(text[a:b])
        and (_DONE_EN.search(text[a:b]) or _DONE_ZH.search(text[a:b]) or _PERFECTIVE_ZH.search(text[a:b]))
        for a, b in sentences(text)
    )


@reads_simplified
def drop_cue(text: str) -> bool:
    """A sentence of the message says a promise is no longer wanted."""
    return any(not is_question(text[a:b]) and _DROP.search(text[a:b]) for a, b in sentences(text))


# --- the assistant's own actions ----------------------------------------------

# Words that say how something is delivered, not what: they never count as
# the content a tool action must carry to fulfil a promise.
_GENERIC = frozenset(
    "send sent give share forward email mail message text ping tell let know reply write get over back "
    "him her them you me my our their it this that final latest new updated again".split()
)


@reads_simplified
def about(text: str) -> set[str]:
    """What ``text`` is about: its content words less the words of delivery ("send", "email", "it")."""
    return content_words(text) - content_words(" ".join(_GENERIC))


def _same_person(a: str, b: str) -> bool:
    a, b = a.strip().lower(), b.strip().lower()
    if not a or not b:
        return False
    if a == b or a.split("@")[0] == b.split("@")[0]:
        return True
    first_a, first_b = re.split(r"[\s@.]", a)[0], re.split(r"[\s@.]", b)[0]
    return len(first_a) > 1 and first_a == first_b


def _carries(promise: Promise, body: str, recipient: str) -> bool:
    """Does a message with ``body`` deliver what ``promise`` promised?"""
    name_words = content_words(recipient) | content_words(promise.to_whom or "")
    wanted = content_words(promise.what) - name_words - content_words(" ".join(_GENERIC))
    if not wanted:
        return True  # "reply to Dana": any message to Dana is the reply
    have = content_words(body)
    hits = {
        w
        for w in wanted
        if w in have or any(h.startswith(w) or w.startswith(h) for h in have if len(h) >= 3 and len(w) >= 3)
    }
    return len(hits) * 2 >= len(wanted)


def on_tool_action(db, tool_name: str, arguments: dict, result: dict, today: date | None = None) -> list[int]:
    """Close the open promises a successful tool call fulfils; return their ids.

    Only a message sent to the person the promise is owed to, carrying what
    was promised (at least half its content words), counts; the outbox row
    is linked as the evidence. Call it after each successful tool call.
    """
    if not re.search(r"send|message|mail|reply", tool_name, re.I) or not isinstance(arguments, dict):
        return []
    if isinstance(result, dict) and (
        result.get("error") or result.get("status") not in (None, "sent", "queued", "recorded", "ok")
    ):
        return []
    recipient = (
        arguments.get("to") or arguments.get("recipient") or arguments.get("person") or arguments.get("name") or ""
    )
    if isinstance(recipient, list):
        recipient = " ".join(str(r) for r in recipient)
    recipient = str(recipient)
    body = " ".join(
        str(arguments.get(k) or "") for k in ("subject", "title", "body", "text", "message", "content", "attachments")
    )
    if not recipient.strip() or not body.strip():
        return []
    outbox_id = None
    if isinstance(result, dict):
        raw = result.get("message_id", result.get("id"))
        outbox_id = raw if isinstance(raw, int) else (int(raw) if isinstance(raw, str) and raw.isdigit() else None)
    when = (today or today_here()).isoformat()
    closed: list[int] = []
    with transaction(db) as conn:
        for p in list_promises(db, (OPEN,)):
            owed_to = p.to_whom or ""
            if not (
                _same_person(owed_to, recipient) or (not owed_to and recipient.split()[0].lower() in p.what.lower())
            ):
                continue
            if not _carries(p, body, recipient):
                continue
            evidence = (
                f"kept's {tool_name} to {recipient}"
                + (f" (outbox #{outbox_id})" if outbox_id else "")
                + f": {body.strip()[:160]}"
            )
            if close(conn, p.id, DONE, when, evidence, by="tool", outbox_id=outbox_id):
                closed.append(p.id)
    return closed
