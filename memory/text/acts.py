"""What a turn does: asks a question, asks kept to act, or states something.

The one place that decides "is this a question?" and "is this a request?".
People ask kept to act in question form all the time ("Can you send…?",
"How about booking…?", "Is it possible to move…?", "你能帮我…吗？"), so a
question mark decides nothing by itself. The reading goes by the shape of the
sentence, not by lists of phrases:

English
- A second person (or "we") with a modal, then a verb: "can/could/would/will
  you (please) VERB", "are you able to VERB", "(is it|would it be) possible
  (for you) to VERB", "would you mind VERBing", "any chance you could VERB",
  "do you think you could VERB", "can/could we VERB": a request.
- A suggestion: "why don't you/we VERB", "how/what about (you) VERB(ing)":
  a request; "how about the budget, did it…?" names a topic and the rest
  decides.
- A wish aimed at the listener: "I need/want/'d like you to VERB": a request.
- An imperative: the sentence opens (after "please", "ok", "hey"…) with a
  verb followed by what it acts on ("Send the draft…", "Let Jonas know…",
  "Remind me…"); a trailing tag ("…, ok?") does not make it a question.
  The verb is recognised by position: the first word is not a pronoun,
  determiner, auxiliary, question word or other closed-class word, and what
  follows it is an object (a pronoun, a determiner, a possessive, a name, a
  number) rather than a verb of its own ("Dana moved…" is a statement).
  Where the object is a name written small or a bare noun, a lexicon of parts
  of speech (lemminflect) decides: an opening base-form verb with no subject
  is an imperative ("email kwame to…", "arrange for…"), unless the word is
  also a noun or an adjective heading a note or a subject ("Long day",
  "Design reviews go to…"). A request may also stand as a clause of its own
  after a dash, a semicolon or (opening with a verb-only word) a comma; a
  wish for an outcome ("we need more toner on the way") asks too.
- A question: a question word first, or an auxiliary before its subject
  ("Did I…", "Is the…", "Can Felix…"), or a final question mark.
- A request whose content is only a question ("Can you tell me when…?",
  "Remind me what Grace said") is a question: it asks to be told.
- A wish about how kept speaks to the person is not a request to act: the
  verb is one of addressing or talking to them ("call/address me (as) NAME",
  "reply/answer/talk in German / briefly / with bullet points", "keep your
  answers short", "be brief", anything "when you talk to me") and it has no
  other person or thing to act on ("Reply to Dana", "Call the plumber" act).
  Introductions ("I'm Tomasz", "My name is Aiko") are statements anyway.
- A label before a colon or comma ("Update: …", "FYI, …", "Dana, book…"): one
  or two words, then ":" or ","; what follows decides.
- A question need not be marked: "what's my side project called", "did lena
  reply" ask without "?" or capitals. A question word followed by a main
  clause ("When I get back, I'll send it") is a clause of time, a statement;
  an exclamation ("What a day!") is one too.

Chinese
- 请 / 麻烦 / 帮 / 替 / 要不(你) (帮我 also after a time or a topic), 吧 closing a
  suggestion, a dropped-subject coverb with a light verb (跟房东约个时间), a second person with a modal
  (你能 / 你可以 / 能不能 / 可不可以 / 是否可以 / 方便 … 吗), or a sentence opening with a
  coverb or verb of action (把… / 给X发… / 提醒我…) without a subject of its
  own: a request.
- A question word (什么 / 谁 / 哪 / 几 / 多少 / 怎么 / 为什么), an A-not-A
  form (有没有 / 是不是), 是否, or a final 吗 / 呢: a question.
- How to address or answer the person (叫我 / 称呼我 + a name, 用中文回答,
  回答简短一点): a wish about kept's talk, a statement.

Whether a turn needs the person's memory at all (``self_contained``): a
question that refers to no particular thing (no first person, determiner,
pronoun, possessive, stored name taking part, day of the calendar), or to
kinds in a generic ("usually", 一般), comparative ("the difference between",
区别) or distance form, asks about the world at large; a request that
reworks the text it carries ("Make this politer: …", 帮我把这句话…：…) needs
nothing stored either. See the section's comment for why this generalises.

``is_request`` is true when any sentence of the text asks kept to act.
``is_question`` is true when any sentence is a real question (a polite
request in question form is not one). A text can be both ("Did I send it?
If not, send it now."): callers that must not act on a plain question ask
``asks_only``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Set as AbstractSet
from functools import cache, lru_cache

from memory.text import bilingual  # its dictionary loads on first use, not on import
from memory.text.nicknames import ZH_CALLED_ME
from memory.text.numbers import CN_ASKING_JI, en_int
from memory.text.people import MESSAGE_NOUN, MESSAGE_VERB, message_noun_zh
from memory.text.people import lemmas as _lemmas
from memory.text.script import quotes_original, reads_simplified
from memory.text.words import STOP_WORDS, tokens, written_in_chinese

REQUEST, QUESTION, STATEMENT = "request", "question", "statement"

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")

# --- sentences ----------------------------------------------------------------

# A full stop ends a sentence unless it belongs to a number ("10.30"), an
# initial or a common abbreviation ("a.m.", "e.g.", "Dr.").
_ABBREV = re.compile(r"(?:\b[a-z]|\b(?:a\.m|p\.m|e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|st|no|approx|incl))\.$", re.I)
_HARD_END = "!?。！？；;\n"


@reads_simplified
def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, its end punctuation included, blanks left out."""
    spans: list[tuple[int, int]] = []
    start, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        end = None
        if (
            ch in _HARD_END
            or ch == "."
            and (i + 1 == n or text[i + 1].isspace() or text[i + 1] in "\"'”’)")
            and not _ABBREV.search(text[start : i + 1])
        ):
            end = i + 1
        if end is not None:
            while end < n and (text[end] in _HARD_END + ".\"'”’)"):
                end += 1
            if text[start:end].strip():
                spans.append((start, end))
            start = i = end
            continue
        i += 1
    if text[start:].strip():
        spans.append((start, n))
    return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in spans]


@quotes_original
def split(text: str) -> list[str]:
    """The sentences of ``text``, stripped."""
    return [text[a:b].strip() for a, b in sentences(text)]


# --- English ------------------------------------------------------------------

_WH = {
    "what",
    "what's",
    "whats",
    "when",
    "when's",
    "where",
    "where's",
    "who",
    "who's",
    "whom",
    "whose",
    "which",
    "why",
    "how",
    "how's",
    "how'd",
}
_WH_FUSED = re.compile(r"^(?:what|when|where|who|how|why|which)'?(?:s|d|re|ll|ve)$")
_AUX = {
    "do",
    "does",
    "did",
    "is",
    "are",
    "was",
    "were",
    "am",
    "have",
    "has",
    "had",
    "can",
    "could",
    "will",
    "would",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "don't",
    "doesn't",
    "didn't",
    "haven't",
    "hasn't",
    "hadn't",
    "can't",
    "couldn't",
    "won't",
    "wouldn't",
    "shouldn't",
}
_MODAL = {"can", "could", "will", "would", "won't", "can't", "couldn't", "wouldn't"}
# Articles, demonstratives and possessive determiners: a noun phrase opens with one.
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their"}
# Words that cannot open an imperative (closed classes and the like).
# The quantifiers beyond "some", "any", "all": a closed class. None is a verb, each opens a noun
# phrase ("every one of them has to be…" reports; "Book each speaker a room" orders).
_QUANTIFIERS = frozenset({"every", "each", "both", "either", "neither", "several", "many", "few", "most", "much"})
_NOT_A_VERB = (
    _WH
    | _AUX
    | _DETERMINERS
    | _QUANTIFIERS
    | {
        "i",
        "i'm",
        "i've",
        "i'll",
        "i'd",
        "you",
        "you're",
        "we",
        "we're",
        "he",
        "she",
        "it",
        "it's",
        "they",
        "they're",
        "there",
        "there's",
        "that's",
        "its",
        "some",
        "any",
        "another",
        "anything",
        "nothing",
        "everything",
        "something",
        "all",
        "no",
        "yes",
        "not",
        "if",
        "because",
        "so",
        "but",
        "and",
        "or",
        "then",
        "also",
        "just",
        "maybe",
        "perhaps",
        "great",
        "good",
        "nice",
        "cool",
        "fine",
        "sure",
        "thanks",
        "thank",
        "cheers",
        "sorry",
        "hello",
        "hi",
        "hey",
        "ok",
        "okay",
        "got",
        "noted",
        "done",
        "today",
        "tomorrow",
        "yesterday",
        "tonight",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "to",
        "by",
        "after",
        "before",
        "as",
        "of",
        "one",
        "two",
        "still",
        "only",
        "even",
        "here",
        "now",
        "well",
        "looks",
        "seems",
        "sounds",
        "please",
        "kindly",
    }
)
# The words after which English inverts a statement's auxiliary and subject ("Nor did we",
# "Never have I", "So do they"): negatives, "so" and "only", a closed class.
_INVERTING = frozenset("neither nor so only never rarely seldom hardly scarcely little nowhere".split())
# Pronouns that can only be a subject (and "you", which after an auxiliary is one).
_NOMINATIVE = frozenset({"i", "we", "he", "she", "they", "you"})
# The object forms of the personal pronouns: after a word that can be a verb, that word is a verb
# with its object ("push it", "send them"), as no noun takes an object pronoun after it.
_OBJECT_PRONOUNS = frozenset({"me", "us", "him", "her", "it", "them"})
# Those that are nothing but objects: not a subject ("I", "we") nor a determiner ("her flight").
_ACCUSATIVE = frozenset({"me", "us", "him", "them"})
# What may stand as the subject after an auxiliary ("Did I…", "Is the review…").
_SUBJECTS = _DETERMINERS | {
    "i",
    "you",
    "we",
    "he",
    "she",
    "it",
    "they",
    "there",
    "its",
    "anyone",
    "anybody",
    "someone",
    "somebody",
    "everyone",
    "any",
    "all",
    "one",
}
_COPULA = frozenset({"is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't"})
# What may follow an imperative verb: the thing it acts on.
_OBJECT_START = _DETERMINERS | {
    "me",
    "us",
    "him",
    "them",
    "it",
    "some",
    "all",
    *_QUANTIFIERS,
    # the indefinite pronouns, a closed class: "Get someone to feed the band", "order something light"
    "everyone",
    "everybody",
    "everything",
    "someone",
    "somebody",
    "something",
    "anyone",
    "anybody",
    "anything",
    "up",
    "out",
    "off",
    "back",
    "over",
    "in",
    "down",
    "together",
    "ahead",
    "on",
    "to",
    "another",
    "one",
    "two",
    "three",
    "next",
    "tomorrow",
    "today",
    "tonight",
}
# The prepositions and particles among what may follow an imperative verb ("reply to…", "back up…").
_PARTICLES = frozenset("to in on up out off back over down ahead together".split())
# The lead-ins that open a sentence without being part of its clause: interjections, discourse
# adverbs and the chat abbreviations that stand for them ("fyi" = for your information, "btw" =
# by the way, "tbh", "fwiw", "imo", "iirc", "afaik"): a closed class. Unread, an abbreviation the
# lexicon lacks reads as a verb before its object ("fyi the vendor changed…" as "text the team").
_LEAD_IN = re.compile(
    r"^(?:(?:please|pls|plz|ok(?:ay)?|so|now|then|also|and|but|yet|hey|hi|right|alright|quickly|kept|actually|oh|well"
    r"|fyi|btw|tbh|fwiw|imo|imho|iirc|afaik|ps|nb)\b[,:\s]*)+",
    re.I,
)
_TAG = re.compile(
    r"[,\s]+(?:ok(?:ay)?|please|pls|thanks|thank you|will you|would you|can you|could you|yeah|yes)\s*[?!.]*$", re.I
)
_QUESTION_TAG = re.compile(r"[,\s]+(?:right|isn't it|aren't they|don't i|didn't i|is it|correct|no)\s*\?\s*$", re.I)
# Words in any Latin script ("Tomás", "Hélène"), not only ASCII letters.
_WORD = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[^\W\d_]+(?:['’][^\W\d_]+)?|\d[\w:.]*", re.I)

# Asking to be told is asking: "can you tell me when…", "remind me what…", "let me know if…".
_TELL_ME_WH = re.compile(
    r"^(?:(?:tell|show|remind|let|give)\s+(?:me|us)\s+(?:know\s+)?(?:again\s+)?|(?:check|find\s+out|see|look\s+up)\s+)"
    r"(?:what|when|where|who|whom|whose|which|why|how|if|whether)\b",
    re.I,
)
_FRAMES = [
    # modal + you (+ please) + verb: "could you please book", "would you mind sending", "will you tell"
    re.compile(
        r"^(?:can|could|would|will|won't|can't|couldn't)\s+you\s+(?:please\s+|kindly\s+|maybe\s+|just\s+)?(?:mind\s+)?(?P<rest>.+)",
        re.I,
    ),
    # "do you think you could", "any chance you could", "is there any way you could"
    re.compile(r"^(?:.{0,30}?\b)?you\s+(?:could|can|would|might)\s+(?:please\s+)?(?P<rest>.+)", re.I),
    # "are you able to", "would you be able to", "are you free to"
    re.compile(r"^(?:are|would|will|could)\s+you\s+(?:be\s+)?(?:able|willing|free)\s+to\s+(?P<rest>.+)", re.I),
    # "is it possible to", "would it be possible (for you) to"
    re.compile(
        r"^(?:is|would|will|was)\s+it\s+(?:be\s+)?(?:possible|ok(?:ay)?|alright)\s+(?:for\s+you\s+)?to\s+(?P<rest>.+)",
        re.I,
    ),
    # "would you mind", "do you mind", "mind sending"
    re.compile(r"^(?:(?:would|do)\s+you\s+)?mind\s+(?P<rest>.+)", re.I),
    # "could I ask you to", "can I get you to"
    re.compile(r"^(?:can|could|may|might)\s+i\s+(?:ask|get|have)\s+you\s+to\s+(?P<rest>.+)", re.I),
    # "why don't you / we"
    re.compile(r"^why\s+(?:don't|dont|not)\s+(?:you|we)\s+(?P<rest>.+)", re.I),
    # "can/could/shall we", "let's"
    re.compile(r"^(?:can|could|shall)\s+we\s+(?P<rest>.+)", re.I),
    re.compile(r"^let'?s\s+(?P<rest>.+)", re.I),
    # "any chance of moving…", "is there any way of getting…"
    re.compile(r"^(?:is\s+there\s+)?any\s+(?:chance|way)\s+(?:of\s+|to\s+)(?P<rest>.+)", re.I),
    # "I need/want/'d like you to", "I would like you to"
    re.compile(r"^i\s*(?:need|want|'d\s+like|would\s+like|'d\s+love|would\s+love)\s+you\s+to\s+(?P<rest>.+)", re.I),
]
# A wish for an outcome, the person as the one wanting it: "we need more toner on the way", "I want
# the report sent to Ruth", "need a plumber in on Thursday". A wanted thing with the state it is to
# be in (a participle, a particle, "on the way") asks for that to be brought about; "I need a
# break" names no such state and stays a statement.
_WANT_DONE = re.compile(
    r"^(?:(?:i|we)(?:\s+|(?=['’]d\s))(?:really\s+|still\s+|just\s+)?)?(?:need|want|['’]d\s+like|would\s+like)\s+(?!to\b|you\b)"
    r"(?:(?:the|a|an|some|more|our|my|this|that|these|those|\d+|[a-z]+)\s+){1,4}?"
    r"(?:[a-z]+ed|done|sent|made|paid|put|set|sorted|fixed|ready|on\s+the\s+way|in|out|over|back|up"
    r"|on\s+(?:my|our|his|her|their)\b)\b",  # "I want it on my desk by 4": a possessed place is a state
    re.I,
)
# A wish for time with someone, the person as the one wanting it: "I need 30 minutes with Felipe",
# "I'd like a word with Dr Osei", "need a call with the landlord". The wanted thing with "with" and a
# person (a name, or a possessed or definite person noun) is an encounter, which kept arranges; "I
# need to talk with Felipe" (the person's own doing) and "I need a break" (no one) stay statements.
_WANT_WITH = re.compile(
    r"^(?i:(?:(?:i|we)(?:\s+|(?=['’]d\s))(?:really\s+|still\s+|just\s+|will\s+)?)?"
    r"(?:need|want|['’]d\s+like|would\s+like|['’]d\s+love|would\s+love)\s+(?!to\b|you\b)"
    r"(?:[\w'’-]+\s+){1,4}?with\s+)(?:[A-Z]|(?i:(?:my|our|the|his|her|their)\s+\w))"
)
# A condition or time before the main clause: "If not, send it now.", "When Dana replies, book the room."
# The openers are the closed class of English subordinators (and "otherwise", "then"): the clause
# they open is no main clause, so the one after its comma gives the sentence's mood ("While the
# builders are in, we decant to Ward 4C" reports; "while" is no verb there).
_SUBORDINATOR = (
    r"(?:if|when|once|after|before|otherwise|in that case|then|while|whilst|since|because|although|though"
    r"|unless|until|till|as soon as|as long as|so long as|now that|even if|even though|whenever)\b"
)
_LEADING_CLAUSE = re.compile(f"^{_SUBORDINATOR}[^,]{{0,60}},\\s*(?P<rest>.+)", re.I)
_OPENS_SUBORDINATE = re.compile(f"^{_SUBORDINATOR}", re.I)
# A question word may open a question with a comma in it ("When is it, Tuesday?"), so only the
# other subordinators hand the sentence to the clause after their comma.
_WH_OPENER = re.compile(r"^(?:when|whenever)\b", re.I)
# "how about / what about": a suggestion when a verb follows, a topic otherwise.
_ABOUT = re.compile(r"^(?:how|what)\s+about\s+(?:you\s+|we\s+)?(?P<rest>.+)", re.I)
# A label of one or two words before a colon, a comma or a dash ("Update: …", "Dana, book…",
# "quick one - what do you call me?"): what follows is the sentence.
_HEAD = re.compile(r"^[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?(?:\s*[:,]|\s+[-–—]+)\s*(?P<rest>\S.*)$")
# A label longer than ``_HEAD``'s: a noun and a preposition opening a phrase before a colon
# ("Update on the Hollis account:", "Note to self:", "News from the site:"). As an order a verb
# takes its object before a preposition ("Update the team on…:"), so a noun-and-preposition head
# names what follows.
_LABEL = re.compile(
    r"^(?P<head>[^\W\d_][\w'-]*\s+(?:on|about|re|regarding|to|from|for|of|with)\s+[^:：]{1,40}?)\s*[:：]\s*(?P<rest>\S.*)$",
    re.I,
)
# "to" or "with" someone in a head: the frame of a verb of conveying ("Reply to Dana about the
# lease:", "Talk with her:"), an order, not a label.
_TO_SOMEONE = re.compile(r"\b(?:to|with)\s+(?:[A-Z\u3400-\u9fff]|(?:her|him|them|everyone|the\s+team)\b)")
# A main clause after a clause of time or place: "…, I'll send it", "when we land I'll call".
_MAIN_CLAUSE = re.compile(
    r",|\b(?:i|we|you|he|she|they|it)(?:'ll|'d|'m| will| would| can| should| shall| must)\b", re.I
)

# Wishes about how kept speaks to the person (a closed class: verbs of addressing and talking,
# with only a manner after them). They ask for no action, so nothing may be done on them.
_ADDRESS_ME = re.compile(
    r"^(?:call|address|refer\s+to|know|name)\s+me\s+(?:as\s+|by\s+|just\s+|simply\s+)?"
    r"(?!a\b|an\b|the\b|some\b|at\b|when\b|after\b|before\b|back\b|later\b|tomorrow\b|tonight\b|today\b|if\b|in\b|on\b|about\b|\d)\S",
    re.I,
)
_TALK_MANNER = re.compile(
    r"^(?:reply|answer|respond|talk|speak|write|explain\s+things|chat)\s+(?:to\s+me\s+|with\s+me\s+|me\s+)?"
    r"(?:in|with|using|like|more|less|only|always|never|short|shorter|brief|\w+ly)\b",
    re.I,
)
_KEEP_TALK = re.compile(
    r"^keep\s+(?:your\s+|the\s+|my\s+)?(?:answers?|replies|reply|responses?|messages?|it|things|explanations?)\s+\w+",
    re.I,
)
_BE_MANNER = re.compile(r"^be\s+(?:more\s+|less\s+|very\s+|a\s+bit\s+|extra\s+)?[a-z]+(?:\s+with\s+me)?\b", re.I)
_TO_ME = re.compile(
    r"\b(?:when|whenever|if)\s+you\s+(?:talk|write|reply|answer|respond|speak|chat)\b|\b(?:in|with)\s+your\s+(?:answers|replies|responses|messages)\b",
    re.I,
)


# Saying what one does not know asks for it: "I forget the name of my adviser", "I can't remember
# when the lease ends", "not sure who signs these". Verbs of knowing are a closed class, and what
# follows them is what is asked (a question word, "the name/number/date of"). Opening the
# sentence only, and not with if/whether: "…, not sure if it sticks" voices a doubt.
_NOT_KNOWING = re.compile(
    r"^(?:i\s+(?:forget|forgot|(?:can't|cannot|can\s+not|don't|do\s+not|didn't)\s+(?:remember|recall|know)|wonder)"
    r"|(?:i'm\s+|i\s+am\s+)?not\s+sure|no\s+idea)\s+(?:again\s+)?"
    r"(?:what|when|where|who|whom|whose|which|how|the\s+\w+\s+(?:of|for)\b)",
    re.I,
)
# A question after a clause that sets the scene: "a client just called in a panic, who do I ring",
# "the printer is jammed again - who fixes it": a question word with an auxiliary or a verb after a
# comma or a dash, ending the sentence.
# "Which" right after a comma and before its verb opens a relative clause ("…the canning line, which
# will finally get us off the mobile canner", "…$86,000, which is way more than I wanted"): a
# question "which" takes its noun first ("…, which supplier should we use"), so it is left out here.
_LATE_QUESTION = re.compile(
    r"(?:,|\s[-–—])\s*(?:so\s+)?(?:who|what|when|where|how)\s+(?:do|does|did|is|are|was|can|should|would|will)"
    r"\s+[^,]{1,40}$",
    re.I,
)


def _clean(sentence: str) -> str:
    s = unicodedata.normalize("NFKC", sentence).strip().replace("’", "'")
    return re.sub(r"\s+", " ", s)


# Chat spellings of the second person ("can u book…", "is ur calendar free"): lower case only,
# so the letter U of "U-bend" or "the U.S." is left alone.
_CHAT_YOU = re.compile(r"(?<![\w.'-])(u|ur)(?![\w.'-])")


def _you(text: str) -> str:
    """``text`` with the chat spellings of "you" and "your" written out, and the written
    abbreviations of "with" and "without" ("sync w/ ops", "w/o the deck"): a slash cuts them into
    a letter the grammar cannot read as the preposition they are."""
    text = _WITH.sub(lambda m: " without " if m.group(1) else " with ", text)
    return _CHAT_YOU.sub(lambda m: "you" if m.group(1) == "u" else "your", text)


_WITH = re.compile(r"\s*(?<![\w/])w/(o\b)?(?!e\b|/)\s*", re.I)  # not "w/e" (whatever, the weekend)


def _en_act(sentence: str) -> str:
    s = _LEAD_IN.sub("", _you(_clean(sentence))).strip()
    if not s:
        return STATEMENT
    asked = s.endswith("?")
    if _QUESTION_TAG.search(s):
        return QUESTION  # "The review is at 3, right?"
    if _TAG.search(s):
        s = _TAG.sub("", s).strip()  # "Book it, ok?": the tag asks for nothing
        asked = False
    body = s.rstrip("?!. ")
    if not body:
        return QUESTION if asked else STATEMENT
    label = _LABEL.match(s)
    if label and not _conveying_head(label.group("head")) and not _TO_SOMEONE.search(label.group("head")):
        return _en_act(label.group("rest"))  # "Update on the Hollis account: they pushed…", "Note to self: …"
    head = _HEAD.match(s)
    if head and not _LEADING_CLAUSE.match(body):
        if _apposition(s[: head.start("rest")], head.group("rest")):
            return STATEMENT  # "Theodora Pennington-Yusuf, practice manager at Barbican Smiles."
        if _conveying_head(s[: head.start("rest")]):
            return REQUEST  # "Email Jana: the invoice was paid": the head orders, the rest is what to say
        return _en_act(head.group("rest"))  # "Update: the launch moved…", "Dana, book the room"
    about = _ABOUT.match(body)
    if about:
        rest = about.group("rest")
        first = rest.split()[0].lower().strip(",")
        if first.endswith("ing") or _imperative(rest):
            return _unless_asking(rest)
        _topic, _, tail = rest.partition(",")
        return _en_act(tail) if tail.strip() else QUESTION
    for frame in _FRAMES:
        m = frame.match(body)
        if m and _verb_phrase(m.group("rest")):
            return _unless_asking(m.group("rest"))
    lead = _LEADING_CLAUSE.match(body)
    if lead and _imperative(lead.group("rest")):
        return _unless_asking(lead.group("rest"))  # "If not, send it now."
    if lead and not _WH_OPENER.match(body):
        return _en_act(lead.group("rest") + s[len(body) :])  # "Since you're in, can you…?"
    words = [w.lower() for w in _WORD.findall(body)]
    if not words:
        return QUESTION if asked else STATEMENT
    first, second = words[0], (words[1] if len(words) > 1 else "")
    if not asked and (first in ("don't", "dont") or first == "do" and second == "not"):
        rest = body.split(None, 2 if first == "do" else 1)[-1]
        return _unless_asking(rest) if _verb_phrase(rest) else STATEMENT  # "Don't let me forget…"
    if first == "let" and second == "me" and len(words) > 2 and words[2] != "know":
        return STATEMENT  # "Let me send it tonight": the speaker offers, nobody is asked
    exclaimed = s.endswith("!")
    # A question word with its auxiliary fused on, the apostrophe kept or dropped as chat drops it
    # ("what'd", "whatd", "wheres", "hows"): the auxiliary stands before the subject, so a subject
    # right after it is the inversion only a question has ("whatd i say id do…", "hows the quote…").
    fused = _WH_FUSED.match(first)
    named = len(words) > 1 and _WORD.findall(body)[1][:1].isupper()  # a name next: "Can Felix join…"
    if fused and not exclaimed and (second in _SUBJECTS or named):
        return QUESTION
    if first in _WH or fused:
        if asked:
            return QUESTION
        # An auxiliary between the question word and its subject is the inversion only a question
        # has ("what was it I said I'd do…", "where are the keys I left"): a clause of time or a
        # free relative keeps the subject first ("When I get back, I'll…", "What I need is…"), so
        # a main clause later on makes no statement of an inverted one. Word order, not words.
        third = _WORD.findall(body)[2] if len(words) > 2 else ""
        if second in _AUX and (third.lower() in _SUBJECTS or third[:1].isupper()) and not exclaimed:
            return QUESTION
        # "how" takes its degree word along ("how often has the date moved", "how many times has it
        # slipped"): the inversion then comes a word or two later, after the wh-phrase.
        if first == "how" and not exclaimed:
            later = _WORD.findall(body)[2:5]
            for aux, subject in zip(later, later[1:], strict=False):
                if aux.lower() in _AUX and (subject.lower() in _SUBJECTS or subject[:1].isupper()):
                    return QUESTION
        # "When I get back, I'll send it": a clause of time before a main clause; "What a day!".
        rest = body.split(None, 1)[1] if len(words) > 1 else ""
        if exclaimed or second in ("a", "an") or _MAIN_CLAUSE.search(rest):
            return STATEMENT
        return QUESTION  # "what's my side project called", "what my manager decided about…"
    if (
        first == "have"
        and not asked
        and len(words) > 2
        and _WORD.findall(body)[1][:1].isupper()
        and base_verb(words[2])
    ):
        return REQUEST  # "Have Shira pick up the Denver accounts": the causative, not a perfect
    # "Do me the comparison", "have them call me": a pronoun in the object case cannot be a
    # subject, so the do/have before it is the verb of an order, not an auxiliary that asks.
    if first in ("do", "have") and second in _ACCUSATIVE:
        return _unless_asking(body)
    if asked and first in _MODAL and base_verb(second) and second != "be":
        # A modal that asks, with no subject before its verb ("Can book me and Jo for 3pm?", "Could
        # help me chase the deposit?"): English drops only a subject the hearer supplies, and in a
        # question the one asked to act is the hearer, so it asks as "can you…" does. Unasked, the
        # dropped subject is the speaker ("Can confirm it went out.", "Will send it tonight.").
        rest = body.split(None, 1)[1]
        if _imperative(rest):
            return _unless_asking(rest)
    if first in _AUX:
        # An auxiliary before its subject asks ("Did I…", "Is the…", "did lena reply…"); "Will do." does not.
        if asked or second in _SUBJECTS or named:
            return QUESTION
        # do/have + a subject of any casing + more: "did lena reply about…", "has omar sent…"
        subject_of_any_case = (
            first in ("do", "does", "did", "has", "have", "had")
            and len(words) > 2
            and not exclaimed
            and second not in _NOT_A_VERB
            and second not in ("been", "got", "gotten", "to")
            and not second.endswith("ed")
        )
        # be + a subject of any casing + a participle: the progressive asked ("is mum coming on
        # sunday", "are the vans going out today"); the statement puts the subject first.
        progressive = (
            first in ("is", "are", "was", "were")
            and len(words) > 2
            and not exclaimed
            and second not in _NOT_A_VERB
            and any(w.endswith("ing") and len(w) > 4 for w in words[2:4])
        )
        return QUESTION if subject_of_any_case or progressive else STATEMENT
    if (
        second in _AUX
        and len(words) > 2
        and words[2] in _NOMINATIVE
        and set(_lemmas(first)) <= {"NOUN"}
        and first not in _INVERTING
    ):
        # An auxiliary before a subject pronoun is inverted, as only a question has it (but after
        # a negative or "so": "Nor did we"), so the word before it, one the lexicon lacks or
        # knows as a noun only, asks ("wat did i say id do": a question word spelt as chat).
        return QUESTION
    if _imperative(body):
        return _unless_asking(body)
    adverbs = _after_adverbs(body)
    if adverbs != body and _imperative(adverbs):
        return _unless_asking(adverbs)  # "Just push it to the two units tonight", "simply resend it"
    if not asked and (_WANT_DONE.match(body) or _WANT_WITH.match(body)):
        return REQUEST
    if _NOT_KNOWING.search(body) or _LATE_QUESTION.search(body):
        return QUESTION
    return QUESTION if asked else STATEMENT


# Adverbs that change what follows (its polarity): "Not mine to chase" is no order.
_NEGATORS = frozenset({"not", "never", "no"})
# The English prepositions, a closed class the lexicon lists as adverbs ("by noon the day after
# tomorrow" opens with no adverb of manner): what follows one is its object, not a verb.
_PREPOSITIONS_EN = frozenset(
    "about above across after against along amid among around as at before behind below beneath beside besides"
    " between beyond by despite down during except for from in inside into like near of off on onto out outside"
    " over past per since than through throughout till to toward towards under underneath until up upon via with"
    " within without".split()
)


def _after_adverbs(text: str) -> str:
    """``text`` without the adverbs that open it: words the lexicon knows as adverbs and as
    nothing but adverbs or adjectives ("just", "simply", "definitely"), which stand before a verb
    without changing its mood. A word that can also be a noun or a verb ("still", "now"), a
    negator and a preposition stay."""
    rest = text
    while True:
        m = _WORD.match(rest)
        if not m:
            return rest
        word = m.group(0).lower()
        pos = set(_lemmas(word))
        if "ADV" not in pos or not pos <= {"ADV", "ADJ"} or word in _NEGATORS | _PREPOSITIONS_EN:
            return rest
        rest = rest[m.end() :].lstrip(" ,")


def _conveying_head(label: str) -> bool:
    """Whether a two-word head before a colon or a dash is a verb and whom it addresses ("Email
    Jana:", "text Kirsty -", "ping 阿杰:"): an order to convey what follows, which the rest, a clause
    of its own, would hide ("the invoice was paid" reports). The verb is a base form the lexicon
    knows as a verb, or one of the message tool's own nouns used as its verb (the lexicon lacks
    "text" as a verb); whom it addresses is a name (a word the lexicon lacks, or Chinese) or an
    object pronoun. A label of one word ("Update:", "Note -") or a greeting ("Morning Dana:": a noun
    not the tool's) is no order; after a comma the name is a vocative ("Dana, the van is late")."""
    m = re.match(r"^(?P<verb>[A-Za-z]+)\s+(?P<whom>\S+?)\s*(?::|：|\s[-–—]+)\s*$", label)
    if m is None:
        return False
    verb, whom = m.group("verb").lower(), m.group("whom")
    pos = _lemmas(verb)
    if verb not in pos.get("VERB", ()) and not re.fullmatch(MESSAGE_NOUN, verb):
        return False
    return (
        whom.lower() in ("her", "him", "them")
        or whom[:1].isupper()
        or bool(_HAS_CJK.search(whom))
        or not _lemmas(whom.lower())
    )


def _apposition(label: str, rest: str) -> bool:
    """Whether ``rest`` describes the name before its comma instead of ordering it to act: the
    label is a name (capitalised words, none a verb the lexicon knows), and what follows opens
    with a compound noun ("practice manager at…", "project lead for…", "office manager,"): a
    word that may be a noun, then one the lexicon knows only as a noun, then a preposition, a
    break or the end. A vocative's order acts on an object ("Bo, send me the receipts", "Dana,
    book the room"), which a noun-only second word is not."""
    names = _WORD.findall(label)
    if not names or not all(w[:1].isupper() and "VERB" not in _lemmas(w.lower()) for w in names):
        return False
    words = _WORD.findall(rest)
    if len(words) < 2 or not words[1].islower():
        return False
    first, second = _lemmas(words[0].lower()), _lemmas(words[1])
    if "NOUN" not in first or set(second) != {"NOUN"}:
        return False
    after = rest.split(words[1], 1)[1].lstrip()
    third = words[2].lower() if len(words) > 2 else ""
    return not after or after[0] in ",;.!-–—" or third in _PREPOSITIONS | {"at", "of", "for", "in", "on", "with"}


def _unless_asking(rest: str) -> str:
    """What a recognised request frame asks: to be told (a question), how to be spoken to (a
    statement), kept's attention to what the person said (a statement), or an action."""
    rest = re.sub(r"^(?:please|kindly|just|always|never|also)\s+", "", rest.strip(), flags=re.I)
    if _TELL_ME_WH.match(rest):
        return QUESTION
    if _on_the_speaker_only(rest) or _ATTENTION.match(rest.rstrip(".!? ")):
        return STATEMENT
    if not about_talk(rest):
        return REQUEST
    # "Call me Sasha and send Priya the notes": a wish about talk joined to an action asks for the action.
    joined = _JOINED.split(rest)[1:]
    return REQUEST if any(_imperative(c) and not about_talk(c) for c in joined) else STATEMENT


_JOINED = re.compile(r",?\s+(?:and(?:\s+then|\s+also)?|then|also)\s+", re.I)
# kept's attention asked for a thing pointed back at, the speaker at most its beneficiary ("Keep an
# eye on that for me", "keep track of it", "watch this one for us"): a verb of attention (the
# English of the held and durative aspects _ZH_STATE reads: 盯着点, 记住) acts on nothing in the world.
_ATTENTION = re.compile(
    r"^(?:keep\s+(?:an?\s+|close\s+|good\s+)*(?:eyes?|track|tabs|watch)\s+(?:on|of)|watch|track|monitor|mind|remember)\s+"
    r"(?:that|it|this|those|these|them)(?:\s+one)?(?:\s+for\s+(?:me|us))?$",
    re.I,
)

# Asking for kept's attention to the person, not for an act: the verb's only participant besides
# kept is the speaker ("me", "us"), and what else it has points back into the talk ("that", "it",
# "that one") or sets a condition ("if I start wriggling out of it"): "Hold me to that", "Keep me
# honest on that one", "Nag me if I slip", "Bear with me if I'm all over the place", "Don't let
# me forget that one". No tool acts on such a wish: the promise it points at is in the sentence
# before, which the write pass keeps. Anything the verb could act on (a noun, a name, a number, a
# time, "to water the plants") makes it a request ("Remind me to call Dana", "Send me the notes");
# so does a thing after "me" with no preposition ("Send me that": a second object, the thing sent).
_CONDITION = re.compile(r"[,\s]+(?:if|when|whenever|once|in\s+case|before|should)\b.*$", re.I)
_ANAPHOR = frozenset("that it this one those these".split())


def _on_the_speaker_only(rest: str) -> bool:
    body = _CONDITION.sub("", rest.strip().rstrip(".!?")).strip()
    found = _WORD.findall(body)
    if len(found) < 2 or not any(w.lower() in ("me", "us") for w in found[1:]):
        return False
    after_me = seen_me = False
    causative = found[0].lower() in ("let", "make", "help")
    for w in found[1:]:
        low = w.lower()
        if low in ("me", "us"):
            after_me = seen_me = True
            continue
        if low in _ANAPHOR:
            if after_me:
                return False  # "send me that": the thing sent
            continue
        if after_me and causative and base_verb(low):
            after_me = False
            continue  # "don't let me drift on that": the speaker's own verb, bare after let/make/help
        after_me = False
        if seen_me and low in _POINTING_BACK:
            continue  # after the speaker, a preposition before what it points back to ("… me drift on that")
        if w[:1].isupper() or not w.isalpha():
            return False  # a name, a number, a time
        pos = _lemmas(low)
        if not pos or "NOUN" in pos or "PROPN" in pos:
            return False  # a thing to act on (or a word the lexicon lacks: perhaps a name)
        if low in ("to",) and found.index(w) + 1 < len(found) and found[found.index(w) + 1].lower() not in _ANAPHOR:
            return False  # "remind me to water…": what to do
    return True


# The Chinese form: a verb whose object is the speaker, with nothing after it but "a bit" and a
# particle, after a frame of asking or a time pointing back ("到时候记得 push 我一下啊", "提醒我一声").
# 帮我/给我/替我 make the speaker the one helped, not the object: "帮我订一下" acts on a thing.
_ZH_ON_ME_ONLY = re.compile(
    f"^(?:到时候|那时候|回头|这事|这件事|你|您|请|麻烦|记得|一定|要|就)*\\s*"
    f"(?!帮|给|替|为|跟|和|让|叫|喊|称呼)(?:[{_CJK}]{{1,2}}|[A-Za-z]+)\\s*我(?:们)?\\s*(?:一下|一声)?\\s*[啊吧哦呀嘛哈]*$"
)


@reads_simplified
def about_talk(text: str) -> bool:
    """Whether a request only asks how kept should address or speak to the person ("call me Sasha",
    "reply in German from now on", "keep your answers short", "be brief with me")."""
    s = _clean(text)
    # The Chinese wishes _zh_act reads as statements (叫我小林, 回复用英文); "Call me 小林" goes on.
    if _HAS_CJK.search(s) and (
        _ZH_TALK.match(_zh_body(s)[1]) or _ZH_IN_REPLIES.match(_zh_body(s)[1]) or _zh_names_to_use(s)
    ):
        return True
    s = re.sub(r"^(?:(?:please|kindly|just|always|never|also|don't|dont|do\s+not)\s+)+", "", s, flags=re.I)
    if _ADDRESS_ME.match(s) or _TALK_MANNER.match(s) or _KEEP_TALK.match(s) or _TO_ME.search(s):
        return True
    return bool(_BE_MANNER.match(s)) and not re.match(r"^be\s+(?:there|here|at|in|on|back|ready)\b", s, re.I)


# Asking how kept addresses the person: a verb of addressing (the class _ADDRESS_ME and _ZH_TALK
# read in wishes) with the person as its object, or the name kept has for them: "name" with the
# person as an object in the same question ("what do you call me", "what name do you have down
# for me", "what name have you got me down as", "what do you have me down as, name-wise",
# 你平常怎么称呼我). SOUL holds the answer,
# whatever words it uses for it.
_ASKS_ADDRESS = re.compile(
    r"\b(?:call|address|refer\s+to)\s+me\b|\bname\b(?!\s+of\b)(?:(?!\b(?:who|that|which|of)\b)[^.?!]){0,30}\bme\b"
    r"|\bme\b(?:(?!\b(?:who|that|which|of)\b)[^.?!]){0,30}\bname\b(?!\s+of\b)|(?:称呼|叫|喊)我",
    re.I,
)


# The name in a naming wish: the object of a verb of addressing whose object is the speaker
# ("call me Teddie", "everyone calls me Teddie", 叫我萍姐, 你也叫我 Gavin 吧, 都喊我老欧), up to what
# closes it (a break, 吧/就好/就行, "from now on"). The verbs are _ADDRESS_ME's and _ZH_TALK's closed
# class; a negated one ("nobody's called me Marguerite since…", 别叫我…) names what not to use.
_NAMED_EN = re.compile(
    r"\b(?:call(?:s|ed)?|address(?:es)?|know(?:s)?)\s+me\s+(?:as\s+|by\s+|just\s+|simply\s+)?"
    r"(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
)
_NAMED_ZH = re.compile(
    f"{ZH_CALLED_ME}\\s*(?P<name>[A-Z][A-Za-z'-]*|(?![吧就好了啊呀嘛])[{_CJK}]{{1,4}}?)(?=\\s*(?:就好|就行|就可以|即可|好了|吧|[，,。！!；;.]|$))"
)
# A name given by a noun that means a short or second name (英文名 Lynn, 小名, 昵称, "my nickname is
# Bex", "I go by Bex"), or after a negated naming, the one it corrects to ("nobody calls me
# Rosalind, it's Roz": not X, it's Y is the grammar of a correction).
_NAMED_NOUN = re.compile(
    f"(?:英文名字?|小名|昵称|外号)\\s*(?:是|叫)?\\s*(?P<name>[A-Z][A-Za-z'-]*|[{_CJK}]{{2,3}}(?=[，,。.]))"
    r"|\b(?:nickname\s+is|go\s+by|goes\s+by)\s+(?P<en>[A-Z][A-Za-z'-]*)"
)
_CORRECTED = re.compile(r"[,;]\s*(?:it's|it is|it’s|just)\s+(?P<name>[A-Z][A-Za-z'-]*)\b")
_NAMING_NEGATED = re.compile(
    r"\b(?:nobody|no one|never|not|don't|dont|do not|doesn't|didn't|isn't|won't)\b[^.,;]*$|(?:别|不要|不用|不必|没人|没有人)[^，,。]*$",
    re.I,
)


@quotes_original
def address_name(text: str) -> str:
    """The name a naming wish in ``text`` gives ("Keep your answers short. Everyone calls me
    Teddie." -> "Teddie", 店里的小年轻都叫我萍姐 -> 萍姐), the last one when several do, or ""."""
    found = ""
    for a, b in sentences(text):
        sentence = _clean(text[a:b])
        for m in list(_NAMED_EN.finditer(sentence)) + list(_NAMED_ZH.finditer(sentence)):
            if m.group("name").lower() in _NOT_A_VERB:
                continue
            if not _NAMING_NEGATED.search(sentence[: m.start()]):
                found = m.group("name").strip()
            elif corrected := _CORRECTED.search(sentence, m.end()):
                found = corrected.group("name")
        for m in _NAMED_NOUN.finditer(sentence):
            found = (m.group("name") or m.group("en")).strip()
    return found


@reads_simplified
def asks_how_addressed(text: str) -> bool:
    """Whether a question asks what kept calls the person ("what do you call me?", 你怎么称呼我)."""
    return is_question(text) and _ASKS_ADDRESS.search(_clean(text)) is not None


def _verb_phrase(rest: str) -> bool:
    """Whether ``rest`` opens with a verb (base form or -ing), not a subject of its own."""
    words = _WORD.findall(rest)
    if not words:
        return False
    first = words[0].lower()
    if first in ("please", "kindly", "just", "maybe", "also"):
        return _verb_phrase(rest.split(None, 1)[1]) if len(rest.split()) > 1 else False
    return first not in _NOT_A_VERB and not _looks_inflected(first, words[1:2])


def _looks_inflected(word: str, nxt: list[str]) -> bool:
    # "Dana moved", "Priya called": a past or third-person form after a name is a subject and its verb.
    return word.endswith(("ed",)) and not nxt


# The clitics English attaches to a noun phrase: a contracted auxiliary or the possessive 's.
_CLITIC = re.compile(r"'(?:s|re|ll|ve|d|m)$")


def _imperative(text: str) -> bool:
    """A sentence that opens with a verb acting on something: "Send the draft…", "Remind me…"."""
    words = _WORD.findall(text)
    if len(words) < 2 or not words[0][:1].isalpha() or words[0] == _ZH_NOUN:
        # a number or an amount opens no imperative ("$27,400 installed, ouch."), nor a Chinese noun
        return False
    first, second = words[0].lower(), words[1]
    # A word with a contracted auxiliary or a possessive 's ("he's in Yiwu…", "we'll need…", "Dana's
    # flight moved") is a subject, or a noun's owner: English attaches those clitics to a noun
    # phrase, never to a verb's base form. "Let's" alone is a verb with its object (a suggestion).
    if _CLITIC.search(first) and first != "let's":
        return False
    if _OPENS_SUBORDINATE.match(text):
        return False  # "While the builders are in": a subordinator, no verb ("while away" is rare)
    # A word the lexicon knows only as an adjective or adverb opens no imperative ("next one",
    # "lovely day"); a noun may be a verb it lacks ("text Dana"), a word it lacks a new verb or a name.
    if (pos := _lemmas(first)) and not {"VERB", "NOUN", "AUX"} & set(pos):
        return False
    # An imperative is a verb's base form; a form the lexicon knows as a verb only when inflected
    # ("Sent Aiko the list", "Paid the bill", "Spoke to the adjuster") reports what was done. Its other
    # readings, a noun ("spoke") or an adjective ("paid"), open no imperative either.
    if "VERB" in pos and first not in pos["VERB"] and "AUX" not in pos:
        return False
    # "Going to send…", "Meeting moved…": an -ing form (a vowel before the -ing) opens no
    # imperative; "ping", "bring" and "string" are verbs.
    low = second.lower()
    if (
        first in _NOT_A_VERB
        or first.endswith("ed")
        # an adverb ("Finally the…"); a verb in -ly ("Reply to Dana", "Apply for…") takes a preposition
        or first.endswith("ly")
        and low not in ("to", "for", "all")
        or first.endswith("ing")
        and re.search("[aeiouy]", first[:-3])
    ):
        return False
    if pos and set(pos) == {"NOUN"} and low in _PARTICLES:
        # A word the lexicon knows only as a noun, then a preposition or a particle: a noun and its
        # phrase ("Delivery to the Oakridge site is booked…"), not a verb it lacks and its object.
        return False
    if not pos and _subject_then_verb([w.lower() for w in words]):
        return False  # "Anna in accounts sent the invoice", "Kevin from the shop thinks…": a name and its verb
    # A number word counts the object as digits do ("Book eleven trucks", "order twenty chairs").
    if low in _OBJECT_START or low[0].isdigit() or en_int(low) is not None or low.startswith("'") or "@" in low:
        # A copula right after the would-be object makes the two words a subject ("Phase one is 96
        # turbines", "Plan 2 was dropped"): no verb's object is followed by its own "is".
        return not (len(words) > 2 and words[2].lower() in _COPULA)
    if second[:1].isupper():
        # "Call Priya", "Let Jonas know": a name after the verb; "Marco Rossi joined": a full name, then a
        # verb; "Alder Street", "Tomás Ferreira": a name of two words, the first no verb the lexicon knows.
        pos = _lemmas(first)
        if "VERB" not in pos and not ("NOUN" in pos and low in _TITLES):
            # A word the lexicon has only as a noun may still be a verb of conveying it lacks ("text",
            # "slack"), when a name and a "that"-clause or a colon follow: that frame is a verb's
            # (to whom, then what to say, ``_TELL``); a subject and its verb never take that shape.
            return bool(_TELL.match(text)) or bool(re.fullmatch(MESSAGE_VERB, first))
        third = words[2].lower() if len(words) > 2 else ""
        return not (third.endswith(("ed", "s")) and third not in _OBJECT_START)
    if low in ("and", "or", "&") and len(words) > 2 and first in _lemmas(first).get("VERB", ()):
        return _imperative(" ".join(words[2:]))  # "Draft and send the team a note": verbs joined
    return _verb_first([w.lower() for w in words[:3]])


def _foreign_word(word: str) -> bool:
    """A word that may be of another language written in Latin letters: lower-case (a name keeps
    its capital), unknown to the English lexicon, and spelt with a letter English does not use (já,
    só, yarın, mañana)."""
    return word.islower() and word.isalpha() and not word.isascii() and not _HAS_CJK.search(word) and not _lemmas(word)


def _subject_then_verb(words: list[str]) -> bool:
    """Whether an opening word the lexicon lacks (a name, most often) heads a subject: a phrase
    that modifies it (a preposition and its object, "in accounts"; an apposition, "the driver"),
    then a finite verb ("Anna in accounts sent…", "Kevin from the shop thinks…", "Lola the
    driver says…"). An imperative's verb is followed by its object and what completes it, never
    by a verb of its own; the object of a verb of saying may be a clause, but that clause opens
    with its own subject (a pronoun, "that", a second noun phrase), where the scan stops. Read
    for a few words only: past them a verb belongs to some later clause."""
    seen_noun = False
    for i, word in enumerate(words[1:7], start=1):
        if i > 1 and (word in _MODAL or _finite(word)):
            return seen_noun  # "Anna in accounts sent…", "Ravi from IT will…"
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if seen_noun and word.endswith("s") and "VERB" in _lemmas(word) and (nxt in _NOMINATIVE or _CLITIC.search(nxt)):
            return True  # "Kevin in the shop figures it'll…": a verb in -s (or a plural noun) before a clause
        if word in _NOMINATIVE | _RELATIVE or _CLITIC.search(word) or word in _OBJECT_PRONOUNS - {"her"}:
            # a clause of its own ("…that we moved", "Hamish who does the boats"), whose verb is not
            # the opening word's, or an object pronoun: the opening word's own object, a verb's
            return False
        if word in _DETERMINERS and seen_noun and words[i - 1] not in _PREPOSITIONS_EN:
            return False  # "WhatsApp the group the new times": two objects, a verb's
        if word not in _DETERMINERS and word not in _PREPOSITIONS_EN:
            seen_noun = True
    return False


# The words that open a clause inside a noun phrase or after a verb of saying.
_RELATIVE = frozenset("that who whom whose which where".split())


def _finite(word: str) -> bool:
    """A form that is a verb of its own after a subject: an auxiliary, or an inflected verb form
    that is no noun ("moved", "went"; "patches" may be a plural noun)."""
    if word in _AUX:
        return True
    pos = _lemmas(word)
    return word not in pos.get("VERB", (word,)) and "NOUN" not in pos and "ADJ" not in pos


def has_finite_verb(text: str) -> bool:
    """Whether an English text holds a finite verb, so a clause: an auxiliary or a contracted one
    ("is", "I'll", "she's"), or an inflected verb form ("laughed", "found"). A fragment without one ("the Priya doc", "Kestrel dates") names, it does not tell."""
    for word in _WORD.findall(text.replace("’", "'")):
        low = word.lower()
        if low in _AUX or re.search(r"'(?:s|re|ll|ve|d|m)$", low) or (low.isalpha() and _inflected_verb(low)):
            return True
    return False


def _inflected_verb(word: str) -> bool:
    """A form the lexicon knows as an inflection of another verb ("laughed", "found", "spat"), and
    not as a plural noun ("dates", "docs")."""
    pos = _lemmas(word)
    if not any(lemma != word for lemma in pos.get("VERB", ())):
        return False
    return not ("NOUN" in pos and word.endswith("s"))


def base_verb(word: str) -> bool:
    """Whether the lexicon knows an English word as a verb's base form ("book", "send"; not "sent")."""
    low = word.lower()
    return low in _lemmas(low).get("VERB", ())


def common_noun(word: str) -> bool:
    """Whether the lexicon knows an English word as a noun (a common one: names are not in it)."""
    return "NOUN" in _lemmas(word.lower())


def noun_like(word: str) -> bool:
    """Whether an English word may be a noun: the lexicon lists it as one, or does not know it
    (a name, a coinage, an acronym)."""
    pos = _lemmas(word)
    return not pos or "NOUN" in pos or "PROPN" in pos


# Titles before a name: the word before one is no part of the name ("Text Mrs Wang").
_TITLES = frozenset("mr mrs ms miss dr prof sr sra mme mlle herr frau".split())
_PREPOSITIONS = frozenset("about into onto over under through across against regarding re via per".split())


def _verb_first(words: list[str]) -> bool:
    """An imperative whose verb the lexicon knows, with a lower-case object: a verb whose
    object is a name written small ("ping anouk about…", "email kwame
    to…"), a bare noun, a number word or a preposition ("arrange for…").

    English declaratives need a subject, so a sentence opening with a base-form verb is an
    imperative, unless the opening word is also a noun or an adjective that a verb of its own
    follows ("Work is busy", "Rain stopped") or that heads a verbless note ("Long day", "Rain
    again"). A word only a verb opens an imperative whatever follows but a verb ("Arrange for
    the family to come in", "Get twenty more"); one that is also a noun takes a noun or a name
    the lexicon does not know, then no verb of its own ("email kwame to confirm", "ping rui")."""
    first, second = words[0], words[1]
    pos = _lemmas(first)
    if first not in pos.get("VERB", ()) or _finite(second) or second in _SUBJECTS - _OBJECT_START:
        return False
    if set(pos) <= {"VERB", "AUX"}:
        return True
    nxt = _lemmas(second)
    if (
        "ADJ" in nxt
        and "ADJ" not in pos
        and len(words) > 2
        and (
            words[2] in _SUBJECTS or words[2] in ("to", "that") or "NOUN" in _lemmas(words[2]) or not _lemmas(words[2])
        )
    ):
        return True  # "make sure Ruth gets…", "be sure to…": a verb and its adjective, then a clause
    if "ADJ" in pos or "ADV" in pos or second in _NOT_A_VERB | _PREPOSITIONS:
        return False  # "Long day", "Rent of €900 is due", "Lunch with Dana was fun"
    if nxt and "NOUN" not in nxt:
        return False
    # After the object a closed-class word goes on ("email kwame to…", "give yusuf a call", "ping
    # rui about…"); an open-class word there may be the verb of a subject ("design reviews go…").
    third = words[2] if len(words) > 2 else ""
    return (
        not third
        or "'" in second
        or third[0].isdigit()
        or third in (_NOT_A_VERB - _AUX) | _OBJECT_START | _PREPOSITIONS
    )


# --- Chinese ------------------------------------------------------------------

_ZH_WH = re.compile(
    r"什么|甚么|啥|谁|哪"
    + f"|{CN_ASKING_JI}[个次点号天时月岁位]|{CN_ASKING_JI}$"
    + r"|多少|多久|多长|怎么|怎样|为什么|为何|何时|何地|是否|有没有|有没|是不是|对不对|好不好"
)
_ZH_FINAL_Q = re.compile(r"(?:吗|么|嘛|呢)\s*[？?。]*$|[？?]\s*$")
# A second person with a modal: "你能", "您可以", "能不能", "可不可以", "能否".
_ZH_ASK_YOU = re.compile(
    r"^(?:你|您)?(?:(?:是否|方便)?(?:能不能|能否|可不可以|可否|能|可以|会不会)|方便)(?:帮|替|给|把|将|提醒|发|安排|约|订|预约|加|取消|改|告诉|通知|转发|回复|查|看)"
)
_ZH_PLEASE = re.compile(
    r"^(?:你|您)?(?:请|麻烦|劳驾|帮(?!助)|替(?!代|换)|帮个忙|要不(?:你|您)?(?!我)|不如(?:你|您)?(?!我)|能不能帮|可以帮)"
)
# The Chinese of asking done on the person's behalf before the act itself (帮我, 麻烦你, 请你, 替我):
# ``_ZH_PLEASE`` reads the same mood, but ends where the person is named ("帮" of 帮我), not where the
# act begins, which is what this one cuts at.
_ZH_ASKED = re.compile(r"^(?:你|您)?(?:请你?|麻烦你?|劳驾|帮我|替我|帮忙)(?=[\u3400-\u9fff])")
# The same asked after a time or a topic set before it: "周六上午帮我约…", "那台冰箱，帮我…" (the
# clause reading splits at the comma); not after a subject of its own ("他帮我搬了家").
_ZH_PLEASE_LATER = re.compile(r"^[^，,。！？!?我你您他她它们]{1,16}?(?:帮我|帮忙|麻烦你|请你|替我|记得)")
# A verb with a light measure or "a bit" after it (约个, 写条, 发封, 看一下): the casual shape of
# asking for one action; the completed aspect (了, 过) makes it a report instead.
_ZH_LIGHT_VERB = re.compile(f"[{_CJK}](?:一下|一个|个|一条|条|一封|封|一份|份|一句|句|一声|声)")
# A coverb opening a sentence with its subject dropped (跟/和/同 with, 用 using, 给/为/替 for, 向/对
# to, 让 have someone): what follows is what the listener is to do.
_ZH_COVERB = re.compile("^(?:跟|和|同|与|用(?!户)|给|为|替|向|对|让(?!我))")
# A suggestion closing with 吧 ("…退他三百块吧"), not a tag question (对吧, 是吧) or a guess about
# what happened (…到了吧).
_ZH_SUGGEST = re.compile(f"[{_CJK}]{{5}}[^{_CJK}]*(?<![对是好行了过])吧\\s*[。！!]*$")
_ZH_DONE = re.compile("了|过(?!来|去)")
# A sentence that opens with a coverb or a verb of action, with no subject of its own. 叫 before a
# quotation or 叫做 names (叫“喜来福婚庆”: "called …"), as 让/叫 before the speaker asks nothing of kept.
_ZH_IMPERATIVE = re.compile(
    r"^(?:(?:让|叫)(?!我|什么|啥|做|作|[“\"「『《])|把|将|给.{1,40}?(?:发|打|回|写|转)|跟.{1,40}?[说讲]|提醒|安排|预约|预订|订|约|加|添加|新建|创建|取消|删除|删掉|改到|改成|推迟|提前|告诉|通知|回复|转发|发(?:给|个|一|封|条)|记(?:一下|下|得提醒))"
)
# What may stand between an opening verb and a sentence-final 了 that is the verb's own change of
# state: nothing (取消了, 约了), a result (订好了, 发完了, 删掉了), or a goal or a new value after
# 到/成/为/至 (改到11月13号了, 推迟到五月了, 改成线上了). Closed, it reports that the change happened;
# an order would close with nothing or with 吧. Any other words before the 了 may be a clause of
# their own (告诉她会议取消了: the message's 了) or a 把 object (把会取消了, an order), so they read
# as the order they open.
_ZH_CHANGED = re.compile(r"^(?:[好完掉]|(?:到|成|为|至)[^，,。；;！!？?吧]+)?了$")
_ZH_WANT_YOU = re.compile(r"^我(?:需要|想要|想让|要|希望)(?:你|您)")
# A coverb or a verb of telling whose object is the listener (跟你说一声, 告诉你, 给你发个…): the
# speaker is its dropped subject, telling kept something, not asking kept to act on anyone.
_ZH_TO_YOU = re.compile(r"^(?:跟|和|同|与|给|向|对|告诉|通知|提醒)(?:你|您)")
# How to address or answer the person: 叫我小林, 称呼我王老师, 用中文回答, 回答简短一点.
_ZH_TALK = re.compile(
    r"^(?:(?:请|以后|今后|从现在起|从现在开始|之后|麻烦|你|您|就|都|也|还是|这么|这样|可以)[，,]?)*"
    rf"(?:{ZH_CALLED_ME}(?![明今后早晚下上\d一二三四五六七八九十点]|起床|什么|啥|甚么)"
    r"|(?:用|说)[^，,。]{1,6}?(?:回答|回复|说话|写|聊|交流|跟我说|和我说|跟我聊|和我聊)"
    r"|(?:回答|回复|说话|回话|写)(?:我)?(?:要|就|请|得|尽量)?(?:简短|简洁|短|详细|正式|随意|口语|用)"
    # "when you talk to me, …" (跟我说话别…, 和我聊天用…): the coverb of "with me" and a verb of talking
    r"|(?:跟|和|对|同)我(?:说话|讲话|聊天|聊|说)(?:的时候|时)?[，,]?(?:别|不要|莫|少|多|用|要|就|请|得|尽量))"
)
# A wish set in kept's replies (回复里千万别给我弄表格, 回答的时候别用英文): the Chinese of "in your
# replies" (_TO_ME), how kept talks and nothing else.
_ZH_IN_REPLIES = re.compile(r"^(?:你的|你)?(?:回复|回答|回话)(?:里|中|的时候|时)")
_ZH_SUBJECT_I = re.compile(r"^(?:我|我们)")
# Discourse openers, and the adverbs of sequence that stand before a predicate without changing
# its mood (再给李明派个任务 asks as 给李明派个任务 does; 先/顺便 alike).
# 好几 ("several") and 那几 ("those few") are words of their own, no lead particle before a 几 that asks.
_ZH_LEAD = re.compile(
    r"^(?:(?:好的|好(?!几)|嗯|那么|那(?!几)|对了|另外|还有|然后|哦|喂)[，,、\s]*|(?:再|先|顺便)(?=[给把跟和替帮发约安排提醒告诉通知]))+"
)


def _zh_body(sentence: str) -> tuple[str, str]:
    """A Chinese sentence without its opening particle ("好的，", "对了"), and that without its end
    punctuation."""
    s = _ZH_LEAD.sub("", _clean(sentence)).strip()
    english_lead = _LEAD_IN.sub("", s)
    if english_lead != s and _HAS_CJK.match(english_lead):
        s = english_lead  # "Please 把 QA 的 regression test 交给 Nina": the English lead-in of a Chinese clause
    return s, s.rstrip("？?。！!，, ")


def _zh_act(sentence: str) -> str:
    found = _zh_act_shape(sentence)
    if found == REQUEST and _ZH_ON_ME_ONLY.match(_zh_body(sentence)[1]):
        return STATEMENT  # kept's attention asked to the person ("到时候记得 push 我一下"), see _on_the_speaker_only
    if found == REQUEST and _zh_names_to_use(sentence):
        return STATEMENT
    return found


def _zh_names_to_use(sentence: str) -> bool:
    """ "英文名 Lynn, 实验室里大家都这么叫, 你也用这个吧": a closing clause that points back (这个, 这么,
    这样) at the name the sentence gives asks to be called by it: a wish about talk."""
    last = re.split("[，,]", _zh_body(sentence)[1])[-1]
    return bool(re.search("这个|这么|这样", last)) and bool(address_name(sentence))


# The listener named as the subject of an order before a coverb whose object is a third party
# (你给老蔡带个话, 您跟老陈说一声): the order is read without it, as 给老蔡带个话 is. With the speaker or
# the listener after the coverb (你给我发的…, 你跟我说过…) 你 is a subject of a report, and stays.
_ZH_YOU_ORDER = re.compile("^(?:你|您)(?=(?:跟|和|同|与|给|替|向|对)(?!我|你|您|咱))")


# What is acted on, put first as a topic marked by a demonstrative and its measure word, then the
# order with its subject dropped (这个报价单让小刘去做, 這件事交給阿傑負責, 这个 ticket assign 给
# Kevin): Chinese fronts the object of a handing-over as readily as English puts it last. The
# comment must open with a verb of handing work over (交给, 派给…), the causative of purpose
# (让/叫 + someone + 去/来 + a verb: not 让人很难接受, which is about the topic) or a borrowed
# English verb with its recipient after 给 (not 给我/你: handed to the speaker or kept, reported).
# The grammar of handing work over, shared by the fronted-object order below and by ``_ASSIGN_ZH``:
# a verb of handing to someone other than the speaker or kept, and the causative of purpose (让/叫 +
# someone + 去/来 + a verb: 让小刘去做, 让 Mike 来 own 这个 project), whose 去/来 marks the work.
_ZH_HANDED_TO = "(?:交给|派给|分给|交由)(?!我|你|您|咱)"


def _zh_made_to_go(not_who: str = "我|你|您|咱|大家") -> str:
    return rf"(?:让|叫)\s*(?!{not_who})[^，,。；;！!？?\s]{{1,8}}?\s*(?:去|来)\s*[A-Za-z\u3400-\u9fff]"


_ZH_TOPIC_ORDER = re.compile(
    # (那 may already be gone, read as the opener "so" by ``_zh_body``)
    r"^(?:这|那)?(?:个|份|件|些|张|封|条|批|单|项|篇|笔|次)\s*"
    # the topic: a noun phrase, so no adverb or particle inside it (这个项目就交给他: a plan, 就 "then")
    r"(?:[^\W\d_A-Za-z就都也已会要再还先得将了的是在把被不没]{1,8}?|[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})\s*"
    rf"(?={_ZH_HANDED_TO}|{_zh_made_to_go('我|你|您|咱|大家|人')}"
    r"|[A-Za-z]+\s*给\s*(?!我|你|您|咱))"
)


def _zh_act_shape(sentence: str) -> str:
    s, body = _zh_body(sentence)
    if not s:
        return STATEMENT
    s, body = _ZH_YOU_ORDER.sub("", s), _ZH_YOU_ORDER.sub("", body)
    if _ZH_TALK.match(body):
        return STATEMENT  # a wish about how kept talks to the person, not an action
    if _ZH_PLEASE.match(body) or _ZH_ASK_YOU.match(body) or _ZH_WANT_YOU.match(body):
        return REQUEST
    # A coverb and a verb with its measure word open the sentence's first clause ("给王师傅捎句话：…",
    # "给她说一声，…"): an order to convey what follows, whose own 了 or question is the message's.
    head = re.split("[：:，,]", body, maxsplit=1)[0]
    # Not to kept or the person (跟你说一声, 给我说一声: telling kept, asking to be told).
    conveys = _ZH_COVERB.match(head) and not re.match(".(?:你|您|我|咱)", head)
    if head != body and conveys and _ZH_LIGHT_VERB.search(head) and not _ZH_DONE.search(head):
        return REQUEST
    done = bool(_ZH_DONE.search(body))
    if not done and _ZH_PLEASE_LATER.match(body):
        return REQUEST
    final_q = bool(_ZH_FINAL_Q.search(s))
    question = bool(_ZH_WH.search(body) or final_q)
    if not question and not done and _ZH_TOPIC_ORDER.match(body):
        return REQUEST
    if not _ZH_SUBJECT_I.match(body) and not _ZH_TO_YOU.match(body):
        # An opening verb or coverb asks even with a question word inside ("告诉她们在哪里" tells).
        opening = _ZH_IMPERATIVE.match(body)
        # An opening verb ending in its goal's 到/成 (改到, 改成) keeps it for the reading of what follows.
        after = opening.end() - (body[opening.end() - 1 : opening.end()] in ("到", "成")) if opening else 0
        if not final_q and opening and not _ZH_CHANGED.match(body[after:]):
            return REQUEST
        if (
            not question
            and not done
            and (
                (_ZH_COVERB.match(body) and _ZH_LIGHT_VERB.search(body))
                # The suggestion is its own clause's: "大家都叫我阿琪，你也这么叫我吧" asks only how to be called.
                or (_ZH_SUGGEST.search(s) and not _ZH_TALK.match(_zh_body(re.split("[，,]", body)[-1])[1]))
            )
        ):
            return REQUEST
    return QUESTION if question else STATEMENT


# --- what a question is about: particular things, or kinds and the world at large ---------
#
# A memory helps a turn that refers to particular things of the person's world: their own
# ("my", "we"), ones the talk already singles out ("the review", "this draft", "she", "Ines's
# number"), a named someone or something of their store, a day of their calendar ("tomorrow",
# "on Friday"). A question that refers to none of these asks about kinds and the world at large
# ("what is mass timber", "Which airlines fly from Oslo to Bergen?", "How many vacation days are
# standard in Italy?"): no store can change its answer. English marks particular reference in a
# closed set of words (determiners, personal pronouns, the possessive 's, deictic time words)
# and in names, so the test is the presence of one of those, not the topic: it carries over to
# any store and any subject. Three closed forms override the particular words that they
# themselves license: a habitual or generic adverb ("usually", "in general", 一般, 通常) says
# the sentence is about what holds of a kind ("How long does the permit usually take?"); a
# comparison of kinds ("the difference between X and Y", "X vs Y", 区别) and a distance
# ("how far is X from Y") are about the things compared, with "the" owed to the relation.
# A name after a preposition of place ("in Lyon", "from X to Y") is where, not whom: the
# setting of the question, not its subject. Chinese has no articles and drops pronouns, so a
# bare Chinese question stays particular; only the generic forms, and "what there is" in a
# named place (台中有什么好吃的), mark it general.
#
# A request that works on text it carries (a rewrite or a translation of what follows its
# colon or its quotes) needs nothing stored either, when nothing outside that text is the
# person's: "Make this politer: see you at 5" (the person only as the one helped, 帮我).

_FIRST_PERSON_EN = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours|ourselves)\b", re.I
)
# The person as the one helped or answered, not as the topic: "tell me…", "help us…" (and in a
# request, "…for me"; "what name do you use for me?" asks about them).
_RECIPIENT_EN = re.compile(r"^\W*(?:please\s+|can\s+you\s+|could\s+you\s+|would\s+you\s+)?[a-z]+\s+(?:me|us)\b", re.I)
_FOR_ME = re.compile(r"\bfor\s+(?:me|us)\b", re.I)
_FIRST_PERSON_ZH = re.compile("我|咱")
_RECIPIENT_ZH = re.compile(r"^\W*(?:请|麻烦你?|你能|你可以|能不能)?(?:帮|给|替|为)我(?:们)?")
_GENERIC_EN = re.compile(
    r"\b(?:usually|typically|generally|normally|commonly|ordinarily|customarily|traditionally|tends?\s+to"
    r"|on\s+average|in\s+general|as\s+a\s+rule|most\s+of\s+the\s+time)\b",
    re.I,
)
_GENERIC_ZH = re.compile("一般|通常|普遍|往往|大多|大部分|多数|平均")
_ZH_CLAUSE_END = re.compile("[，,。！!？?；;：:]")


def _generic_subject_zh(text: str) -> bool:
    """Whether a generic adverb in a Chinese question has a noun phrase before it in its clause
    ("建筑师一般要考什么", "HEPA filter 一般多久换一次"): what holds of that kind. With nothing nominal
    before it (一般几点接孩子, 周末一般几点起: a time word is no subject) the dropped subject is the
    person, and the adverb tells their habit. Parts of speech from jieba's tagger: any store."""
    from memory.text.people import tagged  # jieba loads on first use

    for clause in _ZH_CLAUSE_END.split(text):
        found = _GENERIC_ZH.search(clause)
        if found is None:
            continue
        before = [(w, tag) for w, tag in tagged(clause[: found.start()]) if w.strip()]
        if any(tag in ("eng", "vn") or tag.startswith("n") for _, tag in before):
            return True
    return False


_COMPARE_EN = re.compile(
    r"\bdifferences?\s+between\b|\bdiffer(?:s|ent)?\s+from\b|\b(?:vs\.?|versus)\s|\bcompared?\s+(?:to|with)\b"
    r"|\bsame\s+(?:thing\s+)?as\b|\bsimilar\s+to\b",
    re.I,
)
_COMPARE_ZH = re.compile("区别|差别|差异|不同|不一样|相比")
_DISTANCE = re.compile(r"\bhow\s+far\b|\bdistance\s+(?:between|from)\b|多远|距离", re.I)
# Particular reference that a generic or comparative form does not undo: a demonstrative, a
# possessive 's (not a contraction, not an indefinite's: "a nurse's salary"), a day of the
# calendar (a weekday in the singular, "every Friday" is a habit), "who", what kept itself did.
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those)\s+[a-z0-9]", re.I)
_CONTRACTED = frozenset("it's that's what's who's where's when's how's there's here's he's she's let's".split())
_POSSESSIVE_S = re.compile(r"\b([a-z][\w-]*)'s\b", re.I)
_DAY = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|(?:this|next|last|coming|past)\s+(?:week|weekend|month|year|quarter|term"
    r"|morning|afternoon|evening|night|time|(?:mon|tues|wednes|thurs|fri|satur|sun)day))\b"
    r"|(?<!every\s)\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b(?!s)|\b\d{4}-\d{2}-\d{2}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b",
    re.I,
)
_WHO = re.compile(r"\b(?:who|whom|whose|who's)\b|\b(?:did|have|had|were)\s+you\b", re.I)
# The time of an occurrence: "When is rent due?", "when's run club", "what night is badminton",
# "what time does yoga start". A "when" with the copula, or with a singular, past or future
# verb, asks when one thing happens; what holds of a kind is asked of the plural ("When do
# pharmacies close?").
_WHEN_IS = re.compile(
    r"^\W*(?:when|what\s+(?:time|day|night|evening|morning|afternoon|date|week|month|hour)|which\s+(?:day|night|evening|date|week|month))"
    r"(?:'s|\s+(?:is|are|was|were|does|did|will)\b)",
    re.I,
)
# Particular reference a generic form does undo ("How long does the permit usually take?"): the
# definite article, except where the relation it heads licenses it ("the difference between…",
# "the capital of…", "the best way to…"), an anaphoric pronoun ("it" not standing in for a clause:
# "is it safe to…", "how long does it take"), an ongoing situation. (The past tense alone is
# no anchor: "What were the causes of the 1929 crash?" is history, and a past event of the
# person's is told by its other words: "did I", "the invoice", a name.)
_THE = re.compile(r"\bthe\s+(?=(?P<np>(?:[\w'-]+\s*){1,6}))", re.I)
_RELATIONAL = frozenset({"of", "between", "among", "to"})
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|they|them|their|theirs)\b", re.I)
_IT = re.compile(r"\bit\b(?!(?:\s+\w+){0,3}\s+to\s)(?!\s+takes?\b)", re.I)
# An ongoing situation, the progressive after its subject: "How much leave is remaining?" (not
# the opening auxiliary of "Is running bad for knees?", where the -ing word is the subject).
_PROGRESSIVE = re.compile(r"(?<=\w)(?:'s|'re|\s+(?:is|are|am|was|were))\s+[a-z]+ing\b", re.I)
# What is left or owed as of now is a state of a particular situation, like the progressive:
# "How many vacation days are left?", "How much is still due?", "Which invoices are outstanding?".
_AS_OF_NOW = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:still\s+)?(?:left|remaining|due|overdue|outstanding|pending)\b", re.I
)
_ZH_PARTICULAR = re.compile(
    r"你|您|他|她|这|那|今天|明天|后天|昨天|前天|今晚|明晚|上次|上周|下周|这周|本周|这个月|下个月|上个月"
    r"|(?<!每)(?:周|星期|礼拜)[一二三四五六日天]"
)
_ZH_THERE_IS = re.compile("^(?P<place>[^有]{2,8})有(?:什么|哪些|啥)")
# A place or the setting of a question: the name after a preposition of place, or the two ends
# of a route ("from X to Y").
# "into" leads what something becomes or enters ("translate it into French", "file it into
# Archive"), not someone taking part.
_SETTING = frozenset({"in", "at", "near", "around", "across", "outside", "inside", "within", "throughout", "into"})
# The prepositions and particles after the speaker before what they point back to ("… me drift on
# that"); not "to", whose verb after it is what to do ("remind me to water…").
_POINTING_BACK = _PREPOSITIONS | _SETTING | frozenset(("on", "with", "for", "of", "off", "up", "out"))
_ROUTE = re.compile(r"\bfrom\s+(?P<a>[\w'-]+(?:\s+[\w'-]+)?)\s+to\s+(?P<b>[\w'-]+(?:\s+[\w'-]+)?)", re.I)
_EN_WORD = re.compile(r"[^\W_][\w'-]*")
# What points at the material a request carries: "this", "these", "the following", 这句话, 以下.
_POINTS_AT = re.compile(r"\b(?:this|these|the\s+following|below)\b|这(?:句|段|封|条|篇|个|些)?|以下|下面|如下")
# What points at material in the talk: "this"/"these" before a noun, 这 with a measure word of
# text or things (这段话, 这封邮件, 这个 list); not "this Friday" (a day, read apart).
_AT_HAND = re.compile(r"\b(?:this|these)\s+(?=[a-z])|这(?:句|段|封|条|篇|个|些|份|张|页|首)")
# A capitalised word past the start of the material, not a weekday or a month: perhaps a name of the store's.
_NAME_INSIDE = re.compile(
    r"[^\W\d_][\s,;]+(?!(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b)[A-Z][a-z]"
)
# Material the message carries for the request to work on: what follows its colon, or what it quotes.
_MATERIAL = re.compile(
    r"(?<!\d)[:：](?!\d)\s*(?P<m>\S.*)$|\"[^\"]{3,}\"|“[^”]{2,}”|「[^」]{2,}」|(?<!\w)'(?:[^']|(?<=\w)'(?=\w)){3,}'(?!\w)",
    re.S,
)


def _participants(text: str, names: AbstractSet[str]) -> set[str]:
    """The store's names (given as index terms) that ``text`` uses for someone or something taking
    part, not for the place where: "Is Priya in Lyon?" has Priya, not Lyon."""
    if not names:
        return set()
    route = {t for m in _ROUTE.finditer(text) for part in ("a", "b") for t in tokens(m.group(part))}
    found: set[str] = set()
    setting = False
    for m in _EN_WORD.finditer(text):
        word = m.group(0)
        terms = set(tokens(word))
        named = terms & names
        if not named:
            setting = word.lower() in _SETTING
            continue
        if not setting and not named <= route:
            found |= named
    return found


# The present moment is a day of the calendar as "today" is: a question about what holds now
# ("the crane hire: first quote vs now?", "how far behind is Denver right now") asks of a particular
# situation, which a comparison or a distance does not make a kind. Deictic time, closed class.
_NOW = re.compile(r"\b(?:now|currently|at\s+the\s+moment|at\s+present)\b", re.I)
_NOW_ZH = re.compile("现在|目前|眼下|如今")


# The tense a question is asked in is its first auxiliary's ("When was the board meeting meant to
# be?", "wasn't mum supposed to come earlier?", "what did Huayu quote first?"), or a perfect of have
# or be reaching up to now ("every date they've had", "every number it's been"). Closed classes.
_AUXILIARY = re.compile(
    r"\b(?:is|are|am|was|were|do|does|did|has|have|had|will|would|can|could|should|shall|may|might|must)(?:n't|n’t)?\b"
    r"|['’](?:s|re|ll|d|ve)\b",
    re.I,
)
_PAST_AUXILIARY = re.compile(r"^(?:was|were|did|had)(?:n't|n’t)?$|^['’]d$", re.I)
_PERFECT = re.compile(r"(?:['’]ve|\bhave|\bhas|['’]s)\s+(?:[^?.!,;]{0,40}?\s)?(?:had|been|gone|got|gotten)\b", re.I)


@reads_simplified
def asked_in_the_past(question: str) -> bool:
    """Whether an English question is asked in the past tense (its first auxiliary is a past one) or
    the present perfect: it asks what was, not only what is."""
    if _PERFECT.search(question):
        return True
    first = _AUXILIARY.search(question)
    return first is not None and _PAST_AUXILIARY.match(first.group(0)) is not None


@reads_simplified
def of_now(text: str) -> bool:
    """Whether ``text`` speaks of the present moment (now, currently, 现在, 目前): a question so
    asked wants the value as it stands, not how it came to be."""
    return _NOW.search(text) is not None or _NOW_ZH.search(text) is not None


def _particular_en(text: str, participants: set[str], known: bool) -> tuple[bool, bool]:
    """(particular reference a generic form cannot undo, one it can) in an English question;
    ``known``: the store's names are known, so a capitalised name it lacks is a public thing's."""
    firm = bool(
        participants
        or _DEMONSTRATIVE.search(text)
        or _DAY.search(text)
        or _NOW.search(text)
        or _WHO.search(text)
        or _WHEN_IS.search(text)
        or any(_possessor(text, m, known) for m in _POSSESSIVE_S.finditer(text))
    )
    # "the" before a capital names a unique public thing ("the Soviet Union", "the U.S. Census
    # Bureau"); the person's own capitalised things are the store's names, participants above.
    # A capitalised word modifying a common noun ("the Shanghai concert", "the Leeds office") is
    # the setting of a particular thing, not the name of a public one: the head decides.
    the = any(
        not (known and re.match(r"[A-Z][a-z]", m.group("np")) and not _capital_modifies_noun(m.group("np")))
        and not _RELATIONAL & {w.lower() for w in m.group("np").split()[1:]}
        for m in _THE.finditer(text)
    )
    # A pronoun early in the question points back into the talk ("Did she reply?", "When is it
    # due?"); later it is bound by a noun of the same sentence ("…filmmakers use in their films").
    opening = " ".join(text.split()[:4])
    soft = the or bool(
        _PRONOUN.search(opening) or _IT.search(opening) or _PROGRESSIVE.search(text) or _AS_OF_NOW.search(text)
    )
    return firm, soft


def _capital_modifies_noun(np: str) -> bool:
    """Whether the capitalised words opening a noun phrase are followed by a lower-case common
    noun they modify ("Shanghai concert"), not by the end of the phrase or a function word ("Canton
    Fair usually", "Usher Hall in Edinburgh")."""
    words = np.split()
    k = 0
    while k < len(words) and words[k][:1].isupper():
        k += 1
    if k >= len(words):
        return False
    head = words[k].strip("?.!,;:").lower()
    return head not in _NOT_A_VERB and set(_lemmas(head)) == {"NOUN"}  # a word the lexicon knows only as a noun


def _possessor(text: str, m: re.Match, known: bool = True) -> bool:
    """Whether a possessive 's is of a particular of the talk: not a contraction ("what's"), not
    an indefinite's ("a nurse's salary"), not a capitalised name the store lacks ("Seville's tapas",
    "Tasmania's food": the store's own names are participants)."""
    if m.group(0).lower() in _CONTRACTED or re.search(r"\b(?:a|an)\s+(?:\S+\s+)?$", text[: m.start()], re.I):
        return False
    return not (known and m.group(1)[:1].isupper() and m.start() > 0)


def _first_person(text: str, request: bool = False) -> bool:
    """The person spoken of, not only helped: "my", "we", 我, but not "tell me…", 帮我… ."""
    if _FIRST_PERSON_ZH.search(_RECIPIENT_ZH.sub("", text, count=1)):
        return True
    text = _RECIPIENT_EN.sub(" ", text)
    return bool(_FIRST_PERSON_EN.search(_FOR_ME.sub(" ", text) if request else text))


@reads_simplified
def self_contained(text: str, names: AbstractSet[str] | None = frozenset(), person: bool = False) -> str | None:
    """Why ``text`` needs nothing from the person's memory, or None when it may.

    ``names``: the index terms of the store's names the turn holds (None: the store's names are
    not known, as before any fact is kept); ``person``: it names the person themself. A question
    that refers to no particular thing, or only to kinds in a generic, comparative or distance
    form, is "about kinds"; a request that only works on the text it carries is "works on the
    text it carries". See the comment above for why this generalises."""
    s = _clean(text).replace("’", "'")
    if person or not s:
        return None
    if is_request(s) and not is_question(s):
        found = _MATERIAL.search(s)
        rest = _MATERIAL.sub(" ", s)
        if not found:
            # The material may be in the talk rather than in the message (pasted before, attached):
            # a demonstrative with a noun of text points at it ("Summarise this article for me",
            # 帮我把这封邮件改短, "sort these lines"). Deixis to what is at hand is grammar, true of
            # any store; a day ("this Friday", 这周) or a number (an amount, a quantity: "approve
            # this 7000 euro upgrade") is no text, and someone taking part, the person's own
            # things or a pronoun ("Send this to him") still open the gate below.
            at_hand = _AT_HAND.search(s)
            if not at_hand or _DAY.search(s) or re.search(r"\d", s) or _ZH_PARTICULAR.search(_AT_HAND.sub(" ", s)):
                return None
            rest = _AT_HAND.sub(" ", s)
            if _PRONOUN.search(rest):
                return None
        # Text after a colon must be pointed at ("this", 这句话): "Add a task: PO for Topaz" carries
        # what to record, not text to rework. Quoted text is material as it stands ("Translate
        # 'see you at noon' into Greek"). A name inside the text may be the store's.
        elif (found.group("m") is not None and not _POINTS_AT.search(rest)) or _NAME_INSIDE.search(found.group(0)):
            return None
        rest = _POINTS_AT.sub(" ", rest)
        if (
            _first_person(rest, request=True)
            or _participants(rest, names or set())
            or _DAY.search(rest)
            or _ZH_PARTICULAR.search(rest)
        ):
            return None
        return "works on the text it carries"
    if not is_question(s) or _first_person(s):
        return None
    # Things compared, and the two ends of a distance, are kinds and places, named or not.
    compared = bool(_COMPARE_EN.search(s) or _COMPARE_ZH.search(s) or _DISTANCE.search(s))
    participants = set() if compared else _participants(s, names or set())
    if _HAS_CJK.search(s):
        zh = re.sub(f"[^{_CJK}]+", " ", s).strip()
        if participants or _ZH_PARTICULAR.search(zh) or _DAY.search(s):
            return None
        if compared:
            return "asks about kinds"
        # A generic adverb with the pronoun dropped may be the person's habit (一般几点接孩子？); with
        # a named place it is what holds there (加拿大的幼儿园一般几点放学？).
        if _GENERIC_ZH.search(zh) and (
            any(bilingual.proper_name(w) for w in bilingual.words(zh)) or _generic_subject_zh(s)
        ):
            return "asks about kinds"
        there = _ZH_THERE_IS.match(zh)
        if there and bilingual.proper_name(there.group("place")):
            return "asks about kinds"  # 台中有什么好吃的: what there is in a named place
        return None  # a bare Chinese question: pronouns dropped, nouns definite by default
    firm, soft = _particular_en(s, participants, names is not None)
    if firm:
        return None
    # Without the store's names (no facts yet) any word may name someone of theirs: only the
    # forms that speak of kinds say so.
    if compared or _GENERIC_EN.search(s) or not soft and names is not None:
        return "asks about kinds"
    return None


def without_material(text: str) -> str:
    """A request that works on the text it carries, without that text ("Make this politer: see
    you at 5" is "Make this politer"): what it quotes says nothing of what the turn is about.
    Any other text is returned as it is."""
    if self_contained(text) != "works on the text it carries":
        return text
    return _MATERIAL.sub(" ", _clean(text)).strip()


# --- the public reading -------------------------------------------------------


# What follows a noun phrase, never a verb and its object: 的, a sentence adverb, a verb of one or
# two characters in the completed aspect (推迟了, 到了), 被 (the passive).
_ZH_AFTER_CONSTITUENT = re.compile(
    f"^(?:的|又|已经|已|都|也|还|刚刚|刚|就|才|终于|被|正在|一直|现在|目前)|^[{_CJK}]{{1,2}}[了过](?![{_CJK}]*吗)"
)


# A habitual frame: what a sentence says holds from now on or on every occasion of a kind, not
# once. One closed class of both languages' grammar: adverbs of time from now on ("from now on",
# "going forward", "in future", 以后/今后/从现在起), adverbs of frequency that open a clause ("always",
# "never", "whenever", "every time"), and quantifiers over occasions ("every/each/any/per" with a
# noun that is no unit of time, "anything", "when you…", 凡是/每次/每当/一律).
# Two scopes, because the two readers ask different things:
# - ``OPENING`` (memory.text.acts): an order under the frame says how kept is to do things from now
#   on, not an act to do now ("from now on, number the steps", "以后回复我不要用表格", "凡是要列好几项的，
#   麻烦加上编号"): no tool does it; the write pass keeps it as said. Here the frame must govern the
#   sentence: a time adverb anywhere in an English one, a frequency adverb or a Chinese frame opening
#   it. A quantifier inside an order is no frame: "send me anything Dana sends", "book a room for
#   each speaker" ask for an act now.
# - ``ANYWHERE`` (memory.soul): a wish said as a rule for every later reply is said to the one who
#   replies ("bullet points from here on", "two lines max per reply", 每次都先说结论): the frame and the
#   quantifiers anywhere in a clause. "every morning", "each Friday" repeat a task in time; they are
#   no rule for kept's replies, so units of time are left out of the quantifiers.
OPENING, ANYWHERE = "opening", "anywhere"
_FROM_NOW_EN = r"from\s+(?:now|here)\s+on(?:\s+out)?|going\s+forward|in\s+(?:the\s+)?future"
_FREQUENCY_EN = r"whenever|every\s+time|always|never"
_TIME_UNITS = r"(?:morning|afternoon|evening|night|day|week|month|quarter|year|hour|weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?"
_QUANTIFIED_EN = rf"when\s+(?:you|I)|(?:every|each|any|per)\s+(?!{_TIME_UNITS}\b)\w+|anything|everything"
_HABIT_OPENING_EN = re.compile(rf"\b(?:{_FROM_NOW_EN})\b|^\W*(?:{_FREQUENCY_EN})\b", re.I)
_HABIT_ANYWHERE_EN = re.compile(rf"\b(?:{_FROM_NOW_EN}|{_FREQUENCY_EN}|{_QUANTIFIED_EN})\b", re.I)
_FROM_NOW_ZH = "以后|今后|往后|从今往后|从现在起|从现在开始|从今天起"
_QUANTIFIED_ZH = "凡是|每次|每当|一律"
_HABIT_OPENING_ZH = re.compile(f"^(?:{_FROM_NOW_ZH}|{_QUANTIFIED_ZH})")
_HABIT_ANYWHERE_ZH = re.compile(f"{_FROM_NOW_ZH}|{_QUANTIFIED_ZH}")


@reads_simplified
def habitual(text: str, scope: str = OPENING) -> bool:
    """Whether ``text`` is said under a habitual frame (see the comment above): ``OPENING``, the
    frame governs the sentence, so an order in it is a standing rule and no act now; ``ANYWHERE``,
    a frame or a quantifier over occasions anywhere in it (a rule for every later reply)."""
    if scope == ANYWHERE:
        return bool(_HABIT_ANYWHERE_EN.search(text) or _HABIT_ANYWHERE_ZH.search(text))
    if _HAS_CJK.search(text):
        return bool(_HABIT_OPENING_ZH.match(_zh_body(text)[1]))
    return bool(_HABIT_OPENING_EN.search(_LEAD_IN.sub("", _clean(text))))


@reads_simplified
def act(sentence: str) -> str:
    """REQUEST, QUESTION or STATEMENT for one sentence."""
    found = _act(sentence)
    return STATEMENT if found == REQUEST and habitual(sentence) else found


# What a Chinese run inside an English sentence is read as: a noun (a name the lexicon lacks).
_ZH_NOUN = "Zh"


def _in_chinese_clause(sentence: str) -> bool:
    """Whether an English word of ``sentence`` is a constituent of a Chinese clause: a Chinese
    function word or aspect mark follows it ("room 他们那边 book 好了": the verb's completion is
    Chinese grammar), so its English words are no English clause of their own."""
    return any(_ZH_CLAUSE_MARK.match(m.group(1)) for m in re.finditer(f"[A-Za-z][\\w'-]*\\s*([{_CJK}]+)", sentence))


# After an English word, what only a Chinese clause puts there: a sentence adverb, or an aspect mark
# closing a verb (not 的: an English noun phrase takes 的 too, "Oriole的 furniture list").
_ZH_CLAUSE_MARK = re.compile(
    f"^(?:又|已经|已|都|也|还|刚刚|刚|就|才|终于|被|正在|一直)|^[{_CJK}]{{0,2}}[了过](?![{_CJK}]*吗)"
)


def _act(sentence: str) -> str:
    if _HAS_CJK.search(sentence):
        zh = _zh_act(sentence)
        # Mixed turns ("帮我 book the room"): the Chinese frame decides; an English one may still ask.
        # What is left without the Chinese is read only when it can be a clause (a verb and what it
        # acts on: two Latin words); digits and one name ("12月12号", "Penang 又推迟了") are no clause.
        # And only a run that opens a clause (at the start, or after a stop or a comma): inside a
        # Chinese clause English words are a part of it ("上午是 focus time": a noun after 是).
        # An English sentence with Chinese words in it ("Call me 阿杰 from now on") is read whole.
        # A Latin run that a Chinese function word follows is a part of the Chinese clause, not a
        # clause of its own: before 的 it modifies a noun ("open 的 CAPA"), before an adverb or a
        # verb in the completed aspect it is the clause's subject ("Spring menu 又推了一周", "Launch
        # 推迟了"). English puts no adverb or aspect mark after its verb's object, so such a run is
        # no verb and object ("spring the menu"). Closed classes of Chinese grammar (the
        # attributive particle, sentence adverbs, 了/过), true of any sentence.
        opening = re.match(f"\\s*([A-Za-z][^{_CJK}，,。；;：:！!？?]*)([{_CJK}]*)", sentence)
        if opening and not _ZH_AFTER_CONSTITUENT.match(opening.group(2)):
            # Inside an English sentence a Chinese run is a noun, most often a name ("message 阿杰 at
            # the 仓库: …", "get 苏敏 on it"): it is read as one (a word the lexicon lacks, capitalised),
            # so the English frame keeps its object; cut out, "message : …" would be a label.
            named = re.sub(f"[{_CJK}]+", f" {_ZH_NOUN} ", sentence)
            rest = re.sub(f"[{_CJK}]+", " ", sentence)
            # The English that opens the sentence is its grammar, so it gives the mood: "Could you
            # get 结构 engineer 郑海涛 and me in a room…?" is a polite request, though the Chinese
            # reading sees only the question mark. Only when the opening run is a clause itself (two
            # Latin words): a name before a Chinese clause ("Harbor 项目的 Lumen 项目经理叫什么？") is not.
            en = _en_act(named) if len(re.findall(r"[A-Za-z]+", opening.group(1))) >= 2 else STATEMENT
            if en != STATEMENT:
                return en
        if not opening or _ZH_AFTER_CONSTITUENT.match(opening.group(2)) or _in_chinese_clause(sentence):
            named = ""
            runs = re.finditer(f"(?:^|[，,。；;：:！!])\\s*([^{_CJK}，,。；;：:！!？?]+)([{_CJK}]*)", sentence)
            rest = " ".join(
                m.group(1)
                for m in runs
                if len(re.findall(r"[A-Za-z]+", m.group(1))) >= 2 and not _ZH_AFTER_CONSTITUENT.match(m.group(2))
            )
        return zh if zh != STATEMENT or len(re.findall(r"[A-Za-z]+", rest)) < 2 else _en_act(named or rest)
    return _en_act(sentence)


@reads_simplified
def acts(text: str) -> list[str]:
    """The act of each sentence of ``text``; a sentence that is no request but joins one as a
    clause of its own also reads as a request ("We're out of toner, order more"; "I want to
    surprise her - book a table"; "墨盒快没了，帮我买两个"). The sentence keeps its own reading too, so
    a question stays one ("Order lunch - anything I should avoid?" both asks and requests)."""
    return list(_acts(text))


@lru_cache(maxsize=2048)
def _acts(text: str) -> tuple[str, ...]:
    # Read once per text: recall asks of one turn several times (request? question? material?).
    out = []
    for a, b in sentences(text):
        sentence = text[a:b]
        if reported(sentence):
            out.append(STATEMENT)  # what a named source said: its orders were the person's
            continue
        found = act(sentence)
        out.append(found)
        clauses = _clauses(sentence)
        standing = habitual(sentence)  # its clauses are under the habitual frame too
        if found != REQUEST and not standing and not about_talk(sentence) and any(map(_clause_request, clauses)):
            out.append(REQUEST)
        elif found == REQUEST and any(j not in (",", "，", "head,") and act(c) == QUESTION for j, c in clauses):
            out.append(QUESTION)  # "Book the caterer - anything I should leave off?" asks too
    return tuple(out)


# A head that names where what follows comes from ("Just heard from Otieno: …", "Email from the
# client: …", "Word from Dana - …"): a word, then "from" and a name or a noun phrase, then a colon
# or a dash. What follows is reported; an order in it was given to the person by that source
# ("make it 420 cartons"), not to kept. "From now on: …" has no word before "from".
_FROM_SOURCE = re.compile(
    r"^\W*(?P<head>(?:(?:[^\W\d_][\w'’-]*\s+){1,4}from|per|according\s+to)\s+"
    r"(?:[A-Z\u3400-\u9fff][\w\u3400-\u9fff'’-]*|(?:the|our|my|their|his|her)\s+[\w'’-]+)"
    r"(?:\s+[\w'’-]+){0,3}?)\s*(?P<mark>:|：|,|\s[-–—]+\s)\s*\S",
    re.I,
)
# The same by who said it: a named someone (or he, she, they) and a verb in its inflected form
# ("Marcus said:", "Priya says -", "the client wrote:", "Dana texted me:") before a colon, a dash
# or a quotation. The verb is any the lexicon knows as an inflected verb: a subject and its
# finite verb before what they said.
_SAID_BY = re.compile(
    r"^\W*(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?|[\u3400-\u9fff]{1,4}|he|she|they|(?:the|our|my)\s+[a-z][\w-]*)"
    r"\s+(?:just\s+|also\s+)?(?P<verb>[a-z]+)(?:\s+(?:me|us))?\s*(?::|：|\s[-–—]+\s|,?\s*[\"“'‘])"
)


@reads_simplified
def reported(sentence: str) -> bool:
    """Whether ``sentence`` passes on what a named source said (``_FROM_SOURCE``, ``_SAID_BY``). Not
    when the head is an order itself ("Tell Dana from the warehouse: …", "Collect the samples from the
    lab: …"): a verb acting on its object, with a place or a sender after "from"."""
    s = _clean(sentence)
    source = _FROM_SOURCE.match(s)
    if source:
        head = source.group("head")
        if re.match(r"(?:per|according)\b", head, re.I):
            return True  # "Per Gideon: …", "according to Dana, …"
        # After "from", only a colon or a dash marks a source ("Aside from Dana, invite the team" asks).
        return source.group("mark").strip() != "," and not _imperative(head)
    said = _SAID_BY.match(s)
    if said is None:
        return False
    return said.group("who").lower() not in ("i", "we") and _inflected_verb(said.group("verb"))


def _clauses(sentence: str) -> list[tuple[str, str]]:
    """The clauses of a sentence after its first break, each with the break before it ("-", ";"
    or ","), and the first clause when a comma ends it ("nudge yusuf, they…": a label, to
    ``_en_act``)."""
    # An ellipsis is a pause between clauses as a dash is (那几台叉车的电池都不太行了……交给周凯去问价吧).
    parts = re.split(r"(\s+[-–—]+\s+|\s*[;；]\s*|\s*…+\s*|\s*[，,]\s*)", sentence)
    if len(parts) < 3:
        return []
    out = [("head,", parts[0])] if parts[1].strip() in (",", "，") else []
    for i in range(2, min(len(parts), 9), 2):
        joint, clause = parts[i - 1].strip(), parts[i]
        if joint not in (",", "，") and not joint.startswith("…"):
            # A clause after a dash or a semicolon stands as a sentence up to the next dash or
            # semicolon, its commas inside it: "- brew schedule, tanks, the lot" is a list, read
            # whole, not "brew schedule" (a verb and its object) cut off at the first comma.
            k = i + 1
            while k < len(parts) and parts[k].strip() in (",", "，"):
                clause += parts[k] + parts[k + 1]
                k += 2
        out.append((joint, clause))
    return out


# Conjunctions that join clauses, not items of a list ("and", "or" join both): what follows one
# after a comma is a clause of its own.
_CLAUSE_CONJUNCTION = re.compile(r"^(?:but|yet)\b", re.I)


def _clause_request(joint_and_clause: tuple[str, str]) -> bool:
    """Whether a clause joined to a sentence asks kept to act. After a dash or a semicolon a
    clause stands as a sentence ("…away - can you line someone up?"); around a comma, a list item
    or an apposition may look like a verb and its object ("account number HV-2231", "Sabine
    Morel"), so an English one must open with a word the lexicon knows only as a verb ("…, get
    more"), or be a verb and a name the lexicon lacks before the comma ("nudge yusuf, they…"), or
    a frame that asks ("…, can you…"); a Chinese one is read as it is ("…，帮我买两个")."""
    joint, text = joint_and_clause
    text = text.strip()
    if not text or about_talk(text) or act(text) != REQUEST:
        return False
    if joint not in (",", "，", "head,") or written_in_chinese(text) or _CLAUSE_CONJUNCTION.match(text):
        # "…, but please reply to her now": a conjunction of clauses opens a clause, no list item.
        # A Chinese clause is read as it is; an English one naming a Chinese place or firm ("…, line
        # producer at 青岚影像") by the English tests below.
        return True
    # Chat spellings of "you" as the sentence reading has them ("…, can u sort that").
    body = _after_adverbs(_LEAD_IN.sub("", _you(_clean(text))))
    if any(frame.match(body) for frame in _FRAMES) or _WANT_DONE.match(body):
        return True  # "…, can you…"; "…, I want it on my desk by 4": a clause with its own subject
    words = [w.lower() for w in _WORD.findall(body)]
    pos = _lemmas(words[0]) if words else {}
    # A preposition the lexicon also lists as a verb ("…, up the strath past Lairg", "…, back at the
    # depot") opens a phrase of place or time after a comma, not an order.
    if not words or words[0] not in pos.get("VERB", ()) or words[0] in _PREPOSITIONS_EN:
        return False
    if len(words) > 2 and _foreign_word(words[1]) and not (_lemmas(words[2]) or words[2] in STOP_WORDS):
        # "…, invite já saiu, eu só apareço": after a comma, an English verb's look-alike before two
        # words of another language is a word of that language's clause ("the invite already went
        # out"); a lone one may be a name written small ("…, invite josé and the band").
        return False
    if set(pos) <= {"VERB", "AUX"} or len(words) > 1 and words[1] in _DETERMINERS | _OBJECT_PRONOUNS:
        return True  # "…, get more", "…, order a box", "…, just push it to…"
    return joint == "head," and len(words) == 2 and not _lemmas(words[1])


# A possessive names a thing of the person's ("my manager", "our vendor", 我的牙医).
POSSESSIVE = re.compile(r"\b(?:my|our|mine|ours)\b|我的|我们的", re.I)
_PERSON_DID = re.compile(r"\b(?:did|have|had|was|were)\s+(?:i|we)\b", re.I)


@reads_simplified
def about_the_person(text: str) -> bool:
    """Whether ``text`` speaks of the person's own things or doings: a possessive ("my", "our",
    我的) or the person as the subject of what happened ("did I", "have we")."""
    return bool(POSSESSIVE.search(text) or _PERSON_DID.search(text))


@reads_simplified
def is_request(text: str) -> bool:
    """Whether ``text`` asks kept to do something (a polite request in question form counts)."""
    return REQUEST in acts(text)


# --- whom the asked act is for: someone in the world, or only the person themself -----------
#
# kept's acting tools act on third parties and their things: a meeting with people, a message to
# someone, a task for someone, an item on a list. A request whose asked act has no participant
# but the speaker asks for kept's attention to the person's own doings, which no tool does:
# "remind me to call the bank Friday", "nudge us about it tomorrow", "don't let me forget to send
# Kenji the deck", 周五记得提醒我交房租, 你帮我记着, 别让我忘了给房东打电话. Read by grammar, not by verbs:
# - the speaker (me/us, 我/我们) as the verb's only object, with nothing after it but a time, a
#   condition, a thing pointed back at ("about it") or the speaker's OWN act: a to-infinitive or
#   a bare verb whose subject is the object ("remind me to call…", "let me forget…": object
#   control), a that-clause, or in Chinese a pivot verb phrase (提醒我交房租, 催我把报告写完, 叫我
#   早点睡; what follows 我 is a verb or a coverb by jieba's tagger, not a thing given: 发我一份报价);
# - a verb of help (help me / 帮我 / 替我) is transparent: kept does what follows ("help me book
#   a room" acts; 帮我记着 does not), and a Chinese verb in the durative (记着, 盯着点) or held (记住)
#   aspect with no object asks kept to stay in a state, which no tool is.
# A second object after "me" ("send me the notes", "book me a table"), a person ("remind Dana to…"),
# a thing the speaker is put into ("add me to the standup") or the tool's own noun ("add a task
# for me…") leaves the act in the world. The promise inside such a turn is the person's, and the
# write pass keeps it as before (memory.text.commitments reads "remind me to…" as one): this
# reading only says that no tool is asked for.

_HELP_ME = re.compile(r"^(?:help|assist)\s+(?:me|us)\s+(?:to\s+)?(?=\w)", re.I)
_ME_THEN = re.compile(r"^(?P<verb>[a-z][\w'-]*)\s+(?:me|us)\b(?P<after>.*)$", re.I)
# Words of when that are left after the times are blanked ("on Friday", "first thing tomorrow").
_WHEN_LEFT = re.compile(
    r"\b(?:on|at|by|around|about(?=\s*$)|this|next|first\s+thing|again|later|sometime|soon|then|in\s+the|the|day)\b",
    re.I,
)
_ABOUT_THAT = re.compile(r"^(?:about|of|on|re)\s+(?:it|that|this|those|these|them)\b", re.I)


def _without_when(text: str) -> str:
    """``text`` with the days and times it names blanked (memory.text.dates' phrases and quick
    marks): what is left says who does what."""
    from datetime import date

    from memory.text import dates

    try:
        found = dates.find(text, date.today())
    except dates.DateError:
        found = []
    for start, end, _, _ in reversed(found):
        text = text[:start] + " " + text[end:]
    return dates.without_times(text)


def _en_for_the_speaker(part: str) -> bool:

    s = _LEAD_IN.sub("", _clean(part)).strip()
    s = _TAG.sub("", s).strip().rstrip("?!. ")
    lead = _LEADING_CLAUSE.match(s)
    s = lead.group("rest") if lead else s
    for frame in _FRAMES:
        m = frame.match(s)
        if m:
            s = m.group("rest")
            break
    s = re.sub(r"^(?:(?:please|kindly|just|also|maybe|always|don't|dont|do\s+not|never)\s+)+", "", s, flags=re.I)
    s = _HELP_ME.sub("", s)
    me = _ME_THEN.match(s)
    if not me or "VERB" not in _lemmas(me.group("verb").lower()):
        return False
    if _on_the_speaker_only(s):
        return True  # "hold me to it", "nag me if I slip"
    after = _CONDITION.sub("", me.group("after"))
    after = _WHEN_LEFT.sub(" ", _without_when(after)).strip(" ,")
    if not after or after.lower().startswith("that ") or _ABOUT_THAT.match(after):
        return True  # "remind me Friday", "remind me that the rent is due", "ping me about it"
    words = [w.lower() for w in _WORD.findall(after)]
    verb = words[1] if words[0] == "to" and len(words) > 1 else words[0]
    if _HAS_CJK.search(verb):
        return words[0] == "to" and _zh_opens_verb_phrase(after.split(None, 1)[1])  # "remind me to 给妈妈打电话"
    pos = _lemmas(verb)
    if verb not in pos.get("VERB", ()):
        return False  # "add me to the standup", "send me the notes": a thing, not the speaker's act
    # "remind me to call…": a to-infinitive; "let me forget…": a bare verb, one the lexicon knows
    # only as a verb (a noun there is a second object: "get me coffee").
    return words[0] == "to" or set(pos) <= {"VERB", "AUX"}


_ZH_FRAME_LEFT = re.compile(
    "^(?:到时候|到时|那时候|回头|这事|这件事|你|您|请|麻烦你?|记得|一定|千万|务必|要|就|再|也|帮忙|[，,\\s])+"
)
_ZH_HELP_ME = re.compile("^(?:帮|替)(?:我|我们)(?:一下)?")
_ZH_STATE = re.compile(f"^(?:[{_CJK}]{{1,2}}|[A-Za-z]+)\\s*[着住](?:点|些|一点|一下)?[啊吧哦呀嘛哈呢]*$")
_ZH_PIVOT = re.compile(
    f"^(?:别|不要|不许|不准)?(?P<verb>(?!帮|替|为|给|跟|和|对|向|把|被|称呼|喊)[{_CJK}]{{1,2}}|[A-Za-z]+)\\s*我(?:们)?\\s*"
    r"(?:一下|一声)?\s*(?P<rest>.+)$"
)


def _zh_for_the_speaker(part: str) -> bool:
    body = _without_when(_zh_body(part)[1])
    for _ in range(3):  # times and frames in any order: 周五早上记得…, 到时候你…
        body = _ZH_FRAME_LEFT.sub("", body.strip()).strip()
    body = _ZH_HELP_ME.sub("", body).strip()
    if not body:
        return False
    if _ZH_STATE.match(body) or _ZH_ON_ME_ONLY.match(body):
        return True
    pivot = _ZH_PIVOT.match(body)
    if not pivot:
        return False
    rest = pivot.group("rest").strip()
    if re.match(r"(?:to|that)\s+[a-z]", rest, re.I):
        return True  # "记得 nudge 我 to send the deck": the English of the same shape
    return _zh_opens_verb_phrase(rest)


def _zh_opens_verb_phrase(text: str) -> bool:
    """Whether ``text`` opens with a verb phrase (the speaker's own act after a pivot: 交房租, 把报告
    写完, 给房东打电话, 明天买牛奶) rather than a thing (一份报价, 那封邮件, 结果): jieba's tagger, its
    dictionary's tag where context made a verb a noun (交房租 is tagged 交/n in context, 交/v alone)."""
    from memory.text import people

    posseg = people._tagger()
    table = posseg.dt.word_tag_tab
    for token in posseg.cut(text):
        flag = token.flag
        if flag in ("t", "f", "d", "x") or token.word in ("一下", "一声", "要", "得", "去"):
            if token.word == "去":
                return True  # 去 + a verb: the speaker goes and does it
            continue  # a time and its 前/后, an adverb (早点, 一定), a mark: what follows decides
        return flag.startswith("v") or flag in ("p", "l") or (table.get(token.word) or "").startswith("v")
    return False


def _for_the_speaker(sentence: str) -> bool:
    """Whether every part of ``sentence`` that asks kept to act asks only for its attention to
    the person's own doings (see the comment above). The parts are the sentence's clauses; when
    none asks on its own ("If I forget, remind me"), the whole sentence is read."""
    parts = [p for p in re.split(r"\s+[-–—]+\s+|\s*[;；，,、]\s*", sentence) if p.strip()]
    asking = [p for p in parts if act(p) == REQUEST] or [sentence]
    # A mixed part is read in both grammars ("Remind me to 给妈妈打电话 tomorrow", "记得 nudge 我…").
    return all(_HAS_CJK.search(p) and _zh_for_the_speaker(p) or _en_for_the_speaker(p) for p in asking)


@reads_simplified
def asks_to_act(text: str) -> bool:
    """Whether ``text`` asks kept to act on someone or something besides the person: a request
    (``is_request``) whose asked act is not only kept's attention to what the person will do
    themself ("remind me to call the bank", 你帮我记着，到时候催我一下). Only such a request licenses
    an acting tool (a meeting, a message, a task, a list item)."""
    for a, b in sentences(text):
        sentence = text[a:b]
        if REQUEST in _acts(sentence) and not _for_the_speaker(sentence):
            return True
    return _handed_over_by_a_time(text)


def _handed_over_by_a_time(text: str) -> bool:
    """Work handed to a named person with a time it is due by ("Kasia should handle the sand order
    - by 3pm the day after tomorrow", "郑浩 should take it, by half four tomorrow"): said as a
    statement of who should do it, it asks for the task all the same. Without a time it may only
    report who is able ("Priya can handle it"), so the time is required."""
    from memory.text import dates

    plain = text.replace("’", "'")
    return bool(re.search(_HANDING_OVER, plain, re.I)) and dates.mentions_time(plain)


@reads_simplified
def asks_for_the_speaker(text: str) -> bool:
    """A request that asks only to remind the person or hold them to their own doings: a request,
    and no act on anyone else (``asks_to_act``). No tool does it; the promise is the person's."""
    return is_request(text) and not asks_to_act(text)


# Asking leave to act: "ok for Dana to call me at 9?", "is it alright to send it tonight?", "can I
# waive the fee?", "可以让他周六打给我吗？". An action is proposed, and whether it may happen is asked:
# the person's standing rules decide that as much as they govern a request.
_LEAVE_EN = re.compile(
    r"^(?:(?:is|would|will)\s+(?:it|that|this)\s+(?:be\s+)?)?(?:ok(?:ay)?|alright|all\s+right|fine|cool|possible)"
    r"\s+(?:for\s+[\w'’.-]+(?:\s+[\w'’.-]+)?\s+)?(?:to|if)\s+\S"
    r"|^(?:can|could|may|should|shall)\s+(?:i|we)\s+(?!\w+\s+(?:you|ask)\b)\S"
    r"|^(?:am|are|is)\s+(?:i|we|\S+)\s+allowed\s+to\s+\S",
    re.I,
)
_LEAVE_ZH = re.compile(
    r"^(?:我|我们)?(?:可以|能不能|可不可以|能否|能)(?!帮|替)[^？?]{2,}(?:吗|么)?\s*[？?]\s*$"
    r"|[^？?]{4,}(?:可以|行|好|没问题)(?:吗|么|不)\s*[？?]?\s*$"
)


@reads_simplified
def asks_leave(text: str) -> bool:
    """Whether ``text`` asks if some action may be done ("ok for Dana to ring me Saturday 9am?"):
    a question, but one the person's standing rules answer, as they govern requests."""
    for a, b in sentences(text):
        s = _clean(text[a:b])
        stripped = _LEAD_IN.sub("", s).strip()
        if _LEAVE_EN.match(s) or _LEAVE_EN.match(stripped):
            return True
        if _HAS_CJK.search(s) and _LEAVE_ZH.search(_zh_body(s)[0]):
            return True
    return False


@reads_simplified
def is_question(text: str) -> bool:
    """Whether ``text`` asks a real question ("Did I send anything to Priya?"); "Can you send…?" is not one."""
    return QUESTION in acts(text)


# A question whether something happened or was done: "Did I send…?", "Has it gone out?", "有没有发"…
_WHETHER_DONE = re.compile(
    r"\b(?:did (?:i|we|you)|have (?:i|we|you)|has (?:it|that|the)|had (?:i|we)|was (?:it|the)|were (?:they|the)"
    r"|is (?:it|the) (?:done|sent)|whether|ever)\b|是否|有没有|有无|做了吗|发了吗|了吗|没有",
    re.I,
)


@reads_simplified
def asks_whether_done(text: str) -> bool:
    """Whether ``text`` asks if something happened ("Did I ever send Priya the doc?", "合同发了吗？"):
    such a question is answered from the record of what was done, closed promises included."""
    return _WHETHER_DONE.search(text) is not None


@reads_simplified
def asks_only(text: str) -> bool:
    """A question and no request: a turn that must look things up and never act."""
    found = acts(text)
    return QUESTION in found and REQUEST not in found


# --- what a question asks for ---------------------------------------------------

# A wish for help said as a statement: "I could use some advice on the pitch", "I'm stuck on
# the migration", "not sure how to word this", "有什么建议". Closed classes: what one asks for
# (help, advice, ideas…), the frames that say one lacks it, and their Chinese counterparts.
# A statement with one is no fact to note only: the model answers it.
_HELP_NOUNS = r"(?:help|advice|tips?|ideas?|suggestions?|pointers?|recommendations?|thoughts|guidance|input|feedback)"
_WANTS_HELP = re.compile(
    r"\b(?:need|want|'d like|would like|could use|'d love|would love|looking for|welcome|appreciate)\b[^.!?]{0,30}?\b"
    + _HELP_NOUNS
    + r"\b|\bany\s+"
    + _HELP_NOUNS
    + r"\b|\b(?:i'm|i am|we're|we are)\s+(?:so\s+|really\s+|a bit\s+|completely\s+)?(?:stuck|struggling|lost|overwhelmed|swamped|drowning)\b"
    + r"|\b(?:not sure|unsure|no idea|(?:don't|do not|didn't|did not) know|can't figure out|wonder(?:ing)?)\s+(?:how|what|whether|if|which|where|when|why)\b"
    + r"|怎么办|帮帮我|求助|(?:有什么|给(?:我)?(?:点|些|个)?|求)建议|出(?:个|点)?主意|支(?:个|一)?招|不知道(?:怎么|该|如何|要不要|是否)|拿不定主意",
    re.I,
)


@reads_simplified
def asks_for_help(text: str) -> bool:
    """Whether a message wishes for help or advice, even as a statement ("I'm swamped with the
    launch, any tips?", "I need ideas for the offsite")."""
    return _WANTS_HELP.search(text.replace("’", "'")) is not None


# A request to tell someone something, by its shape: a verb, the person, then what to say as
# a clause after "that" or after a colon ("Tell Priya that the offsite moved to Porto", "Message
# Helen Marsh that …", "Email Jana: the invoice was paid"). Not a list of verbs: any verb in that
# frame conveys a message. "Give Tariq that job" is no clause; "Book a room with Priya that …"
# has no person right after its verb.
_PERSON = (
    r"(?:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}|[\u3400-\u9fff]{1,4}|(?:my|our|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
)
# The subject that opens a told clause: a pronoun (personal or indefinite: "that nobody uses the
# oven"), a determiner, a name or a number.
_CLAUSE = r"(?:nobody|none|everyone|everybody|everything|someone|somebody|something|anyone|anybody|nothing|no|all|both|each|the|a|an|i|i'm|i'll|i've|i'd|we|we're|we'll|we've|you|he|she|they|it|it's|our|my|his|her|their|this|these|those|there|[A-Z]\w*|\d)\b"
_TELL = re.compile(
    r"(?:^|[.!?;]\s+)(?i:(?:please|pls|kindly|just|also|and|can you|could you|would you|will you)\s+)*"
    # "Write to Omar that …", "Let Jonas know that …"
    # The person may carry where they are, or a relative clause, before the colon or the dash ("ping
    # 小邓 on the modelling team: …", "msg Kirsty who does the cottages - …").
    r"[A-Za-z]+\s+(?:to\s+)?"
    + _PERSON
    + r"(?:(?:\s+(?:on|in|at|from)\s+(?:the|our|my)\s+[^:：.!?;]{1,30}?|\s+who\s+[^:：.!?;–—]{1,40}?)?(?:\s*[:：]|\s+[-–—]+)\s*\S"
    + r"|(?:\s+know)?\s+that\s+"
    + _CLAUSE
    + ")",
)


# The same request by the noun of what is sent, with whom it goes to: "send Keeley Marsh a message
# saying…", "a message to Nadia Bloom saying…", "message Hannah and tell her…", "let her know the
# list is cancelled", 给何静发条消息, 发个 message 给周怡婷. The noun is the message tool's own (a
# message, 消息/信息), and the frames are the grammar of sending one (a recipient after the verb or
# after to/给, what it says after saying/that/a colon, or a verb of telling with its addressee).
_TELL_NOUN = re.compile(
    r"\b(?:a|an|the)\s+"
    + MESSAGE_NOUN
    + r"(?:\s+to\s+"
    + _PERSON
    # where they are ("a note to Niamh on reception - …")
    + r"(?:\s+(?:on|in|at|from)\s+(?:the\s+|our\s+|my\s+)?[^:：.!?;,–—-]{1,30}?)?"
    + r")?(?:\s+(?:saying|that|telling)\b|\s*:|\s+[-–—]+\s)"
    r"|\b(?:and|then)\s+(?:let|tell)\s+(?:her|him|them)\b"
    r"|^(?i:(?:please|pls|kindly|just|also|can you|could you|would you|will you)\s+)*let\s+(?:her|him|them|"
    + _PERSON
    + r")\s+know\s+(?:that\s+)?"
    + _CLAUSE,
    re.I,
)


@cache
def _tell_zh() -> re.Pattern[str]:
    noun = message_noun_zh()  # the message's nouns, with those of other places from the dictionary
    return re.compile(
        rf"(?:给|跟|和|向)[^，,。：:；;！!？?]{{1,12}}?(?:发|回|写)(?:个|条|一条|封|一封|一下)?\s*(?:{noun})"
        rf"|(?:发|回|写)(?:个|条|一条|封|一封)?\s*(?:{noun})\s*给"
        # The English verbs of sending borrowed into the frame ("帮我 send 个 message 给 Tony"); not
        # any verb: "draft 一封 email 给 client" writes a draft and sends nothing.
        rf"|\b(?:send|forward)\s*(?:个|条|一条|封|一封)?\s*(?:{noun})\s*给"
        # The English noun of a message used as its verb, its recipient after 给 ("帮我 email 给 client,
        # 说…"; LINE 给他 in Taiwan), not the speaker or kept; after a measure word it is the noun
        # ("draft 一封 email 给房东": what is drafted).
        rf"|(?<![个条封份])(?<![个条封份]\s)\b{MESSAGE_NOUN}\s*(?:一下)?\s*给\s*(?!我|你|您|咱)\S"
        # 给老蔡带个话：… (a word carried to someone: the verb-object compounds of passing a message on)
        r"|(?:给|跟|和|向)[^，,。：:；;！!？?]{1,12}?(?:带|捎|传|递)(?:个|句|一句)?话儿?",
        re.I,
    )


# A request whose verb is the sending of a message (``people.MESSAGE_VERB``), to someone other than
# the speaker: "text Sunita the gate code", "Email the report to the board".
_SENDING_VERB = re.compile(
    r"^\W*(?:(?:please|pls|just|can\s+you|could\s+you|would\s+you|will\s+you)\s+)*"
    + MESSAGE_VERB
    + r"\s+(?!(?:me|us|myself|it\s+to\s+me)\b)\S",
    re.I,
)


@reads_simplified
def asks_to_tell(text: str) -> bool:
    """Whether a request asks kept to tell someone something ("Tell Priya that the offsite moved
    to Porto", "Message Helen Marsh that the report came in", "Email Jana: …", "Send Keeley a
    message saying…", 给何静发条消息…): a message. "Remind me to tell Priya that…" asks no message:
    the telling is the person's own (``asks_to_act``)."""
    if not asks_to_act(text):
        return False
    plain = text.replace("’", "'")
    if _TELL.search(plain) or _TELL_NOUN.search(plain) or _HAS_CJK.search(plain) and _tell_zh().search(plain):
        return True
    from memory.text import people

    # The verb of sending a message ("text Sunita the gate code"), or a verb of telling with its
    # addressee and the told clause ("tell Oisín load-in is at 3", "let Marcus know, …", 跟黎姐说一声，…):
    # memory.text.people reads where the message begins. Each sentence is read as it stands and as
    # what its frame asks ("I need you to text my sister that…", "Can you message the caterer: …").
    return any(
        _SENDING_VERB.match(part) or _TELL.match(part) or people.telling(part) is not None
        for part in _asked_parts(plain)
        if part
    )


def _asked_parts(text: str) -> list[str]:
    """Each sentence of ``text`` without its lead-in, and what a frame of asking in it asks done
    ("I need you to text Ana that…" -> "text Ana that…"; ``_FRAMES``)."""
    out = []
    for a, b in sentences(text):
        body = _LEAD_IN.sub("", text[a:b].strip())
        out.append(body)
        for frame in _FRAMES:
            m = frame.match(body)
            if m:
                out.append(_LEAD_IN.sub("", m.group("rest")))
                break
        asked = _ZH_ASKED.match(body)
        if asked:
            out.append(body[asked.end() :])  # "帮我跟李姐说一声，…": what 帮我 asks done
    return out


# A request to hand a piece of work to someone, by the task tool's own nouns and verbs: the work
# given to a person as a task or a job ("Give Marco the job of sorting the permits", "put a task on
# Ollie's list", "Assign Thandi the forms"), or in Chinese a verb of dispatching with the noun of the
# work (给陈晨派个任务, 分配一个任务, 派个活) and the handing-over verbs with someone other than the
# speaker or kept as the receiver (把核对发票的活儿交给阿强, 这件事交给小何). Closed classes of the
# grammar of assigning work, as ``_TELL_NOUN`` reads a message by the message's noun.
_WORK_NOUN_EN = r"(?:task|job|to-?do|action\s+item|assignment|chore)s?"
# A named person (a capitalised word, or Chinese) with a modal and a verb of taking work on, an
# adverb between them allowed ("Darragh should probably own the count", "郑浩 should take it").
_HANDING_OVER = (
    r"(?:^|[.!?;:,…]\s*|\s[-–—]\s)(?-i:[A-Z\u3400-\u9fff][\w\u3400-\u9fff'’-]*)\s+(?:can|could|should)\s+"
    r"(?:[a-z]+ly\s+)?(?:take\s+(?:it|this|that|over|on|care|the|these|those)|handle|own|pick\s+(?:it\s+|this\s+)?up)\b"
)
_ASSIGN_EN = re.compile(
    r"\b(?:give|hand|put|add|stick|set|leave|pass|delegate)\b[^.!?]{0,40}?\b(?:a|an|the|one|another|this|that)\s+"
    r"(?:\w+\s+)?" + _WORK_NOUN_EN + r"\b(?!\s+(?:list|board|manager|tracker)\b)"
    r"|^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you)\s+)*assign\s+(?!(?:me|us|myself)\b)\S"
    # A named person as able to take the work on, in a turn that asks for it done ("Tiago can take
    # over the order - I'd like it done by noon", "嘉欣 can take it, I want it by 4pm"): the handing-over.
    r"|" + _HANDING_OVER +
    # A person set onto a piece of work ("Put Callum on the hoist checks", "get 苏敏 from 单证 on it"): the
    # caused-motion frame with a person as what is moved. Not onto the meeting's or the message's own
    # things ("put Dana on the invite", "get him on the phone"): that adds someone to them.
    r"|^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you)\s+)*(?:put|get|set)\s+"
    r"(?-i:[A-Z\u3400-\u9fff][\w\u3400-\u9fff'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*))?"
    r"(?:\s+from\s+(?:the\s+)?[^\s,.;]+(?:\s+[^\s,.;]+)?)?\s+on(?:to)?\s+"
    r"(?!(?:the\s+|a\s+)?(?:phone|call|line|meeting|invite|invitation|email|thread|chat|message|list|board)s?\b)"
    r"(?:it|this|that|(?:the|our|my|this|that)\s+\w)"
    # The dative of transfer with a piece of work as what is given, a person as who gets it: "Give
    # the triage rotation to Wen", "hand the vendor follow-up to Ibrahim", "delegate grading for
    # quiz 3 to my TA". kept gives nobody a thing but work (a task) or words (a message): a message,
    # a file or a document given is a sending, not work.
    r"|^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you)\s+)*"
    r"(?:delegate\s+(?:(?:the|this|that|these|those|my|our)\s+)?|(?:give|hand|pass|reassign)(?:\s+(?:off|over))?\s+"
    r"(?:the|this|that|these|those|my|our)\s+)(?:(?!"
    + MESSAGE_NOUN
    + r"s?\b|files?\b|documents?\b|docs?\b|attachments?\b)[^\s.!?;,]+\s+){1,6}?"
    r"(?:off\s+|over\s+)?to\s+(?!(?:me|us|myself|you)\b)(?:the\s+|my\s+|our\s+)?[A-Za-z\u3400-\u9fff]",
    re.I,
)
_ASSIGN_ZH = re.compile(
    r"(?:派|分配|布置|安排)(?:个|一个|一项|一下|点)?(?:任务|活儿|活|工作)"
    rf"|{_ZH_HANDED_TO}[^，,。；;！!？?]"
    # The English verbs of assigning borrowed with the Chinese recipient marker ("assign 给 Kevin").
    r"|\b(?:assign|delegate)\s*给\s*(?!我|你|您|咱)\S"
    # someone other than the speaker or kept made to go and do something (``_zh_made_to_go``)
    "|" + _zh_made_to_go()
)
# The English causative with a third person as who does the work: "have Shira pick up the Denver
# accounts", "let Rahul handle the customs paperwork", "get Phil to own the checklist". The
# causative verbs are a closed class; what follows the person must be a verb's base form.
_CAUSATIVE_EN = re.compile(
    r"^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|just)\s+)*(?:have|let|get|make)\s+"
    r"(?:(?-i:[A-Z][\w'’-]*)(?:\s+(?-i:[A-Z][\w'’-]*))?|him|her|them)\s+(?:to\s+)?(?P<verb>[a-z]+)\b",
    re.I,
)


def _causative(part: str) -> bool:
    """Whether ``part`` has someone made to do a piece of work (``_CAUSATIVE_EN``); a verb of
    knowing or perceiving after the person ("let Jonas know", "let her see") is a telling, not work."""
    m = _CAUSATIVE_EN.match(part)
    if m is None:
        return False
    verb = m.group("verb").lower()
    return verb not in ("know", "hear", "see") and base_verb(verb)


@reads_simplified
def asks_to_assign(text: str) -> bool:
    """Whether a request asks kept to hand a piece of work to someone (see above): a task. Like
    ``asks_to_tell``, only a request to act (``asks_to_act``) can be one."""
    if not asks_to_act(text):
        return False
    plain = text.replace("’", "'")
    return any(_ASSIGN_EN.search(part) or _causative(part) for part in _asked_parts(plain)) or bool(
        _HAS_CJK.search(plain) and _ASSIGN_ZH.search(plain)
    )


# The noun phrase a question asks for, read from its shape (closed-class words only):
# - after a possessive: "What's Ines's shoe size?", "when is my next eye test";
# - after "who/what/which is the": "who's the caterer for the gala", "what's the fee for…";
# - a wh-determiner's noun: "Which gate does my flight leave from?", "what bike do I ride";
# - Chinese, after 的 and before the asking verb: "王老师的电话是多少？", "小美的生日是哪天？".
# The phrase ends at a verb, a preposition or the end; at most three words.
_FOCUS_END = (
    r"(?=\s+(?:on|of|at|for|in|with|from|to|by|about|is|are|was|were|do|does|did|am|have|has|had|will|would|can|could"
    r"|should|again|now|this|that|these|those|next|last|going|i|we|you|he|she|they|it)\b|\s*[?.!,;]|\s*$)"
)
_FOCUS_EN = [
    # X's FOCUS / my FOCUS after a wh-word and a copula: "what's Ines's shoe size", "when is my next eye test"
    re.compile(
        r"^\W*(?:what|when|where|who|which|how\s+much|how\s+many|how\s+long|how\s+old)(?:['’]s|\s+is|\s+are|\s+was|\s+were)"
        r"\s+(?:the\s+|a\s+)?(?:(?:[\w-]+|(?:mr|mrs|ms|dr|prof)\.)\s+){0,3}?[\w-]+['’]s?\s+(?P<focus>(?:[\w-]+\s+){0,2}?[\w-]+)"
        + _FOCUS_END,
        re.I,
    ),
    # who/what's the FOCUS (of|on|for…): "who's the caterer for the gala", "what's the door code at the studio"
    re.compile(
        r"^\W*(?:what|who|which)(?:['’]s|\s+is|\s+are|\s+was|\s+were)\s+(?:the|our|my|their|his|her)\s+"
        r"(?P<focus>(?:[\w-]+\s+){0,2}?[\w-]+)" + _FOCUS_END,
        re.I,
    ),
    # the name of the FOCUS: "what's the name of our plumber", "what was the name of the vet"
    re.compile(
        r"^\W*what(?:['’]s|\s+is|\s+was)\s+the\s+name\s+of\s+(?:the|our|my|their|his|her)\s+"
        r"(?P<focus>(?:[\w-]+\s+){0,2}?[\w-]+)" + _FOCUS_END,
        re.I,
    ),
    # what … about FOCUS: "what did Lena say about the venue", "what was decided about our lease":
    # "about" names the topic of what was said or done, which an answering fact speaks of. Not
    # "what about X?", which turns the talk to X and asks nothing of it in particular.
    re.compile(
        r"^\W*what\s+(?!about\b)[^?]*?\babout\s+(?:the\s+|our\s+|my\s+|their\s+|his\s+|her\s+)?"
        r"(?P<focus>(?:[\w-]+\s+){0,2}?[\w-]+)" + _FOCUS_END,
        re.I,
    ),
    # which/what FOCUS + auxiliary: "which hotel am I staying at", "what car do i drive"
    re.compile(
        r"^\W*(?:which|what)\s+(?P<focus>(?:[\w-]+\s+){0,1}?[\w-]+)\s+(?:am|is|are|was|were|do|does|did|have|has|should|will)\b",
        re.I,
    ),
]
# Chinese, after 的: a Chinese noun (an English name may modify it: "X 项目的 Aiguille 经理"), or
# English words in a mixed question ("Greg 的 email address 是什么？").
_FOCUS_ZH = re.compile(
    f"的\\s*(?P<focus>(?:[A-Za-z][\\w-]*\\s*)?[{_CJK}]{{2,4}}?|[A-Za-z][\\w-]*(?:\\s+[A-Za-z][\\w-]*){{0,2}})\\s*(?:是|在|叫|有|要|多少|什么|哪|几|怎么)"
)
_NOT_FOCUS = {
    "name",
    "thing",
    "one",
    "kind",
    "sort",
    "type",
    "way",
    "time",
    "day",
    "deal",
    "plan",
    "story",
    "status",
    "update",
    "news",
}


@reads_simplified
def focus(text: str, attribute: bool = False) -> str | None:
    """What a question asks for of someone or something ("shoe size" in "What's Ines's shoe
    size?", "caterer" in "who's the caterer for the gala", 电话 in "王老师的电话是多少？"),
    or None: a question that is not of that shape, or asks for something too general to tell
    facts apart ("what's the plan", "what's Ana's name"). Recall uses it to judge the facts a name
    brings: they must bear on what is asked.

    ``attribute``: only an attribute or relation of something (after a possessive or a copula
    with "the": "Ines's shoe size", "the caterer for the gala", 王老师的电话; the topic after
    "about": "what did Lena say about the venue"), which a fact that answers must speak of.
    The noun of "which hotel am I at" is left out then: it names the kind of the answer ("the
    Radisson" is a hotel), which the answering fact need not say."""
    if not is_question(text):
        return None
    patterns = _FOCUS_EN[:4] if attribute else _FOCUS_EN
    for a, b in sentences(text):
        sentence = text[a:b]
        if _HAS_CJK.search(sentence):
            zh = _FOCUS_ZH.search(sentence)
            if zh:
                return zh.group("focus")
            continue
        for pattern in patterns:
            found = pattern.search(_clean(sentence))
            if found:
                phrase = found.group("focus").strip()
                words = phrase.lower().split()
                if words and words[-1] not in _NOT_FOCUS and words[0] not in _DETERMINERS:
                    return phrase
    return None


# A question asking what something is, or what it does or means ("What is BioFach?", "what's the
# squamish project again", "What is the Usher Hall known for?", "What does a P&T committee actually
# do?"): it asks for the thing's description, not for one of its attributes, so its noun phrase holds
# no preposition that ties an attribute to an owner ("the budget for the offsite" asks a budget).
_DEFINITION = re.compile(
    r"^\W*(?:so\s+|and\s+|remind\s+me\W+)?(?:"
    r"what(?:['’]s|\s+is|\s+are|\s+was|\s+were)\s+(?P<x>[^?,;]{2,60}?)"
    r"(?:\s+(?:known|famous|famed)\s+for|\s+again|\s+exactly|\s+all\s+about|\s+about)?"
    r"\s*(?:[?.!]|$|,\s*and\b|\s+and\s+(?:why|what|how|who|when|where|which)\b)"
    r"|what\s+(?:does|do|did)\s+(?P<y>[^?,;]{2,60}?)\s+(?:\w+ly\s+)?(?:do|mean|involve|cover|stand\s+for)\b)",
    re.I,
)
_ATTRIBUTE_LINK = re.compile(
    r"\b(?:of|for|on|with|at|from|by|to|about|per|we|i|you|they|he|she|it|this|that|these|those|now)\b|['’]s\b|s['’]\s",
    re.I,
)


@reads_simplified
def defined(text: str) -> str | None:
    """The thing an English question asks to have described ("BioFach" of "What is BioFach, and who
    exhibits there?", "squamish project" of "what's the squamish project again"), without its
    article; None for any other question (an attribute asked of something: "what's the budget for
    the offsite", "What's Ines's shoe size"). A stored fact answers it only if it describes the
    thing (recall: ``_describes``); one that merely names it ("User is going to BioFach in
    February") leaves the question to general knowledge."""
    found = _DEFINITION.match(_clean(text))
    if not found:
        return None
    thing = (found.group("x") or found.group("y") or "").strip()
    thing = re.sub(r"^(?:the|a|an)\s+", "", thing, flags=re.I)
    # A name and the noun of its kind, not a clause ("the other exporters offering Haixin this season",
    # "what's quillon charging now": a word the lexicon knows only as a verb).
    words = thing.split()
    if not words or len(words) > 5 or _ATTRIBUTE_LINK.search(thing) or words[0].lower() in _DETERMINERS:
        return None
    if any("VERB" in (pos := _lemmas(w.lower())) and not {"NOUN", "ADJ", "PROPN"} & set(pos) for w in words):
        return None
    return thing


# What a turn that asks something may hold even where the speech-act reading (the rest of this module)
# finds no question or request in it: a question word anywhere ("team lunch is when again"), also
# contracted without its apostrophe ("whos hosting me"), a question mark, a word of asking politely
# ("shane's number pls"), a verb of remembering ("I forget the renewal date"), a closing tag ("my
# mother's in taichung right"). Closed classes.
_ASKING = re.compile(
    r"\?|\b(?:who|whom|whose|what|when|where|which|why|how)(?:['’]?s|['’]re)?\b|\b(?:please|pls|plz)\b"
    r"|\b(?:forget|forgot|forgotten|remember|recall)\b|\sright\W*$",
    re.I,
)
_FIRST_WORD = re.compile(r"^\W*([A-Za-z]+)(\W?)\s*([A-Za-z]*)")
_EXCLAMATIVE = re.compile(r"\bwhat\s+an?\b(?!\s+\w+\s+(?:is|are|was|were|do|does|did)\b)", re.I)
# The second word and, after at most one adverb, an inflected verb: "review ran", "sam just left".
_SUBJECT_THEN_VERB = re.compile(
    r"[A-Za-z][\w'-]*\s+(?:(?:just|already|finally|actually|also|still)\s+)?(?P<verb>[a-z]+)\b"
)
_QUESTION_OPENING = frozenset(
    "can could would will should shall do does did is are am was were have has may might must".split()
)


# What asks something of kept in a Chinese sentence whatever its shape: a question particle, the
# marks of a request (请, 麻烦, 帮, 一下, 记得), the listener (你, 您), a prohibition (别, 不要); and a
# wish of the person's (我想…, 我要…, 我需要…), which asks as "I'd like to…" does.
_ZH_ASKS = re.compile("[?？吗呢]|请|麻烦|帮|你|您|一下|记得|别|不要")
_ZH_I_WANT = re.compile("(?:我们|我)(?:[^，,]{0,4}?)(?:想|要|需要|希望|打算|得|准备)")
# Coverbs that open an order with its subject dropped (把报告发给她, 跟她说没问题, 给他回个电话).
_ZH_ORDER_COVERBS = frozenset("把 将 给 跟 和 向 替 对".split())
# A clause that is only an acknowledgement or thanks (好的，谢谢，…; 收到，…) answers the talk and
# orders nothing, though its word may be tagged a verb: the Chinese of "ok", "thanks", "noted",
# "got it", which the English reading passes over too. A closed class of discourse formulas.
_ZH_ACKNOWLEDGEMENTS = frozenset(
    "好 好的 好吧 行 嗯 嗯嗯 谢谢 多谢 感谢 谢了 收到 明白 了解 知道 知道了 没问题 ok OK".split()
)
_ZH_SKIP_TAGS = ("t", "d", "x", "m", "q", "f", "c", "uj")  # time, adverbs, numbers, particles: no head


def _zh_person_subject(words: list[tuple[str, str]]) -> bool:
    """Whether 我/我们 is a subject in a clause's tagged ``words``: not after a verb, a coverb or an
    English verb that takes it as its object (发我, 跟我, remind 我), and not owning the noun after it
    (我妈, 我们经理: a possessor without 的)."""
    for k, (w, _tag) in enumerate(words):
        if w not in ("我", "我们"):
            continue
        before = words[k - 1] if k else None
        after = words[k + 1] if k + 1 < len(words) else None
        if before and (before[1].startswith(("v", "p")) or before[1] == "eng" and base_verb(before[0].lower())):
            continue
        if after and after[0] == "的":
            continue
        if after and after[1].startswith("n"):
            # 我妈, 我们经理: a possessor, unless an adverb comes straight after the noun, which then
            # said when (我晚点再看: jieba tags 晚点 a noun): a possessed noun as subject has its own
            # verb phrase, a time word between 我 and 再/先/就 is an adverbial of the person's act.
            later = words[k + 2] if k + 2 < len(words) else None
            if not (later and later[1] == "d"):
                continue
        return True
    return False


def _zh_tells_only(text: str) -> bool:
    """Whether a Chinese (or mixed) turn only tells: every sentence reads as a statement and reports
    something done (了, 过: "跟 Daniel 的 call 开完了") or said of the person themself as its subject
    ("逆变器的事我晚点再处理", "我先去开 production meeting"), with nothing asked of kept (``_ZH_ASKS``)
    and no wish of the person's. A Chinese order drops its subject and its marks ("周五把 RC 上传到
    portal", "跟她说没问题"): a clause opening with a verb or a coverb (after time words and adverbs) is
    read as one, unless an earlier clause has the person as subject (Chinese drops a subject the
    clause before gave: "我先去开会，回来再看"). Parts of speech from jieba's tagger."""
    from memory.text.people import tagged  # jieba loads on first use

    spans = sentences(text)
    if not spans:
        return False
    for a, b in spans:
        sentence = text[a:b]
        if act(sentence) != STATEMENT:
            return False
        body = _zh_body(sentence)[1]
        if _ZH_ASKS.search(body) or _ZH_I_WANT.search(body):
            return False
        person = reported = False
        for clause in _ZH_CLAUSE_END.split(body):
            if clause.strip() in _ZH_ACKNOWLEDGEMENTS:
                continue
            words = [(w, tag) for w, tag in tagged(clause) if w.strip()]
            if _zh_person_subject(words):
                person = reported = True
                continue
            head = next((wt for wt in words if wt[1] not in _ZH_SKIP_TAGS), None)
            opens_order = head is not None and (head[1].startswith("v") or head[0] in _ZH_ORDER_COVERBS)
            if _ZH_DONE.search(clause):
                reported = True
            elif opens_order and not person:
                return False  # a verb with its subject dropped and none before it: an order
        if not reported:
            return False
    return True


@reads_simplified
def tells_only(text: str, names: AbstractSet[str] = frozenset()) -> bool:
    """Whether an English turn only tells kept something: it asks no question, asks for no action
    (nor leave to act) and wishes no help, and holds none of the marks of asking that the
    speech-act reading may miss (``_ASKING``; an opening verb or auxiliary: "book somewhere nice",
    "can u find me…"). Such a turn ("cool, the forklift at the godown is finally fixed", "haha grace
    laughed at my joke today") is said to be noted, and no fact changes an answer or an action it
    does not ask for, however many of the store's names or words it holds. Speech acts and closed
    classes, not topics: true of any store. A Chinese turn is read by ``_zh_tells_only`` (it drops the
    marks: "周五把 RC 上传到 portal" asks with none of them). Not read so: a first word followed by a break, an
    interjection or a label ("cool, …", "ok noted"). ``names``: the index terms of the store's
    names; a noun right before one of them is a verb the lexicon lacks ("text Briar", "ping
    omar"): a noun and then a name opens no English statement."""
    if _HAS_CJK.search(text):
        return _zh_tells_only(text)
    # "What a day", "what an hour": the exclamative asks nothing.
    if _ASKING.search(_EXCLAMATIVE.sub(" ", text)) or not has_finite_verb(text):
        return False  # a fragment with no verb ("the Priya doc") names what to look up
    if is_question(text) or is_request(text) or asks_leave(text) or asks_for_help(text):
        return False
    # The marks of an order the act reading may have missed are read in the first sentence that is a
    # clause: a verbless one before it ("long day.", "what a day!") is an exclamation.
    spans = [text[a:b] for a, b in sentences(text)]
    opening = next((t for t in spans if has_finite_verb(t)), text)
    first = _FIRST_WORD.match(opening)
    if first and not first.group(2).strip():
        word = first.group(1).lower()
        # A noun or a name and then an inflected verb is the subject of a statement ("build review ran
        # over", "lol mark just set off the alarm"), not a verb and its object.
        subject = _SUBJECT_THEN_VERB.match(opening[first.start(3) :]) if first.group(3) else None
        told = subject is not None and _inflected_verb(subject.group("verb").lower())
        if word in _QUESTION_OPENING or base_verb(word) and not told:
            return False  # a verb's base form opens an imperative the reading may have missed
        after = first.group(3)
        if after and common_noun(word) and set(tokens(after)) & names and not told:
            return False
    return True
