"""The people a request to act names, as the person wrote them, and the message it carries.

A booking, a message or a task carries people ("with Amara Nwosu", "Message
Rosa", 约一下产品经理何静), and a small model drops or swaps them when it
writes the call (agent/screen.py checks its arguments against this reading).

English: a name is a word written with a capital where grammar does not put
one (not a sentence's first word, not "I", a weekday or a month), or any word
the store knows as a name in whatever casing ("message rosa"). Adjacent name
words are one name ("Pieter van Wyk"). Chinese: jieba's part-of-speech tagger
(its ``nr`` tags, trained for personal names), with the closed class of
familiar prefixes (小, 老, 阿) and a title after a lone surname (郑经理) joined
on, since that is how Chinese addresses people, and a verb the tagger glued on
before a measure word (孙丽约|个会) taken off.

Only the request's head is read: what comes before the material it carries
(a colon, a quotation, "that …", "saying …", "about …", "to" + a verb) holds
the people it acts with; the material holds what is said or done ("Tell Priya
that the offsite moved to Porto": Priya, not Porto). A name after a
determiner is a thing ("the Atlas review"), after a preposition of place a
place ("at Harbour House"). Every word used here is a closed class of
English or Chinese grammar, not a list of names.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Set as AbstractSet
from functools import cache, lru_cache

from memory.text import words
from memory.text.script import quotes_original, reads_simplified

# Where the material of a request starts: a colon not inside a time, a quotation, or a clause
# word that introduces what is said or done.
_MATERIAL = re.compile(
    r"(?<!\d)[:：](?!\d)|[\"“「『]|(?<![\w'’])'(?=\w)"
    r"|\b(?:that|saying|telling|about|regarding|re|asking|concerning|on\s+the\s+subject\s+of)\b",
    re.I,
)
# "to" before a verb starts the task ("a task to order the seals"); before a name or "the" it does not.
_TO_VERB = re.compile(r"\bto\s+(?P<next>[a-z][\w'’-]*)")
_NOT_A_VERB = frozenset("the a an my our your his her their this that these those me him them us".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# Words written with a capital for grammar, not because they name someone.
_GRAMMAR = frozenset(
    "i i'm i'd i'll i've a an the this that these those it its my our your their his her we you they he she "
    "if so but and or then also please hi hello hey ok okay yes no on in at by for to from with".split()
)
_LINKS = frozenset("of van von de der da del la le du al bin ten ter".split())  # inside a name only
_DETERMINERS = frozenset("the a an my our your his her their its this that these those every each".split())
_PLACE = frozenset("in at near inside outside around across within from into onto".split())
_OPENING = re.compile(r"(?:^|[.!?。！？]\s*|\n\s*)$")
_DAY_NAMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight".split() + list(words.MONTHS)
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_ZH_PREFIX = "小老阿"  # familiar prefixes before a surname: 小吴, 老李, 阿强
# jieba's tags of grammar words (particles, prepositions, conjunctions, numerals, measure words,
# adverbs, pronouns, verbs, modal particles): a character so tagged after 小/老/阿 is no surname.
_GRAMMAR_TAGS = frozenset("upcmqdrvyef")


@quotes_original
def head(text: str) -> str:
    """The request before the material it carries."""
    cut = len(text)
    m = _MATERIAL.search(text)
    if m:
        cut = m.start()
    dashed = _ADDRESSEE_DASH.match(text)
    if dashed:
        cut = min(cut, dashed.end())
    told = _telling(text)
    if told is not None:
        cut = min(cut, told[0])
    for m in _TO_VERB.finditer(text[:cut]):
        if m.group("next").lower() not in _NOT_A_VERB:
            cut = m.start()
            break
    return text[:cut]


# The markers after which what follows is the message itself (not "about …", a topic).
_SAID = re.compile(r"(?<!\d)[:：](?!\d)\s*|\b(?:that|saying|telling\s+(?:her|him|them))\s+", re.I)
_QUOTED = re.compile(r"[\"“「『](?P<q>[^\"”」』]{2,})[\"”」』]")
# A dash after the noun of what is sent opens it as a colon does ("drop Kirsty a note - the bank
# nurse cancelled"); elsewhere a dash joins clauses of the request itself, so only there.
# The message tool's own nouns (memory.text.acts reads a request to send one by them too).
MESSAGE_NOUN = r"(?:message|note|text|email|line)"
# The nouns of a message that English also uses as the verb of sending one ("text Sunita the gate
# code", "email Jana the invoice", "Email the report to the board"): the verb says it is a message,
# whatever follows. Not "note" or "line" (to note a thing, to line a drawer).
MESSAGE_VERB = r"(?:message|text|email|e-mail|msg|dm)"
# The Chinese nouns of a message: the words the mainland uses (消息, 信息, 微信, 短信, 邮件), the
# English ones mixed in, and every CC-CEDICT word of two or three characters whose first senses are
# a message, a text message or an email, so the words of other places come with their dictionary
# (讯息 and 简讯 in Taiwan, 电邮 in Hong Kong, 私讯 for a direct message) rather than one by one.
_MESSAGE_ZH = ("消息", "信息", "微信", "短信", "邮件", "message", "email", "msg")
_MESSAGE_SENSES = frozenset({"messag", "sms", "email"})  # stems, as ``bilingual.glosses`` gives them
_MESSAGE_HINT = re.compile(r"messag|sms|e-?mail", re.I)


@cache
def message_noun_zh() -> str:
    """A regular-expression alternation of the Chinese (and mixed-in English) nouns of a message;
    the dictionary loads on first use, only for Chinese text."""
    from memory.text import bilingual

    found = {
        word
        for word, definitions in bilingual.definitions().items()
        if 2 <= len(word) <= 3
        and _MESSAGE_HINT.search(" ".join(definitions[:3]))  # a quick look before the reading
        and _MESSAGE_SENSES & set(bilingual.glosses(word)[:4])
    }
    return "|".join(re.escape(w) for w in sorted(found | set(_MESSAGE_ZH), key=len, reverse=True))


# A verb, whom it goes to (with who they are: "msg Kirsty who does the cottages - …"), then a
# dash at the head of a request to send a message: what follows is what it says, as after the
# message's noun ("drop Kirsty a note - …").
_ADDRESSEE_DASH = re.compile(
    r"^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|just)\s+)*[a-z]+\s+(?:to\s+)?"
    r"(?:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?|[\u3400-\u9fff]{1,4})(?:\s+who\s+[^:：.!?;–—-]{1,40}?)?\s+[-–—]+\s+",
    re.I,
)
# The noun of the message, whom it goes to between (and where they are: "a note to Niamh on
# reception - …"), then a dash: what follows is what it says.
_NOUN_DASH = re.compile(r"\b(?:a|an|the)\s+" + MESSAGE_NOUN + r"(?:\s+to\s+[^-–—:：.!?;]{1,40}?)?\s+[-–—]+\s+", re.I)


# Chinese dictates the message after a verb of saying (说, 讲, 告诉 / 通知 + whom) that follows the
# noun of the message sent, its addressee before it at most ("给谢婷发个消息，跟她说周六…", "发个 message
# 给小王, 说…"): the grammar of reported speech after the sending frame, a closed class.
@cache
def _said_zh() -> re.Pattern[str]:
    return re.compile(
        f"(?:{message_noun_zh()})"
        r"[^，,。；;:：]{0,12}?[，,\s]*"
        r"(?:(?:跟|和|对|同|给)[^，,。；;说讲]{1,6}?)?(?:说|讲|告诉|通知)(?:她们|他们|她|他)?(?:一下|一声)?[，,：:\s]*",
        re.I,
    )


# English joins the telling to the sending: "message Hannah and tell her the keg is late", "text
# Sunita and let her know (that) …": what follows the verb of telling and its pronoun is the message.
_TELL_JOINED = re.compile(
    r"^(?:(?!\band\b).){1,60}?\b(?:and|then)\s+(?:tell|let)\s+(?:her|him|them)\s+(?:know\s+)?(?:that\s+)?", re.I
)


# A verb of telling with its addressee and the told clause right after, no "that" and no noun of a
# message ("tell Oisín load-in is at 3", "let the lighting crew know, the wall must be ready by 4",
# 跟仓库的黎姐说一声，那批粒子先别入库, 告诉她周六的义诊改到十点). The verbs of telling, the coverbs of
# an addressee and the pronouns are closed classes of each grammar; the speaker or kept as the
# addressee ("let me know", 跟我说, 告诉你) is being told, not asking that anyone be told, and a
# verb closed by 了/过/好 reports a telling that happened (跟他说好了).
_LEAD_EN = (
    r"^\W*(?:(?:please|pls|kindly|just|also|and|so|ok(?:ay)?|can\s+you|could\s+you|would\s+you|will\s+you)[\s,]+)*"
)
# A name as written in English (capitalised), or in Chinese characters inside an English sentence
# ("tell 小马 from 道具组 the lanterns…"): a run of another script there is a name or a term.
_ADDRESSEE_EN = (
    r"(?:(?-i:[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’-]+){0,2})|[\u3400-\u9fff]{1,4}(?![\u3400-\u9fff])|her|him|them"
    r"|(?:my|our|the)\s+[a-z][\w-]*)"
)
_TELLING_EN = re.compile(
    _LEAD_EN
    + r"(?:(?:tell|inform|notify|warn)\s+(?!(?:me|us|myself)\b)"
    + _ADDRESSEE_EN
    # where the addressee is ("tell Marco from props…", "tell 小马 from 道具组…"): one word or a run of characters
    + r"(?:\s+(?:from|in|on)\s+(?:the\s+)?(?:[\u3400-\u9fff]+|[a-z][\w-]*))?"
    # the told clause: English words, or a clause in Chinese ("tell Jason 那个ticket不急")
    + r"\s+(?=[\w'’-]+\s+\S|[\u3400-\u9fff])"
    r"(?!(?:to|about|of|on|what|when|where|how|who|whom|why|if|whether|and|or|but)\b)"
    # Asking someone something is a message too ("ask Dana if the samples arrived", "ask Priya
    # whether…", "ask Omar to resend it"): the verb of asking, its addressee, what is asked.
    r"|ask\s+(?!(?:me|us|myself|you|around|for|about|if|whether)\b)"
    + _ADDRESSEE_EN
    + r"\s+(?=(?:if|whether|what|when|where|how|who|whom|why|which|about|for|to)\b|[\u3400-\u9fff])"
    r"|let\s+(?!(?:me|us|myself)\b)[^,.;:!?]{1,40}?\s+know\b[\s,:;–—-]*(?:that\s+)?)",
    re.I,
)
_TELLING_ZH = re.compile(
    r"(?<![我你您他她])(?:跟|和|同|对|向)(?!我|你|您|咱)(?P<who>[^，,。；;！!？?说讲]{1,16}?)(?:说|讲)(?![了过好完])"
    r"(?:一声|一下)?[，,：:\s]*"
    # 问 (ask) is a telling that asks: 问她 feedback 什么时候能给, 帮我问一下黄志强，…要多少钱
    r"|(?:告诉|通知|问问?)(?:一下|一声)?(?:(?:她们|他们|她|他)(?![们说])|(?!我|你|您|咱)(?P<whom>[^，,。；;！!？?]{1,12}?)[，,：:])\s*"
)


def _telling(text: str) -> tuple[int, int] | None:
    """(where the addressee ends, where the told clause begins) in a request that tells someone
    something by a verb of telling and its addressee (see above), or None."""
    m = _TELLING_EN.match(text.replace("’", "'")) if not words.has_cjk(text[:6]) or text[:1].isascii() else None
    if m is None and words.has_cjk(text):
        m = _TELLING_ZH.search(text)
    if m is None or not text[m.end() :].strip():
        return None
    # The Chinese verb of telling follows its addressee (跟老陈说): the head ends before the verb, or
    # the tagger reads 陈说 as a name.
    who = next((m.end(g) for g in ("who", "whom") if g in m.re.groupindex and m.group(g)), m.end())
    return who, m.end()


@reads_simplified
def telling(text: str) -> int | None:
    """Where the told clause begins in a request that tells someone something by a verb of telling
    and its addressee (see above), or None."""
    found = _telling(text)
    return found[1] if found else None


@quotes_original
def material(text: str) -> str:
    """What a request to send a message says the message is: the quotation, or what follows
    its colon or "that" in its head's place ("Tell Ana that the launch moved" -> "the launch
    moved"), or in Chinese what follows the verb of saying after the message's noun
    (给谢婷发个消息，跟她说周六的体检车改成九点 -> 周六的体检车改成九点); "" when it names none."""
    quoted = _QUOTED.search(text)
    if quoted:
        return quoted.group("q").strip()
    dashed = _NOUN_DASH.search(text)
    if dashed and not _MATERIAL.search(text[: dashed.start()]) and text[dashed.end() :].strip():
        return text[dashed.end() :].strip()
    dashed = _ADDRESSEE_DASH.match(text)
    if dashed and text[dashed.end() :].strip():
        return text[dashed.end() :].strip()
    m, before = _SAID.search(text), head(text)
    if m and m.start() in (len(before), len(before.rstrip())):
        return text[m.end() :].strip()
    # (an English marker elsewhere is inside the message: a later "that" is no head's end)
    said = _said_zh().search(text) if words.has_cjk(text) else _TELL_JOINED.search(text)
    if said and text[said.end() :].strip():
        return text[said.end() :].strip()
    told = telling(text)
    return text[told:].strip() if told is not None else ""


@quotes_original
def named(text: str, known: AbstractSet[str] = frozenset()) -> list[str]:
    """The people ``text`` (a request) names in its head, as written, first first.
    ``known``: index terms of the store's names (memory.recall.store_names), any casing."""
    part = head(text)
    out = _english(part, known)
    if words.has_cjk(part):
        tagged = _chinese(part)
        for whom in _zh_by_frame(text):
            # The frame gives the whole name where the tagger cut it (钟 + 建华, 师傅 of 曾师傅); where
            # it ends inside a name the tagger found (保安老 of 保安老陈, 陈说 glued as "to state"),
            # the tagger's name stands.
            if any(n not in whom and any(n.startswith(whom[-k:]) for k in range(1, len(n))) for n in tagged):
                continue
            tagged = [n for n in tagged if n not in whom] + [whom]
        out += [n for n in tagged if n not in out]
    if not out:
        slot = _ADDRESSEE_SLOT.match(text)
        who = slot.group("who") if slot else ""
        if who and who.lower() not in _GRAMMAR and not _known_word(who):
            out.append(who)  # "drop kirsty a note - …": the one told, however it is written
    return out


# Whom a message goes to, by the slot the grammar of sending gives it: between the verb and the
# message's noun ("drop kirsty a note", "send ravi a text") or before a colon or a dash after the
# verb ("text kirsty: …"). A slot read by its place, so a name in lower case is read there, and
# only a word the lexicon lacks ("the team", "everyone" are no one's name).
_ADDRESSEE_SLOT = re.compile(
    r"^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you|just)\s+)*[a-z]+\s+(?P<who>[^\W\d_][\w'’-]*)"
    r"(?:\s+(?:a|an)\s+(?:quick\s+|short\s+)?" + MESSAGE_NOUN + r"\b|\s*[:：]|\s+[-–—]+\s)",
    re.I,
)


_SUBJECT_OF_MODAL = re.compile(r"\s+(?:can|could|should|will|would|must|may|might)\s+[a-z]", re.I)


@lru_cache(maxsize=4096)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """The parts of speech an English word form can be, each with its lemmas (lemminflect's
    lexicon: {"VERB": ("move",)} for "moved"); empty for a word it does not know (a name, most
    often). Loaded on first use. memory.text.acts reads with it too."""
    from lemminflect import getAllLemmas  # its lexicon loads on first call (about 0.3 s)

    return getAllLemmas(word) if word.isalpha() else {}


def _known_word(word: str) -> bool:
    return bool(lemmas(word))


def _english(text: str, known: AbstractSet[str]) -> list[str]:
    found = list(_WORD.finditer(text))
    out: list[str] = []
    run: list[re.Match] = []

    def close() -> None:
        while run and run[-1].group(0).lower() in _LINKS:
            run.pop()
        if run:
            before = text[: run[0].start()].split()
            prev = before[-1].lower().strip(",;") if before else ""
            if prev not in _DETERMINERS and prev not in _PLACE:
                out.append(text[run[0].start() : run[-1].end()])
        run.clear()

    for i, m in enumerate(found):
        word = m.group(0)
        bare = re.sub(r"['’]s$", "", word)
        lower = bare.lower()
        joined = run and text[run[-1].end() : m.start()].strip() == ""
        if run and not joined:
            close()
        # A sentence's first word is a verb of the request as often as a name ("Message Rosa…"); one
        # that a modal follows is the subject ("Tiago can take over the order", "Kasia should handle
        # it"): an imperative verb takes no modal after it. A word the lexicon knows ("Someone can…",
        # "Nobody should…") is no name.
        opening = _OPENING.search(text[: m.start()]) is not None and not (
            _SUBJECT_OF_MODAL.match(text[m.end() :]) and not _known_word(lower)
        )
        capital = (
            bare[:1].isupper()
            and lower not in _GRAMMAR
            and lower not in _DAY_NAMES
            and not opening
            and not (bare.isupper() and len(bare) <= 4 and len(bare) > 1)  # an acronym: VP, QA, CTO
        )
        in_store = bool(known) and not opening and lower not in _GRAMMAR and bool(set(words.tokens(bare)) & known)
        if capital or in_store:
            run.append(m)
            if bare != word:  # "Anna's": the name ends here
                close()
        elif run and lower in _LINKS and i + 1 < len(found) and found[i + 1].group(0)[:1].isupper():
            run.append(m)
        else:
            close()
    close()
    return out


_MODALS_EN = frozenset("should can could will would must shall may might".split())


def _chinese(text: str) -> list[str]:
    out: list[str] = []
    pieces = _tagged(text)
    for i, (word, tag) in enumerate(pieces):
        if not _CJK_RUN.fullmatch(word):
            continue
        after = pieces[i + 1] if i + 1 < len(pieces) else ("", "")
        if (
            word in _ZH_PREFIX
            and len(after[0]) == 1
            and _CJK_RUN.fullmatch(after[0])
            and after[1][:1] not in _GRAMMAR_TAGS
        ):
            # A familiar prefix cut off before one character (小 + 韩, which the tagger reads as
            # "Korea"): a surname the prefix is used with, whatever the character's tag.
            if word + after[0] not in out:
                out.append(word + after[0])
            continue
        # The subject of an English modal is someone who can or should do a thing ("郑浩 should
        # take it"), though the tagger, seeing two characters alone, calls them a place.
        then = next((w for w, _ in pieces[i + 1 :] if w.strip()), "")
        subject = tag.startswith("n") and 2 <= len(word) <= 3 and then.lower() in _MODALS_EN
        if not tag.startswith("nr") and not subject:
            continue
        after = pieces[i + 1] if i + 1 < len(pieces) else ("", "")
        if len(word) >= 3 and after[1].startswith("q"):
            # A name takes no measure word, a verb does (约个会, 发条消息): the tagger glued the verb on.
            word = word[:-1]
        prev = pieces[i - 1][0] if i else ""
        if prev and prev[-1] in _ZH_PREFIX and len(word) == 1:
            word = prev[-1] + word
        elif len(word) == 1 and i + 1 < len(pieces) and pieces[i + 1][1] == "n" and len(pieces[i + 1][0]) <= 2:
            word += pieces[i + 1][0]  # a surname and the title it is used with: 郑经理
        if word not in out:
            out.append(word)
    return out


# The person a Chinese request acts with, by the frame its grammar gives them, whatever the tagger
# makes of the name (it reads 钟建华 as 钟 + 建华, 小周 as a noun, 朵朵 as a measure word): the
# object of a coverb before the verb of a request said with a measure or a short-action word (给小周
# 发条消息, 跟周建国约个会, 跟厨房曾师傅讲一声), or the object of a verb that hands work to someone
# (交给小何). Chinese puts the head of a noun phrase last, so what comes after the last 的 and a
# demonstrative is the person (跟义乌那个做猫砂盆的屠老板约个视频会: 屠老板). Closed classes of the
# grammar (coverbs, measure words, the attributive particle), no names; the tagger's word
# boundaries say where the verb is, its tags only which word is the coverb.
_ZH_COVERBS = frozenset("给 跟 和 同 与 向 对".split())
_ZH_MEASURE = re.compile("^一?(?:个|句|条|封|通|份|下|声)$")
_ZH_HANDED_FRAME = re.compile(
    "(?:交给|派给|分给|交由)(?P<np>[\u3400-\u9fff]{1,8}?)(?=[，,。；;！!？?\\s]|负责|处理|来|去|做|弄|跟进|$)"
)
_ZH_DEMONSTRATIVE = re.compile("^(?:那个|这个|那位|这位|那|这)")
_ZH_PARTICLE = re.compile("[吧啊呀呢了哦嘛啦]+$")  # a sentence-final particle: 交给她吧
_ZH_NOT_A_PERSON = frozenset("我 你 您 他 她 它 我们 你们 他们 她们 大家 咱们 自己".split())


def _zh_by_frame(text: str) -> list[str]:
    pieces = _tagged(text)
    phrases: list[str] = []
    for i, (word, tag) in enumerate(pieces):
        if word not in _ZH_COVERBS or tag != "p":
            continue  # 跟 of 跟进 ("follow up") is a verb's first character, not a coverb
        for j in range(i + 2, min(i + 12, len(pieces) - 1)):
            verb, after = pieces[j][0], pieces[j + 1][0]
            if not _CJK_RUN.fullmatch(pieces[j - 1][0] + verb):
                break  # the phrase ends at a stop or a Latin word
            # The verb starts a word of the tagger's and a measure follows it, as a word of its own
            # (约|个) or glued on (发条: the tagger's "clockwork spring"); a demonstrative's measure
            # (那个) is inside the noun phrase.
            glued = len(verb) == 2 and _ZH_MEASURE.match(verb[1]) and _CJK_RUN.fullmatch(after)
            if (_ZH_MEASURE.match(after) or glued) and not _ZH_DEMONSTRATIVE.match(verb):
                phrases.append("".join(w for w, _ in pieces[i + 1 : j]))
                break
    phrases += [m.group("np") for m in _ZH_HANDED_FRAME.finditer(text)]
    out: list[str] = []
    for phrase in phrases:
        whom = _ZH_PARTICLE.sub("", _ZH_DEMONSTRATIVE.sub("", phrase.rsplit("的", 1)[-1]))
        # A pronoun opening the phrase is the one handed to (交给他我放心, 交俾佢 read as 交给他): no name.
        if len(whom) >= 2 and _tagged(whom)[0][0] not in _ZH_NOT_A_PERSON and whom not in out:
            out.append(whom)
    return out


_LOADING = threading.Lock()


def _tagger():
    """jieba's tagger, its dictionary loaded (1.5-8 s, so ``prepare`` starts it early)."""
    with _LOADING:
        import logging

        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        return jieba.posseg


@reads_simplified
def prepare(text: str) -> None:
    """Load the Chinese tagger in the background when ``text`` is Chinese, while the model
    writes its call (llama.cpp runs outside the GIL), so checking the call costs no wait."""
    if words.has_cjk(text):
        threading.Thread(target=_tagger, name="kept-people-tagger", daemon=True).start()


@lru_cache(maxsize=256)
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((p.word, p.flag) for p in _tagger().cut(text))


def tagged(text: str) -> tuple[tuple[str, str], ...]:
    """The words of a Chinese ``text`` with jieba's part-of-speech tags ("n" noun, "v" verb, "r"
    pronoun, "t" time...), in order; their concatenation is ``text``."""
    return _tagged(text)


# What marks a companion before a name: "with Sam", "Sam and Lee", 跟孙丽, 与何静, 约王磊 (closed classes).
_WITH = re.compile(r"(?:\b(?:with|and|invite|inviting)\s+|&\s*|[跟和与同约请找邀])\s*$", re.I)


# The object of the request's opening verb, a preposition or a particle after it ("Get Fiona Grant
# from infection control in for a meeting", "bring Dana over at 4"): the one the act brings in. Not
# a name a noun follows ("Schedule Atlas sync with Sam": Atlas names the sync).
_OPENING_OBJECT = re.compile(
    r"^\W*(?:(?:please|pls|can\s+you|could\s+you|would\s+you)\s+)*(?P<verb>[a-z]+)\s+$",
    re.I,
)
_AFTER_OBJECT = re.compile(
    r"^(?:\s*[,.;:!?]|\s+(?:from|of|at|on|in|into|over|round|around|up|down|to|for|and)\b|\s*$)", re.I
)


def companion(name: str, text: str) -> bool:
    """Whether ``text`` puts ``name`` after a word that marks someone taking part with the person,
    or as the object the request's opening verb acts on."""
    at = text.casefold().find(name.casefold())
    if at < 0:
        return False
    if _WITH.search(text[:at]) is not None:
        return True
    opening = _OPENING_OBJECT.match(text[:at])
    if opening is None or not _AFTER_OBJECT.match(text[at + len(name) :]):
        return False
    verb = opening.group("verb").lower()
    return verb in lemmas(verb).get("VERB", ())


def same_person(name: str, value: str) -> bool:
    """Whether ``value`` (a call's argument) names the person ``name`` (the request's)."""
    a, b = name.casefold(), value.casefold()
    if words.has_cjk(a):
        core = a.lstrip(_ZH_PREFIX) or a
        return core in b or (bool(words.has_cjk(b)) and b.strip() in a)
    theirs = set(words.tokens(b))
    return bool(set(words.tokens(a)) & theirs)
