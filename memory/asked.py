"""Whether a stored fact holds what a question asks for.

A question is about something (its anchor: a name the store holds, "my
dentist") and asks for something of it. The asked part has two faces, both
read from closed-class grammar, never from lists of topics:

- **the kind of value**, from the question word: who/whom/whose/谁 ask for
  someone, when/what time/what day/哪天/几点 for a day or a time, how
  many/how much/多少/几 for a number or an amount, where/哪里 for a place.
  Question words are a closed class in every language, and each asks for one
  kind of answer; ``kinds`` reads them;
- **the attribute or relation asked** (the focus): the noun phrase after a
  possessive or a copula ("Callum's birthday", "who's the caterer",
  王老师的电话), read by ``memory.text.acts.focus``; for a question for a
  count, the noun it counts ("How many forklifts…", ``counted_noun``); for a
  question of another shape, the question's content words that are not its
  anchor ("How much does Xiaowen earn?" asks about earning).

A fact answers the question only if it holds the asked part: a day or a time
when the question asks when (``dates.mentions_time``, the one reader of days
and times), a number when it asks how many (``numbers``), and the attribute
asked in its own words or close to them in meaning. A name alone is not an
answer: "When is Callum's birthday?" gets nothing from "Callum is 9 and plays
rugby on Saturdays" (no birthday in it, though it has a day), nor from "Lin's
birthday is 12 September" (the birthday is someone else's). The recall
matcher (``memory.recall``) asks this of every fact it would bring to a
question that only asks; tasks and statements are not judged here.
"""

from __future__ import annotations

import re

from memory.text import STOP_WORDS, bilingual, dates, tokens
from memory.text.acts import focus, noun_like, sentences
from memory.text.numbers import CN_ASKING_JI, CN_NUMERAL, en_int, money
from memory.text.people import lemmas
from memory.text.script import quotes_original, reads_simplified, simplified
from memory.text.words import MONTHS

_HAS_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

PERSON, TIME, NUMBER, PLACE, EMAIL, PHONE = "person", "time", "number", "place", "email", "phone"

# The question words of English and the kind of value each asks for. "what" and "which" ask
# for a kind of value only with a noun of time after them. English puts the question word
# first (after a lead-in such as "so", "remind me", "do you know"); one later in the sentence
# opens a clause ("…cover over Christmas when Dr Walker's away"), unless a preposition leads it
# ("by when", "at what time", "with whom").
_EN_LEAD = (
    r"^\W*(?:(?:so|and|but|ok|okay|hey|also|quick\s+one|sorry)\W+)*"
    r"(?:(?:remind\s+me|tell\s+me|do\s+you\s+know|any\s+idea|can\s+you\s+(?:remind|tell)\s+me|i\s+forget|i\s+forgot)\W+)?"
    r"(?:(?:by|at|on|from|until|till|since|with|to|for|in)\s+)?"
)
_EN_KINDS = [
    (re.compile(_EN_LEAD + r"(?:who|whom|whose|who's)\b", re.I), PERSON),
    # Not of the past ("When did I last see the dentist?"): a stored fact carries the day it was
    # said, which may be the answer, so its text need not say when.
    (
        re.compile(
            _EN_LEAD
            + r"(?:when|when's|how\s+soon|how\s+long\s+(?:until|till|before)|(?:what|which)\s+(?:time|day|date|"
            r"days|dates|year|month|week|weekday|morning|mornings|evening|evenings|night|nights))\b"
            r"(?!\s+(?:did|was|were|had|have|has)\b)",
            re.I,
        ),
        TIME,
    ),
    # "how many weeks until the exam" is reckoned from a date, "how many days off are left" is a
    # count: either answers.
    (
        re.compile(_EN_LEAD + r"how\s+(?:many|much)\s+(?:more\s+)?(?:minutes|hours|days|weeks|months|years)\b", re.I),
        TIME,
    ),
    # "how many times", "how many candidates did we see": a count of what happened is made from
    # the record (facts, the series of reports), no fact states it. "How much did the X cost / did
    # we pay" asks an amount, which one fact states: "much" measures a quantity, "many" counts.
    (re.compile(_EN_LEAD + r"how\s+much\b", re.I), NUMBER),
    (
        re.compile(
            _EN_LEAD + r"how\s+many\b(?!\s+times\b)"
            r"(?!(?:\s+(?!(?:do|does|is|are|am|will|can|could|would|should)\b)[\w-]+){0,3}\s+(?:did|have|has|had|were|was)\b)",
            re.I,
        ),
        NUMBER,
    ),
    (re.compile(_EN_LEAD + r"(?:where|where's)\b", re.I), PLACE),
    # "How old is Tomasz?": an age is a number of years.
    (re.compile(_EN_LEAD + r"how\s+old\b", re.I), NUMBER),
]
# A second question joined to the first: ", and who…", "and when…", "or where…".
_NEXT_QUESTION = re.compile(
    r"\s*(?:,\s*(?:and|or|but)?|\s(?:and|or|but))\s+(?=(?:who|whom|whose|when|where|how|what|which)\b)", re.I
)
# Chinese measure words (classifiers), a closed class: 几 before one asks how many of a thing
# (几个, 几辆车, 几台机器), as a numeral before one counts (``_ZH_COUNT``). 几 before a unit of time
# asks when or how long, so those stay with TIME (几点, 几号, 几月); 几次 counts occurrences, which
# the record makes (as "how many times").
_ZH_MEASURE = (
    "个月|个|位|岁|只|条|张|块|年|天|周|辆|台|间|本|件|家|所|支|份|瓶|箱|盒|袋|套|头|匹|棵|座|层|趟|名|口|把|双|对"
)
# Chinese leaves the question word where the answer goes (in situ), so it counts anywhere.
# 几次 counts occurrences (as "how many times"); "…是多少" asks for a value of any form (a phone
# number, an address), 多少 with a measure or a noun asks for a count or an amount; a closing
# 多大 ("how big / how old": 他今年多大？) for a number too.
_ZH_KINDS = [
    (re.compile("谁"), PERSON),
    (re.compile("什么时候|啥时候|何时|哪天|哪一天|哪几天|几点|几号|几月|星期几|周几|礼拜几|哪年|哪一年|多久"), TIME),
    (
        re.compile(
            f"多少(?![？?。！!]*$)|(?<!是)多少[？?。！!]*$|{CN_ASKING_JI}(?:{_ZH_MEASURE})|多大(?:年纪|岁数)?[？?吗了]*$"
        ),
        NUMBER,
    ),
    (re.compile("哪里|哪儿|在哪|什么地方|哪个(?:城市|国家|地方|区)"), PLACE),
]

# A number: digits, an English number word (read by ``numbers.en_int``; the article "a" counts
# one thing but says no number), a Chinese numeral before a measure word (一 alone is part of
# many words: 一起, 一般) and not after 第 (an ordinal says which, not how many).
_EN_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?", re.I)
_ZH_COUNT = re.compile(f"(?<!第)(?:{CN_NUMERAL})(?=[个位只条张块岁人年次元万千百十倍本辆间台])")
# What else says when, beside the days and times ``dates.mentions_time`` sees: a year, a month
# or a season by itself ("in June", "over the summer"), a recurrence ("every", "monthly"), and a
# Chinese month, day or hour in numerals ("九月十二日", "八点").
_MONTHS = "|".join(MONTHS)
_TIME_WORDS = re.compile(
    rf"\b(?:19|20)\d\d\b|\b(?:{_MONTHS})\b|\b(?:spring|summer|autumn|fall|winter)\b"
    r"|\b(?:every|each|daily|weekly|fortnightly|monthly|quarterly|yearly|annual(?:ly)?|weekdays?|weekends?)\b"
    # a weekday in the plural is a day that recurs ("on Tuesdays and Thursdays"), a day all the same
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b",
    re.I,
)
_ZH_TIME = re.compile(
    f"(?:{CN_NUMERAL}|\\d+)\\s*(?:[月日号点]|年(?!级))|每|周[一二三四五六日天末]|星期|年底|月底|春|夏|秋|冬"
)
# Dates written as numbers, which hold digits that count nothing.
_ZH_DATE = re.compile(f"(?:{CN_NUMERAL}|\\d+)\\s*(?:[月日号点时]|年|分)")
_ISO_OR_YEAR = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b(?:19|20)\d\d\b")
# A clock time, and the first day of a range of days ("from 2 to 20 February").
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_RANGE_START = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?=\s*(?:-|–|to|and|until|till)\s*\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\b)", re.I
)


@reads_simplified
def kinds(question: str) -> frozenset[str]:
    """The kinds of value ``question`` asks for, by its question words (empty: it asks for none
    in particular, as "what is…" or a yes/no question does)."""
    found: set[str] = set()
    for a, b in sentences(question):
        sentence = question[a:b]
        if _HAS_CJK.search(sentence):
            found |= {kind for pattern, kind in _ZH_KINDS if pattern.search(sentence)}
            continue
        # "When is the launch, and who owns it?": each question of a compound asks its own.
        for clause in _NEXT_QUESTION.split(sentence):
            found |= {kind for pattern, kind in _EN_KINDS if pattern.search(clause)}
    return frozenset(found)


def holds_kind(kind: str, fact: str) -> bool:
    """Whether ``fact`` holds a value of ``kind``. Only days, times and numbers can be read
    surely; a person or a place may be named in any way (a role, a Chinese name no dictionary
    has), so those are not judged here."""
    fact = simplified(fact)
    if kind == TIME:
        return dates.mentions_time(fact) or bool(_TIME_WORDS.search(fact) or _ZH_TIME.search(fact))
    if kind == EMAIL:
        return "@" in fact
    if kind == PHONE:
        return _PHONE.search(fact) is not None
    if kind == NUMBER:
        # A count or an amount, not the digits of a date ("on leave from 14 December 2026").
        rest = _CLOCK.sub(" ", _RANGE_START.sub(" ", _ISO_OR_YEAR.sub(" ", fact)))
        rest = _ZH_DATE.sub(" ", dates.without_times(rest))
        if re.search(r"\d", rest) or _ZH_COUNT.search(rest):
            return True
        return any(w.lower() not in ("a", "an") and en_int(w) is not None for w in _EN_WORD.findall(rest))
    return True


# "How much" with nothing measured after it, straight before its verb ("How much is the premium?",
# "how much does Vistula charge", "How much did we pay…"), asks a price: English leaves the unit
# unsaid only for money ("how much storage", "how much time" name theirs). 多少钱 says it. Closed
# classes: the auxiliaries, the one noun 钱.
_ASKS_MONEY = re.compile(
    r"\bhow\s+much(?:['’]s\b|\s+(?:money\b|is|are|was|were|does|do|did|will|would|should|can|could|has|have|had)\b)"
    r"|多少钱|几(?:块|元)钱",
    re.I,
)
# An amount of money beside what ``numbers.money`` reads: a number beside a currency code (two or
# three capitals: "KES 8,000", "RM 18,000"), before a Chinese unit of money (6,000 元, 4,200 欧元), or a
# rate per unit of time or head.
_CURRENCY_CODE = re.compile(
    r"\b[A-Z]{2,3}\$?\s?\d|\d[\d,.]*\s?[A-Z]{3}\b|\d\s*(?:元|块|欧|美元|美金|英镑|日元|港币)"
    # a rate with its unit left unsaid, as prices are ("45 a month", "80 per hour")
    r"|\d[\d,.]*\s+(?:a|an|per)\s+(?:month|week|year|day|night|hour|head|person)\b"
)


@reads_simplified
def asks_money(question: str) -> bool:
    """Whether a question asks a price or an amount paid ("How much is the premium?", 多少钱)."""
    return _ASKS_MONEY.search(question) is not None


@reads_simplified
def holds_money(fact: str) -> bool:
    """Whether ``fact`` states an amount of money (``numbers.money``, a currency code or a Chinese
    unit of money beside a number)."""
    return bool(money(fact)) or _CURRENCY_CODE.search(fact) is not None


def holds_a_kind(asked: frozenset[str], fact: str) -> bool:
    """Whether ``fact`` holds a value of one of the kinds asked (a question asking none passes)."""
    return not asked or any(holds_kind(k, fact) for k in asked)


# Nouns that name the form of a value rather than a topic: "the open day's date" asks when, as
# "when is the open day" does; "Bronwyn's mobile number" asks for digits. A fact answering such
# an attribute holds a value of that form, whatever word it uses for it. A closed set: the
# forms the readers of days, times and numbers know.
_TIME_NOUNS = frozenset(
    "date dates day days time times year month week hour hours deadline schedule timetable timing".split()
)
# The nouns of an amount of money are of this class too ("Dev's hourly rate", "the phone bill").
_NUMBER_NOUNS = frozenset(
    "number numbers amount money price cost fee total count figure rate bill charge salary wage wages rent fare".split()
)
_ZH_TIME_NOUNS = ("日期", "时间", "日子", "时候", "几号", "期限")
_ZH_NUMBER_NOUNS = ("号码", "价格", "价钱", "费用", "金额", "数量", "电话")
_ZH_EMAIL_NOUNS = ("邮箱", "邮件地址", "电邮")


@reads_simplified
def value_kind(attribute: str) -> str | None:
    """The kind of value an attribute names by its head noun ("original date" -> time, "phone
    number" -> number, 电话号码 -> number), or None for an attribute of any other kind."""
    if _HAS_CJK.search(attribute):
        if any(n in attribute for n in _ZH_EMAIL_NOUNS) or "email" in attribute.lower():
            return EMAIL
        if any(n in attribute for n in _ZH_PHONE_NOUNS) and attribute.endswith(_ZH_PHONE_HEADS):
            return PHONE
        if attribute.endswith(_ZH_TIME_NOUNS):
            return TIME
        if attribute.endswith(_ZH_NUMBER_NOUNS):
            return NUMBER
        # Otherwise its head word read in English by its first sense in CC-CEDICT: 房租 is "rent",
        # an amount, as the English noun is. The closed class of form nouns is the English one; the
        # dictionary carries any Chinese word to it, so no Chinese list grows with the nouns people
        # use. Only the first sense: a later one is often another word's (班主任 "teacher in
        # charge of a class" glosses "charge" too, 平时 "ordinarily; in normal times" "time").
        found = bilingual.words(attribute)
        if found and _HAS_CJK.search(found[-1]):
            senses = bilingual.glosses(found[-1])
            kind = _FORM_STEMS.get(senses[0]) if senses else None
            # A phone or an email is named as the checks above read it (电话费 is a phone bill).
            return kind if kind in (TIME, NUMBER) else None
        return None
    words = attribute.lower().replace("-", "").split()
    head = words[-1] if words else ""
    if "email" in words:
        return EMAIL  # "email", "email address": an address with an @, however the fact says it
    if _PHONE_NOUNS & set(words) and (head in _PHONE_NOUNS or head in ("number", "no", "#")):
        return PHONE  # "Femke's phone number", "her mobile"; not "the phone bill" or "my phone extension"
    # The head read in the singular as well ("months" as "month").
    heads = {head, *lemmas(head).get("NOUN", ())} if head.isalpha() else {head}
    if heads & _TIME_NOUNS:
        return TIME
    if heads & _NUMBER_NOUNS:
        return NUMBER
    return None


# A phone number: a run of at least seven digits, spaces, brackets or dashes, not a date.
_PHONE = re.compile(r"(?<![\w-])(?!\d{4}-\d{2}-\d{2}\b)\+?\d[\d ()-]{5,}\d(?![\w-])")
# The nouns naming a number one is reached at: its value is a phone number, whatever the fact
# calls it ("work mobile", "cell", 手机). A closed class, as the email nouns are.
_PHONE_NOUNS = frozenset("phone telephone mobile cell cellphone tel".split())
_ZH_PHONE_NOUNS = ("电话", "手机")
_ZH_PHONE_HEADS = ("电话", "手机", "号", "号码")


# A phone number asked for by a noun phrase the question names, wherever it stands ("Do I have a
# phone number for Daniel?", "is there a mobile I can reach her on?", "got a cell number for
# her?", "Ana's work mobile?"), not only as the focus of a wh-question: a determiner or a
# possessive, perhaps one modifier, then a phone noun heading its phrase, with "number" or not.
# Not a phone noun modifying the noun after it ("the phone bill", "a mobile plan"), one after
# "what"/"which" (a kind of handset: "what phone does she use"), nor one a preposition governs
# (a medium: "on the phone").
_PHONE_PHRASE = re.compile(
    r"\b(?:a|an|the|any|his|her|their|your|my|our|[a-z][\w-]*['’]s|[a-z][\w-]*s')\s+(?:[a-z][\w-]*\s+)?"
    r"(?:phone|telephone|mobile|cell|cellphone)(?:\s+(?:number|no\b\.?|#))?(?:\s+(?P<next>[a-z][\w'’-]*))?",
    re.I,
)


@reads_simplified
def asks_for_a_phone(question: str) -> bool:
    """Whether a question names a phone number as what it asks for (``_PHONE_PHRASE``)."""
    for m in _PHONE_PHRASE.finditer(question):
        after = (m.group("next") or "").lower()
        if after and after not in STOP_WORDS and noun_like(after):
            continue  # the head is the noun after it: "the phone bill"
        if _MEDIUM.search(question[: m.start()]):
            continue  # the phone as a way of talking: "what did she say on the phone?"
        return True
    return False


_MEDIUM = re.compile(r"\b(?:on|over|by|via|through|from|to|in)\s+$", re.I)


# The form nouns above as index stems (CC-CEDICT glosses come stemmed: "wage", "telephon").
_FORM_STEMS = {
    t: kind
    for nouns, kind in ((_TIME_NOUNS, TIME), (_NUMBER_NOUNS, NUMBER), (_PHONE_NOUNS, PHONE), ({"email"}, EMAIL))
    for n in sorted(nouns)
    for t in tokens(n)
}


# The owner of what is asked: the word before a possessive 's, or before 的.
_OWNER_EN = re.compile(r"([A-Za-z][\w-]*)['’]s\b")
_OWNER_ZH = re.compile(r"([A-Za-z][\w-]*|[\u3400-\u4dbf\u4e00-\u9fff]{1,4})\s*的")


@quotes_original
def owners(question: str) -> list[str]:
    """The words that own what ``question`` asks ("Callum" in "When is Callum's birthday?",
    "Sophie" in "Sophie 的班主任叫什么？"); a contraction ("what's", "it's") is no owner."""
    found = [m.group(1) for m in _OWNER_EN.finditer(question.replace("’", "'"))]
    found += [m.group(1) for m in _OWNER_ZH.finditer(question)]
    return [w for w in found if w.lower() not in _CONTRACTIONS]


_CONTRACTIONS = frozenset("it that what who where when how there here he she let".split())


def head(attribute: str) -> tuple[str, tuple[str, ...]] | None:
    """The head of an attribute and the words modifying it ("rugby coach" -> ("coach",
    ("rugby",)), 公司地址 -> ("地址", ("公司",))), or None for a one-word attribute.

    Noun compounds are head-final in English and in Chinese: the last noun names the thing asked,
    the words before say which one ("the rugby coach" is a coach). Trailing words that cannot be
    nouns by the lexicon ("wife called", "date originally") are no head."""
    if _HAS_CJK.search(attribute):
        words = bilingual.words(attribute)
    else:
        words = attribute.replace("’", "'").split()
        while words and (words[-1].lower() in STOP_WORDS or not noun_like(words[-1].lower())):
            words.pop()
    if len(words) < 2:
        return None
    return words[-1], tuple(words[:-1])


# --- a question for a value of a kind that nothing about its thing holds ----------------------

# The kinds of value a text can be read to hold surely (``holds_kind``): a day or a time, a
# number, an email address, a phone number. A person or a place may be named in any way (a role,
# a Chinese name no dictionary has), so a question asking for one is never judged by kind.
READABLE = frozenset({TIME, NUMBER, EMAIL, PHONE})
# The words of a question that ask rather than name what it is about (closed class).
_QUESTION_WORDS = frozenset(tokens("what which who whom whose where when how many much name called"))


@reads_simplified
def readable_kinds(question: str, attribute: str | None = None) -> frozenset[str]:
    """The kinds of value ``question`` asks for that a text can be read to hold: by its question
    words (``kinds``) and by the form its attribute names (``value_kind``: "the price", 电话)."""
    wanted = set(kinds(question))
    form = value_kind(attribute) if attribute else None
    if form:
        wanted.add(form)
    return frozenset(wanted & READABLE)


@reads_simplified
def words_of(text: str) -> set[str]:
    """A text's content words in either script: its own tokens and its English reading's."""
    from memory.text.overlap import content_words

    if not _HAS_CJK.search(text):
        return content_words(text)
    return content_words(text) | content_words(bilingual.english_reading(text))


@reads_simplified
def thing_words(question: str) -> set[str]:
    """The content words of what a question asks about: without its question words, the words
    naming a form of value (time, date, price) and number words. A Chinese question is read by
    its English senses (its character pairs, 那个 or 个仓, are no words of a thing)."""
    from memory.text.overlap import content_words

    found = content_words(bilingual.english_reading(question)) - {
        w for w in content_words(question) if _HAS_CJK.search(w)
    }
    return {
        w
        for w in found - _QUESTION_WORDS
        if not value_kind(w) and en_int(w) is None and not any(ch.isdigit() for ch in w)
    }


def about_with_value(
    wanted: frozenset[str] | set[str], thing: set[str], texts: list[list[str]]
) -> tuple[bool, list[tuple[int, int]], list[tuple[int, int]]]:
    """How ``texts`` (each a list of sentences, in order) hold a value of the ``wanted`` kinds for
    the question's ``thing``: (whether any sentence speaks of the thing; the (text, sentence)
    places of sentences holding such a value that speak of the thing or follow one of the same
    text that does: "We opened a noodle bar. It seats 45."; the places of sentences holding such a
    value that do not).

    A question for a kind of value about a thing spoken of, where no sentence speaking of it holds
    a value of that kind, is not answered by what is known: a count, a day, a phone number or an
    email is read by its form (``holds_kind``), whatever the store is about, so this holds on any
    store. The sentences holding such a value elsewhere may speak of the thing in other words: the
    caller judges them (by meaning) or leaves them."""
    spoken = False
    about: list[tuple[int, int]] = []
    elsewhere: list[tuple[int, int]] = []
    for t, sentences_of in enumerate(texts):
        before = False  # the sentence before spoke of the thing: this one may go on about it ("It seats 45.")
        for s, line in enumerate(sentences_of):
            speaks = bool(thing & words_of(line))
            spoken = spoken or speaks
            if any(holds_kind(k, line) for k in wanted):
                (about if speaks or before else elsewhere).append((t, s))
            before = speaks
    return spoken, about, elsewhere


# --- what a count is of -----------------------------------------------------------------------
#
# "How many floors…", 多少个员工, 多少家 media, 多少箱: a question for a count names the thing it
# counts right after its question word (English: the noun after "how many"; Chinese: the measure
# word and the noun after 多少/几). A number answers it only where it counts that thing: a numeral
# and then, within a measure word or two words, the same noun or measure ("96 turbines", 十四个教练,
# 180箱). "十二年" counts years and "Grade 9" names a grade; neither is a number of employees or of
# learners. Grammar of the quantity phrase in both languages, not a list of nouns.
_EN_COUNTED = re.compile(r"\bhow\s+many\s+(?:more\s+|of\s+(?:the|our|my|their)\s+)?(?P<noun>[a-z][\w-]*)", re.I)
_ZH_COUNTED = re.compile(
    f"(?:多少|{CN_ASKING_JI})\\s*(?P<mw>{_ZH_MEASURE})?\\s*(?P<noun>[\\u4e00-\\u9fff]{{1,4}}|[A-Za-z][\\w-]*)?"
)
# What may follow 多少/几 that is no counted noun: a particle (了, 呢, 来着), a verb or an adverb of
# the clause, and 钱 (多少钱 asks an amount, said with or without a unit).
_ZH_NOT_NOUN = re.compile("^(?:了|呢|吗|啊|呀|吧|嘛|来着|的|是|在|有|要|都|还|就|钱|人次)")
# Count nouns that name no particular thing ("how many people", "how many times"): any number of
# those answers, as far as the noun goes.
_EN_ANY_COUNT = frozenset({"people", "persons", "ones", "things", "times", "units", "items"})


@reads_simplified
def counted(question: str) -> tuple[str, ...]:
    """The words of what a question for a count counts (its noun, and a Chinese measure word), or
    () when it names none ("how much", 是多少)."""
    m = _EN_COUNTED.search(question)
    if m:
        noun = _count_head(question[m.start("noun") :].split())
        return () if noun in _EN_ANY_COUNT else (noun,)
    m = _ZH_COUNTED.search(question)
    if not m:
        return ()
    noun = m.group("noun") or ""
    if noun and _HAS_CJK.match(noun):
        noun = "" if _ZH_NOT_NOUN.match(noun) else re.split("[了呢吗啊呀的是在有要都还就？?。，,]", noun)[0][:2]
    return tuple(w for w in (m.group("mw") or "", noun) if w)


_PUNCT = "?!.,;:'\"’"


def _count_head(words: list[str]) -> str:
    """The noun counted, from the words after "how many": the first plural of the noun phrase
    ("how many fume cupboards are…": cupboards; "how many nurses work…": nurses), or its first word
    when none is (a plural the same as its singular: "how many staff work here"). The phrase ends
    at a function word (a preposition, an auxiliary, a pronoun)."""
    first = words[0].strip(_PUNCT).lower()
    for word in words[:3]:
        low = word.strip(_PUNCT).lower()
        if not low or low in STOP_WORDS:
            break
        if low not in lemmas(low).get("NOUN", (low,)):
            return low
        if word != word.rstrip(_PUNCT):
            break  # the phrase ends at a comma or a question mark
    return first


def counted_noun(question: str, chinese: bool = False) -> str | None:
    """The noun an English question for a count counts, as an attribute it asks for ("forklifts"
    of "How many forklifts do we run at the depot?"), or None: it names none, or a noun that counts
    anything (people, times), or the question asks more than one thing ("how many sites, and who
    runs them": each part has its own answer). A Chinese question only with ``chinese``, and only
    when its question word asks a number (``kinds``: 几点 asks a time, so 点 is no counted noun):
    its noun of two characters or more after the measure word (几多张床位: 床位). Recall leaves
    Chinese out (it was not measured there)."""
    if len(_NEXT_QUESTION.split(question)) > 1:
        return None
    if _HAS_CJK.search(question):
        if not chinese or NUMBER not in kinds(question):
            return None
        noun = counted(question)[-1:]
        return noun[0] if noun and len(noun[0]) > 1 and not re.fullmatch(_ZH_MEASURE, noun[0]) else None
    what = counted(question)
    return what[-1] if what else None


@reads_simplified
def counts(sentence: str, what: tuple[str, ...]) -> bool:
    """Whether ``sentence`` holds a number of ``what`` (``counted``'s words): a numeral with the
    noun right after it (within two English words, or a Chinese measure word: "96 turbines",
    十四个教练), or the noun shortly before it in the same clause, as a topic or a subject
    ("the gala guest count is 240", "cage quota 被砍到 90 个"). A measure word alone must follow
    its numeral (180箱)."""
    if not what:
        return True
    # The noun when the question names one (多少个员工: 员工, not any 个), else its measure word.
    thing = what[-1]
    measure_only = len(what) == 1 and bool(re.fullmatch(_ZH_MEASURE, thing))
    stems = set() if _HAS_CJK.search(thing) else set(tokens(thing))
    for m in re.finditer(rf"\d[\d,.]*|{CN_NUMERAL}|\b(?:{_EN_NUMBER_WORDS})\b", sentence, re.I):
        after = sentence[m.end() : m.end() + 24]
        before = re.split(r"[,.;:，。；：!?！？]", sentence[max(0, m.start() - 30) : m.start()])[-1]
        if stems:
            near = _EN_WORD.findall(after)[:3] + _EN_WORD.findall(before)[-4:]
            if stems & {t for w in near for t in tokens(w)}:
                return True
        elif re.match(rf"\s*(?:{_ZH_MEASURE})?\s*{re.escape(thing)}", after) or (not measure_only and thing in before):
            return True
    return False


_EN_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    "|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen"
)


# What a question asks for, where acts.focus() reads no phrase: the noun counted ("how many
# learners…"), or whose name is asked ("what's my landlord's name?", 我房东叫什么名字？). Both are
# fixed question frames, closed like the wh-words, not phrasings of one item.
_HOW_MANY = re.compile(
    r"\bhow\s+(?:many|much)\s+(?P<asked>[a-z][a-z -]*?)\s+(?:are|is|was|were|do|does|did|have|has|will|can)\b", re.I
)
_WHOSE_NAME = re.compile(
    r"\b(?:my|our|the)\s+(?P<asked>[a-z][a-z -]*?)['’]s\s+(?:first\s+|last\s+|full\s+)?name\b", re.I
)
_WHOSE_NAME_ZH = re.compile(r"(?:我|我们)的?(?P<asked>[\u4e00-\u9fff]{1,4}?)(?:叫什么|的名字|名字叫)")
# "哪个区", "哪所学校": the noun after a Chinese which-word is what is asked.
_WHICH_ZH = re.compile(
    r"哪(?:一)?(?:个|家|所|位|条|座|间|种)(?P<asked>[\u4e00-\u9fff]{1,3}?)(?=[？?，,。！!]|$|的|上|是|里|在)"
)


def asked_for(question: str) -> str | None:
    """The thing a question asks for: acts.focus()'s phrase, or the frames above; None when
    the question has no such shape (then nothing is judged by it)."""
    found = focus(question)
    if found:
        return found
    for frame in (_HOW_MANY, _WHOSE_NAME, _WHOSE_NAME_ZH, _WHICH_ZH):
        m = frame.search(question)
        if m:
            return m.group("asked").strip()
    return None


def asked_thing(question: str) -> str | None:
    """What a question asks for, as the tests of what kept holds judge it (agent/reply_check.py):
    the noun a question for a count counts ("How many tonnes of oil did we ship…" asks tonnes,
    whatever else is said of oil; 几多张床位 asks beds), else ``asked_for``'s phrase."""
    return counted_noun(question, chinese=True) or asked_for(question)
