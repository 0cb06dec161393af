"""Seeded, deterministic generator of synthetic personas and their items. No model.

Each persona is a dated chat history with facts planted as exact sentences
at known times: facts that later change once or twice, decoys with nearby
values (another project's budget, another deadline a few days off),
promises kept with explicit evidence and promises left open, repeated
events, a nickname request, work preferences and rules, and ordinary
chatter that mentions none of it. The items are built from the same plan,
so every item knows which messages establish it and what is current.

The same seed always gives the same bytes: the committed personas are
checked against a fresh generation in the tests.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from evals.items import Item, dump_items
from evals.persona import Persona, Planted, PMessage

PERSONA_DIR = Path(__file__).parent / "personas"


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    seed: int
    tz: str
    start: date
    days: int
    target_messages: int
    lang: str  # "en" or "mix" (Chinese-English)
    scale: int  # how many of each scenario
    commit: bool  # small enough to keep in the repository


SPECS: dict[str, Spec] = {
    s.name: s
    for s in (
        Spec(
            "light",
            "A light user: about 700 messages over 90 days.",
            11,
            "Europe/Berlin",
            date(2026, 9, 2),
            90,
            700,
            "en",
            1,
            True,
        ),
        Spec(
            "heavy",
            "A heavy user: about 1,200 messages over 90 days.",
            23,
            "America/New_York",
            date(2026, 9, 2),
            90,
            1200,
            "en",
            2,
            True,
        ),
        Spec(
            "mixed",
            "A Chinese-English mixed user: about 900 messages over 90 days.",
            37,
            "Asia/Shanghai",
            date(2026, 9, 2),
            90,
            900,
            "mix",
            1,
            True,
        ),
        Spec(
            "yearlong",
            "A heavy user over a year: 5,000+ messages (generated on demand).",
            41,
            "Europe/London",
            date(2025, 11, 27),
            369,
            5200,
            "en",
            6,
            False,
        ),
    )
}

PROJECTS = [
    "Atlas",
    "Borealis",
    "Cobalt",
    "Falcon",
    "Granite",
    "Helix",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Meridian",
    "Nimbus",
    "Onyx",
    "Pioneer",
    "Quartz",
    "Redwood",
    "Sierra",
    "Tundra",
    "Vega",
    "Willow",
    "Yarrow",
    "Zephyr",
    "Aurora",
    "Beacon",
    "Cascade",
    "Dynamo",
    "Everest",
    "Fjord",
    "Glacier",
    "Harbor",
    "Ivy",
    "Jasper",
    "Keystone",
    "Lantern",
    "Mosaic",
    "Oakley",
    "Prism",
    "Quill",
    "Raven",
    "Sequoia",
    "Topaz",
    "Summit",
    "Voyager",
    "Wren",
    "Zenith",
    "Basalt",
    "Cinder",
    "Dune",
    "Ember",
    "Flint",
    "Garnet",
    "Hollow",
    "Indigo",
    "Jetty",
    "Kiln",
    "Ledger",
    "Mica",
    "Nectar",
    "Orchid",
    "Pebble",
]
# Names that never appear in any history: the never-said items ask about them.
NEVER = [
    "Orion",
    "Polaris",
    "Titan",
    "Andromeda",
    "Cassiopeia",
    "Pegasus",
    "Hydra",
    "Lyra",
    "Draco",
    "Phoenix",
    "Centaurus",
    "Perseus",
]
PEOPLE = [
    ("Priya", "Raman"),
    ("Marco", "Bellini"),
    ("Lena", "Vogt"),
    ("Jonas", "Berg"),
    ("Aiko", "Tanaka"),
    ("Tomas", "Ortega"),
    ("Sven", "Larsen"),
    ("Nadia", "Haddad"),
    ("Wei", "Chen"),
    ("Fatima", "Okafor"),
    ("Oskar", "Nilsson"),
    ("Grace", "Kim"),
    ("Ravi", "Patel"),
    ("Elena", "Petrova"),
    ("Diego", "Santos"),
    ("Mira", "Shah"),
    ("Hugo", "Laurent"),
    ("Ingrid", "Dahl"),
    ("Kofi", "Mensah"),
    ("Yuki", "Sato"),
    ("Amara", "Diallo"),
    ("Bruno", "Costa"),
    ("Clara", "Weiss"),
    ("Dev", "Iyer"),
    ("Emil", "Kowalski"),
    ("Farah", "Aziz"),
    ("Gustav", "Lind"),
    ("Hana", "Novak"),
    ("Ilya", "Morozov"),
    ("Julia", "Ferraro"),
    ("Kenji", "Mori"),
    ("Lucia", "Romero"),
    ("Mateo", "Silva"),
    ("Noor", "Rahman"),
    ("Olga", "Ivanova"),
    ("Pavel", "Horak"),
    ("Rosa", "Marin"),
    ("Samir", "Khan"),
    ("Tara", "Quinn"),
    ("Umar", "Farouk"),
]
VENDORS = [
    "Fabrikam",
    "Contoso",
    "Initech",
    "Globex",
    "Tailspin",
    "Wingtip",
    "Litware",
    "Proseware",
    "Adatum",
    "Lucerne",
    "Margie",
    "Woodgrove",
    "Coho",
    "Alpine",
    "Trey",
    "Vandelay",
    "Northwind",
    "Wideworld",
    "Humongous",
    "Blueyonder",
]
NICKNAMES = ["Sam", "Alex", "Jo", "Kit", "Robin", "Max"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]

# Chatter: ordinary work talk with no digits, no project, vendor or people names.
CHATTER_EN = [
    "Morning. Coffee first, then the inbox.",
    "The standup ran long again today.",
    "Can you explain the difference between a mutex and a semaphore?",
    "What is a good name for a helper that parses timestamps?",
    "I keep forgetting how rebase differs from merge. Quick reminder?",
    "Long day. Heading out soon.",
    "The office wifi is flaky this morning.",
    "Reading an article on writing good commit messages.",
    "How do I undo the last commit but keep the changes?",
    "Lunch was great, the new place around the corner is good.",
    "Remind me what idempotent means in the context of an API.",
    "Too many meetings this week, honestly.",
    "What's a polite way to decline a meeting invite?",
    "I need to clean up my desktop, it's chaos.",
    "Is it better to log at info or debug for retries?",
    "The coffee machine is broken again.",
    "Can you suggest a title for a short post about code review?",
    "I'm trying to write fewer but better tests.",
    "What does a flaky test usually mean?",
    "Feeling productive today.",
    "Thinking about how to structure the wiki.",
    "How should I phrase feedback on a messy pull request?",
    "Quiet afternoon, good for focus work.",
    "What is the difference between a process and a thread?",
    "Any tips for keeping a backlog tidy?",
    "I should stretch more, I've been sitting all day.",
    "What's a good way to start a retro?",
    "Explain eventual consistency like I'm tired.",
    "The train was late again this morning.",
    "How do people usually version internal APIs?",
    "Writing notes for the handover, slowly.",
    "Is there a nice way to say no to scope creep?",
    "Just closed a pile of old tickets. Satisfying.",
]
CHATTER_MIX = [
    "早上好，先喝杯 coffee 再看 email。",
    "今天的 standup 又拖长了。",
    "mutex 和 semaphore 有什么区别？",
    "帮我想个 helper function 的名字，用来 parse timestamp。",
    "rebase 和 merge 的区别再说一下？",
    "今天好累，准备下班了。",
    "办公室的 wifi 今天很不稳定。",
    "在看一篇关于 commit message 的文章。",
    "怎么撤销上一个 commit 但保留改动？",
    "午饭不错，楼下新开的那家挺好吃。",
    "API 里的 idempotent 是什么意思来着？",
    "这周 meeting 太多了。",
    "怎么礼貌地拒绝一个 meeting invite？",
    "桌面太乱了，得整理一下。",
    "retry 的日志用 info 还是 debug 好？",
    "咖啡机又坏了。",
    "code review 的短文起个什么标题好？",
    "想少写点 test，但写得更好。",
    "flaky test 一般说明什么？",
    "今天效率很高。",
    "在想 wiki 该怎么组织。",
    "一个很乱的 pull request 怎么给 feedback 比较好？",
    "下午很安静，适合 focus。",
    "process 和 thread 有什么区别？",
    "backlog 怎么保持整洁？",
    "坐了一整天，该活动一下了。",
    "retro 怎么开场比较好？",
    "用简单的话解释一下 eventual consistency。",
    "地铁今天又晚点了。",
    "内部 API 一般怎么做 versioning？",
    "在慢慢写 handover 的 notes。",
    "scope creep 怎么委婉地拒绝？",
]
REPLIES_EN = [
    "Sure. Here's a short answer.",
    "Good question: in short, it depends on the trade-off you care about.",
    "Sounds like a long one. Take a break when you can.",
    "Here's a quick suggestion.",
    "Got it.",
    "That happens. Anything I can do?",
    "Short version below.",
    "Happy to help with that.",
]
REPLIES_MIX = [
    "好的，简单说一下。",
    "这个要看你更在意哪种 trade-off。",
    "辛苦了，记得休息。",
    "给你一个建议。",
    "明白。",
    "有需要随时说。",
]
ACKS_EN = ["Noted.", "Got it, noted.", "Okay, I'll remember that.", "Noted, thanks."]
ACKS_MIX = ["好的，记下了。", "收到，记住了。", "明白，已记录。"]


def date_alternatives(d: date) -> str:
    """A regex for a calendar date as people write it, in English and Chinese."""
    month, mon = MONTHS[d.month - 1], MONTHS[d.month - 1][:3]
    return (
        rf"(?:{month}\s+{d.day}(?!\d)|{mon}\.?\s+{d.day}(?!\d)|{d.day}(?:st|nd|rd|th)?\s+(?:of\s+)?{mon}"
        rf"|{d.isoformat()}|{d.month}\s*月\s*{d.day}\s*日|(?<!\d){d.month}/{d.day}(?!\d))"
    )


def money_alternatives(n: int) -> str:
    k = n // 1000
    return rf"(?:(?<![\d.,]){k:,}(?:,|\s)?000(?![\d])|(?<![\d.,]){n}(?![\d])|(?<![\d.,]){k}\s?[kK]\b)"


def name_rx(name: str) -> str:
    # Word edges that also work beside Chinese characters.
    return rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])"


def line_rx(*parts: str) -> str:
    """A line holding every part, in any order."""
    return "(?im)^" + "".join(f"(?=.*{p})" for p in parts) + ".*$"


def fmt_date(d: date, lang: str) -> str:
    return f"{d.month}月{d.day}日" if lang == "mix" else f"{MONTHS[d.month - 1]} {d.day}"


@dataclass
class Event:
    day: int  # days from the start
    text: str
    planted: list[tuple[str, str | None, str]] = field(default_factory=list)  # (planted id, replaces, kind)
    order: float = 0.0
    detail: dict | None = None
    message_id: str = ""
    at: datetime | None = None  # set when the timeline places the event

    @property
    def day_placed(self) -> date:
        """The calendar day the timeline put this event on (items are built after the timeline)."""
        if self.at is None:
            raise ValueError(f"event not placed on the timeline yet: {self.text!r}")
        return self.at.date()


class Builder:
    """Schedules planted events and builds items that refer to them."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.rng = random.Random(spec.seed)
        self.tz = ZoneInfo(spec.tz)
        self.events: list[Event] = []
        self.items: list[dict] = []
        self.never_said: list[str] = []
        self.projects = list(PROJECTS)
        self.rng.shuffle(self.projects)
        self.people = list(PEOPLE)
        self.rng.shuffle(self.people)
        self.vendors = list(VENDORS)
        self.rng.shuffle(self.vendors)
        self._pid = 0
        # Planted days keep clear of the last days, so the recent messages
        # (what the `none` design sees) never hold a planted fact.
        self.last_day = spec.days - 4
        self.end = datetime.combine(spec.start + timedelta(days=spec.days), time(9, 0), self.tz)

    @property
    def mix(self) -> bool:
        return self.spec.lang == "mix"

    def t(self, en: str, zh: str) -> str:
        return zh if self.mix else en

    def project(self) -> str:
        return self.projects.pop()

    def person(self) -> tuple[str, str, str]:
        first, last = self.people.pop()
        return first, f"{first} {last}", f"{first.lower()}.{last.lower()}@northwind.example"

    def day(self, lo: float = 0.0, hi: float = 1.0) -> int:
        return self.rng.randint(int(self.last_day * lo), max(int(self.last_day * lo), int(self.last_day * hi)))

    def plant(
        self, day: int, text: str, kind: str, replaces: str | None = None, detail: dict | None = None
    ) -> tuple[str, Event]:
        self._pid += 1
        pid = f"p{self._pid:03d}"
        event = Event(day, text, [(pid, replaces, kind)], order=self.rng.random(), detail=detail)
        self.events.append(event)
        return pid, event

    def item(self, kind: str, query: str, events: list[Event], needs: list[list[str]], **extra) -> None:
        self.items.append({"kind": kind, "query": query, "events": events, "needs": needs, **extra})

    # --- scenarios --------------------------------------------------------

    def dated_projects(self, n: int) -> None:
        """Launch dates (some changing once or twice), each with an owner:
        questions, a calendar task, and a two-fact task (tell the owner)."""
        base = self.spec.start + timedelta(days=self.spec.days + self.rng.randint(5, 20))
        for i in range(n):
            name = self.project()
            changes = [0, 1, 2][i % 3]
            # Dates cluster a few days apart: each is a decoy for the others.
            d0 = base + timedelta(days=3 * i + self.rng.randint(0, 2))
            values = [d0]
            for _ in range(changes):
                values.append(values[-1] + timedelta(days=self.rng.choice([7, 14, -5, 10])))
            first, full, email = self.person()
            day0 = self.day(0.0, 0.5)
            pid_owner, ev_owner = self.plant(
                self.day(0.0, 0.9),
                self.t(
                    f"{full} owns the {name} project; her email is {email}.",
                    f"{full} 负责 {name} 项目，邮箱是 {email}。",
                ),
                "fact",
            )
            events = []
            pid, ev = self.plant(
                day0,
                self.t(
                    f"The {name} launch is set for {fmt_date(values[0], 'en')}.",
                    f"{name} 的 launch 定在 {fmt_date(values[0], 'mix')}。",
                ),
                "fact",
            )
            events.append(ev)
            day = day0
            for v in values[1:]:
                day = min(self.last_day, day + self.rng.randint(5, 25))
                pid, ev = self.plant(
                    day,
                    self.t(
                        f"Heads up: the {name} launch moved to {fmt_date(v, 'en')}.",
                        f"注意：{name} 的 launch 改到 {fmt_date(v, 'mix')} 了。",
                    ),
                    "change",
                    pid,
                )
                events.append(ev)
            current, stale = values[-1], values[:-1]
            need = [line_rx(name_rx(name), date_alternatives(current))]
            stale_p = [line_rx(name_rx(name), date_alternatives(s)) for s in stale]
            self.item(
                "changed_fact" if stale else "old_fact",
                self.t(f"When is the {name} launch?", f"{name} 什么时候 launch？"),
                events,
                [need],
                current=current.isoformat(),
                stale=[s.isoformat() for s in stale],
                stale_patterns=stale_p,
                reply={"current": [date_alternatives(current)], "stale": [date_alternatives(s) for s in stale]},
            )
            self.item(
                "task",
                self.t(f"Put the {name} launch on my calendar.", f"把 {name} 的 launch 加到我的日历上。"),
                events,
                [need],
                current=current.isoformat(),
                stale=[s.isoformat() for s in stale],
                stale_patterns=stale_p,
                checks=[
                    {"type": "pattern", "table": "calendar_events", "field": "title", "regex": name_rx(name)},
                    {
                        "type": "date_on",
                        "table": "calendar_events",
                        "field": "start",
                        "date": current.isoformat(),
                        "tz": self.spec.tz,
                    },
                ],
            )
            owner_need = [line_rx(re.escape(email))]
            self.item(
                "old_fact",
                self.t(f"Who owns the {name} project?", f"{name} 项目是谁负责的？"),
                [ev_owner],
                [owner_need],
                current=full,
                reply={"current": [name_rx(first)]},
            )
            self.item(
                "task",
                self.t(f"Tell the {name} owner the launch date.", f"告诉 {name} 的负责人 launch 日期。"),
                [ev_owner] + events,
                [owner_need, need],
                current=f"{email}: {current.isoformat()}",
                stale=[s.isoformat() for s in stale],
                stale_patterns=stale_p,
                checks=[
                    {"type": "list_includes", "table": "outbox", "field": "to", "value": email},
                    {
                        "type": "pattern",
                        "table": "outbox",
                        "field": "subject|body",
                        "regex": date_alternatives(current),
                    },
                ],
            )

    def budgets(self, n: int) -> None:
        """Budgets a few thousand apart (decoys for each other), one in three cut later."""
        # Distinct amounts from a narrow band, so each budget is a near decoy for the others.
        base = self.rng.randint(30, 60)
        values_k = self.rng.sample(range(base, base + max(12, 3 * n)), 2 * n)
        for i in range(n):
            name = self.project()
            amount = values_k[i] * 1000
            pid, ev = self.plant(
                self.day(0.0, 0.6),
                self.t(f"The {name} budget is ${amount:,}.", f"{name} 的预算是 ${amount:,}。"),
                "fact",
            )
            events, values = [ev], [amount]
            if i % 3 == 1:
                cut = values_k[n + i] * 1000
                pid, ev2 = self.plant(
                    min(self.last_day, ev.day + self.rng.randint(7, 30)),
                    self.t(
                        f"Update: the {name} budget was revised to ${cut:,}.", f"更新：{name} 的预算改成 ${cut:,} 了。"
                    ),
                    "change",
                    pid,
                )
                events.append(ev2)
                values.append(cut)
            current, stale = values[-1], values[:-1]
            need = [line_rx(name_rx(name), money_alternatives(current))]
            stale_p = [line_rx(name_rx(name), money_alternatives(s)) for s in stale]
            self.item(
                "changed_fact" if stale else "old_fact",
                self.t(f"What's the {name} budget?", f"{name} 的预算是多少？"),
                events,
                [need],
                current=f"${current:,}",
                stale=[f"${s:,}" for s in stale],
                stale_patterns=stale_p,
                reply={"current": [money_alternatives(current)], "stale": [money_alternatives(s) for s in stale]},
            )
            self.item(
                "task",
                self.t(
                    f"Add a task to raise the {name} purchase order for the full budget.",
                    f"加一个 task：按全部预算给 {name} 开 purchase order。",
                ),
                events,
                [need],
                current=f"${current:,}",
                stale=[f"${s:,}" for s in stale],
                stale_patterns=stale_p,
                checks=[
                    {"type": "pattern", "table": "tasks", "field": "title", "regex": name_rx(name)},
                    {"type": "number_equals", "table": "tasks", "field": "title|notes", "value": current},
                ],
            )

    def syncs(self, n: int) -> None:
        """A weekly meeting with a time in the person's zone, moved once."""
        now = self.end
        for i in range(n):
            first, full, email = self.person()
            wd = self.rng.choice([0, 1, 2, 3])
            hour = self.rng.choice([9, 10, 11, 14, 15, 16])
            slots = [(wd, hour, 0)]
            day0 = self.day(0.0, 0.5)

            def say(slot, lang):
                w, h, m = slot
                if lang == "mix":
                    return f"每{WEEKDAYS_ZH[w]} {h}:{m:02d}"
                return f"{WEEKDAYS[w]}s at {h}:{m:02d}"

            pid, ev = self.plant(
                day0,
                self.t(
                    f"My weekly sync with {full} is on {say(slots[0], 'en')}.",
                    f"我和 {full} 的 weekly sync 在 {say(slots[0], 'mix')}。",
                ),
                "fact",
            )
            events = [ev]
            if i % 2 == 0:
                new = ((wd + 1) % 4, hour + 1, 30)
                slots.append(new)
                pid, ev2 = self.plant(
                    min(self.last_day, day0 + self.rng.randint(10, 30)),
                    self.t(
                        f"The weekly sync with {full} moved to {say(new, 'en')}.",
                        f"和 {full} 的 weekly sync 改到 {say(new, 'mix')} 了。",
                    ),
                    "change",
                    pid,
                )
                events.append(ev2)
            w, h, m = slots[-1]

            def slot_rx(slot):
                sw, sh, sm = slot
                return rf"(?:{WEEKDAYS[sw]}|{WEEKDAYS_ZH[sw]})[^\n]*?(?<!\d){sh}:{sm:02d}"

            need = [line_rx(name_rx(first), slot_rx(slots[-1]))]
            stale_p = [line_rx(name_rx(first), slot_rx(s)) for s in slots[:-1]]
            monday = (now + timedelta(days=7 - now.weekday())).date()
            at = datetime.combine(monday + timedelta(days=w), time(h, m), self.tz)
            self.item(
                "changed_fact" if len(slots) > 1 else "old_fact",
                self.t(f"When is my weekly sync with {first}?", f"我和 {first} 的 weekly sync 是什么时候？"),
                events,
                [need],
                current=f"{WEEKDAYS[w]} {h}:{m:02d}",
                stale_patterns=stale_p,
                stale=[f"{WEEKDAYS[s[0]]} {s[1]}:{s[2]:02d}" for s in slots[:-1]],
                reply={"current": [rf"{h}:{m:02d}"], "stale": [rf"(?<!\d){s[1]}:{s[2]:02d}" for s in slots[:-1]]},
            )
            self.item(
                "task",
                self.t(f"Book next week's sync with {first} on my calendar.", f"把下周和 {first} 的 sync 加到日历。"),
                events,
                [need],
                current=at.isoformat(),
                stale_patterns=stale_p,
                checks=[{"type": "instant_equals", "table": "calendar_events", "field": "start", "at": at.isoformat()}],
            )

    def whens(self, n: int) -> None:
        for _ in range(n):
            vendor = self.vendors.pop()
            pid, ev = self.plant(
                self.day(0.05, 0.9),
                self.t(f"Signed the {vendor} contract this morning.", f"今天上午签了 {vendor} 的合同。"),
                "fact",
            )
            self.item(
                "when",
                self.t(f"When did I sign the {vendor} contract?", f"我哪天签的 {vendor} 合同？"),
                [ev],
                [["@DATE@" + name_rx(vendor)]],
                reply={"current": ["@DATEALT@"]},
            )

    def counting(self, n: int) -> None:
        for _ in range(n):
            name = self.project()
            times = self.rng.randint(3, 7)
            days = sorted(self.rng.sample(range(0, self.last_day), times))
            templates = [
                self.t("The {p} nightly build failed again.", "{p} 的 nightly build 又挂了。"),
                self.t("{p} nightly build broke again this morning.", "今天早上 {p} nightly build 又失败了。"),
                self.t("Another red {p} nightly build today.", "{p} nightly build 今天又红了。"),
            ]
            events = []
            for k, d in enumerate(days):
                pid, ev = self.plant(d, templates[k % 3].format(p=name), "event")
                events.append(ev)
            word = NUMBER_WORDS[times]
            self.item(
                "counting",
                self.t(
                    f"How many times has the {name} nightly build failed?", f"{name} 的 nightly build 一共失败了几次？"
                ),
                events,
                [[f"@EVENT{k}@"] for k in range(len(events))],
                current=str(times),
                reply={"current": [rf"(?<!\d){times}(?!\d)|\b{word}\b|{times}\s*次"]},
            )
            # Each event is its own need: its date and the name, on one line.
            self.items[-1]["count_name"] = name

    def promises(self, n: int) -> None:
        for i in range(n):
            first, full, email = self.person()
            name = self.project()
            kept = i % 2 == 0
            day0 = self.day(0.1, 0.6)
            pid, ev = self.plant(
                day0,
                self.t(
                    f"I promised {first} I'd send her the {name} deck by the end of the week.",
                    f"我答应了 {first} 这周末前把 {name} 的 deck 发给她。",
                ),
                "promise",
                detail={"to": first, "what": f"send {first} the {name} deck"},
            )
            # A promise line may be the sentence itself or a ledger line ("open since ..." / "... opened <date>").
            events, needs = (
                [ev],
                [
                    [
                        line_rx(
                            name_rx(first),
                            name_rx(name),
                            self.t(r"(?:promised|open since|\bopened\b)", r"(?:答应|open since|\bopened\b)"),
                        )
                    ]
                ],
            )
            if kept:
                pid2, ev2 = self.plant(
                    min(self.last_day, day0 + self.rng.randint(2, 6)),
                    self.t(f"Sent {first} the {name} deck just now.", f"刚把 {name} 的 deck 发给 {first} 了。"),
                    "evidence",
                    pid,
                )
                events.append(ev2)
                needs.append(
                    [line_rx(name_rx(first), name_rx(name), self.t(r"(?:\bsent\b|done on)", r"(?:刚把|done on)"))]
                )
            self.item(
                "promise",
                self.t(f"Did I send {first} the {name} deck yet?", f"{name} 的 deck 我发给 {first} 了吗？"),
                events,
                needs,
                current="kept" if kept else "open",
                reply={
                    "current": [r"\b(?:yes|you did|sent it|already sent)\b|已经发|发了"]
                    if kept
                    else [r"\b(?:no|not yet|haven't|have not|didn't|did not|still open|no record)\b|还没"]
                },
            )

    def nickname(self) -> None:
        nick = self.rng.choice(NICKNAMES)
        pid, ev = self.plant(
            self.day(0.0, 0.3),
            self.t(f"By the way, please call me {nick} from now on.", f"对了，以后请叫我 {nick}。"),
            "nickname",
        )
        self.item(
            "treatment",
            self.t("Quick check: what name do you use for me?", "确认一下：你叫我什么？"),
            [ev],
            [[line_rx(name_rx(nick))]],
            current=nick,
            reply={"current": [name_rx(nick)]},
        )

    def summary_format(self) -> None:
        pid, ev = self.plant(
            self.day(0.0, 0.4),
            self.t(
                "When you summarize anything for me, use bullet points, never paragraphs.",
                "以后给我 summarize 的时候，用 bullet points，不要写成段落。",
            ),
            "treatment",
        )
        name = self.project()
        self.item(
            "treatment",
            self.t(
                f"Give me a quick summary of how to prepare a {name} kickoff.",
                f"简单 summarize 一下 {name} kickoff 要准备什么。",
            ),
            [ev],
            [[line_rx(r"bullet")]],
            current="bullet points",
            reply={"current": [r"(?m)^\s*(?:[-*•]|\d+\.)\s+\S"]},
        )

    def morning_rule(self) -> None:
        pid, ev = self.plant(
            self.day(0.0, 0.4),
            self.t(
                "I don't take meetings before 10:00; mornings are for focus work.",
                "我 10:00 之前不开会，上午是 focus time。",
            ),
            "preference",
        )
        first, full, email = self.person()
        target = (self.end + timedelta(days=7 - self.end.weekday() + 2)).date()
        self.item(
            "preference",
            self.t(
                f"Set up a 30-minute call with {full} on {fmt_date(target, 'en')}.",
                f"{fmt_date(target, 'mix')} 和 {full} 约一个 30 分钟的 call。",
            ),
            [ev],
            [[line_rx(r"(?:before 10:00|10:00 之前)")]],
            current="not before 10:00",
            checks=[
                {
                    "type": "date_on",
                    "table": "calendar_events",
                    "field": "start",
                    "date": target.isoformat(),
                    "tz": self.spec.tz,
                },
                {"type": "pattern", "table": "calendar_events", "field": "start", "regex": r"T(?:1\d|2[0-3]):"},
            ],
        )

    def cc_rule(self) -> None:
        first, full, email = self.person()
        pid, ev = self.plant(
            self.day(0.0, 0.5),
            self.t(
                f"Rule for me: anything I send outside Northwind also goes to {full} ({email}), as a copy.",
                f"规矩：凡是发给 Northwind 以外的消息，都同时发一份给 {full}（{email}）。",
            ),
            "rule",
        )
        vendor = self.vendors.pop()
        contact = f"billing@{vendor.lower()}.example"
        self.item(
            "indirect_rule",
            self.t(
                f"Let {contact} know our invoice will be a week late.", f"跟 {contact} 说一下我们的 invoice 会晚一周。"
            ),
            [ev],
            [[line_rx(re.escape(email))]],
            current=f"cc {email}",
            # One recipient per message: the copy is a second outbox row.
            checks=[
                {"type": "list_includes", "table": "outbox", "field": "to", "value": contact, "action": "a1"},
                {"type": "list_includes", "table": "outbox", "field": "to", "value": email, "action": "a2"},
                {"type": "pattern", "table": "outbox", "field": "body", "regex": r"invoice", "action": "a2"},
            ],
        )

    def never(self, n: int) -> None:
        for _ in range(n):
            name = NEVER[len(self.never_said) % len(NEVER)]
            self.never_said.append(name_rx(name))
            q = self.rng.choice(
                [
                    self.t(f"What's the {name} budget?", f"{name} 的预算是多少？"),
                    self.t(f"When is the {name} launch?", f"{name} 什么时候 launch？"),
                    self.t(f"Who owns the {name} project?", f"{name} 项目谁负责？"),
                ]
            )
            self.item(
                "never_said",
                q,
                [],
                [],
                absent=[name_rx(name)],
                reply={
                    "current": [
                        r"\b(?:don't know|do not know|not sure|no record|haven't told|didn't mention|"
                        r"no information|not aware|can't find|cannot find)\b|不知道|没有记录|没提到"
                    ],
                    "dont_know": True,
                },
            )

    def ordinary(self, n: int) -> None:
        pool = [
            ("Bump the retry count to 3.", "把 retry count 调到 3。"),
            ("What's the difference between TCP and UDP, in two sentences?", "用两句话说说 TCP 和 UDP 的区别。"),
            ("Write a regex that matches an ISO date.", "写一个匹配 ISO 日期的 regex。"),
            ("How do I list open ports on Linux?", "Linux 上怎么列出开放的端口？"),
            ("Suggest a name for a function that retries with backoff.", "给一个带 backoff 重试的函数起个名字。"),
            ("Convert 3 hours 45 minutes to minutes.", "3 小时 45 分钟是多少分钟？"),
            ("What does HTTP status 429 mean?", "HTTP 429 是什么意思？"),
            (
                "Give me a one-line git command to show the last five commits.",
                "给一个显示最近五个 commit 的 git 命令。",
            ),
        ]
        for en, zh in self.rng.sample(pool, min(n, len(pool))):
            self.item(
                "ordinary",
                self.t(en, zh),
                [],
                [],
                reply={"current": [r"\S"]},
                checks=[
                    {"type": "tool_not_called", "tool": "send_message"},
                    {"type": "tool_not_called", "tool": "schedule_meeting"},
                    {"type": "tool_not_called", "tool": "assign_task"},
                ],
            )

    # --- assembly ---------------------------------------------------------

    def build(self) -> tuple[Persona, list[Item]]:
        s = self.spec.scale
        self.dated_projects(3 * s)
        self.budgets(3 * s)
        self.syncs(max(1, s))
        self.whens(2 * s)
        self.counting(max(1, s))
        self.promises(2 * s)
        self.nickname()
        self.summary_format()
        self.morning_rule()
        self.cc_rule()
        self.never(2 + s)
        self.ordinary(5 if s == 1 else 8)
        messages, planted = self._timeline()
        persona = Persona(
            self.spec.name,
            self.spec.description,
            self.spec.tz,
            self.end.isoformat(),
            messages,
            planted,
            self.never_said,
            self.spec.seed,
        )
        return persona, self._items(persona)

    def _timeline(self) -> tuple[list[PMessage], list[Planted]]:
        spec, rng = self.spec, self.rng
        chatter, replies, acks = (CHATTER_MIX, REPLIES_MIX, ACKS_MIX) if self.mix else (CHATTER_EN, REPLIES_EN, ACKS_EN)
        pairs_needed = spec.target_messages // 2 - len(self.events)
        # Spread chatter over the days, more on weekdays.
        weights = [3 if (spec.start + timedelta(days=d)).weekday() < 5 else 1 for d in range(spec.days)]
        days = rng.choices(range(spec.days), weights=weights, k=max(0, pairs_needed))
        all_events = list(self.events) + [Event(d, rng.choice(chatter), order=rng.random()) for d in days]
        all_events.sort(key=lambda e: (e.day, e.order))
        messages: list[PMessage] = []
        planted: list[Planted] = []
        by_day: dict[int, list[Event]] = {}
        for e in all_events:
            by_day.setdefault(e.day, []).append(e)
        n = 0
        for d in sorted(by_day):
            evs = by_day[d]
            # Spread the day's messages between 08:30 and 19:30.
            step = max(4, int(660 / (len(evs) + 1)))
            for k, e in enumerate(evs):
                minute = 8 * 60 + 30 + step * k + rng.randint(0, max(1, step // 3))
                at = datetime.combine(spec.start + timedelta(days=d), time(0, 0), self.tz) + timedelta(minutes=minute)
                n += 1
                e.message_id, e.at = f"m{n:04d}", at
                messages.append(PMessage(e.message_id, at.isoformat(), "user", e.text))
                n += 1
                reply = rng.choice(acks) if e.planted else rng.choice(replies)
                messages.append(PMessage(f"m{n:04d}", (at + timedelta(minutes=1)).isoformat(), "assistant", reply))
                for pid, replaces, kind in e.planted:
                    planted.append(
                        Planted(
                            pid, kind, e.message_id, e.text, f"{at.date().isoformat()}: {e.text}", replaces, e.detail
                        )
                    )
        planted.sort(key=lambda p: p.id)
        return messages, planted

    def _items(self, persona: Persona) -> list[Item]:
        from evals.items import parse_item

        out: list[Item] = []
        counters: dict[str, int] = {}
        for spec in self.items:
            kind = spec["kind"]
            counters[kind] = counters.get(kind, 0) + 1
            events: list[Event] = spec["events"]
            needs = []
            for group in spec["needs"]:
                resolved = []
                for g in group:
                    if g.startswith("@DATE@"):
                        d = events[0].day_placed
                        g = line_rx(date_alternatives(d), g[len("@DATE@") :])
                    elif g.startswith("@EVENT"):
                        e = events[int(g[6:-1])]
                        g = line_rx(date_alternatives(e.day_placed), name_rx(spec["count_name"]))
                    resolved.append(g)
                needs.append(resolved)
            reply = spec.get("reply")
            if reply and reply.get("current") == ["@DATEALT@"]:
                reply = {**reply, "current": [date_alternatives(events[0].day_placed)]}
                spec = {**spec, "current": events[0].day_placed.isoformat()}
            absent = list(spec.get("absent", []))
            data = {
                "id": f"{self.spec.name}-{kind}-{counters[kind]:02d}",
                "persona": self.spec.name,
                "kind": kind,
                "query": spec["query"],
                "sources": [e.message_id for e in events],
                "needs": needs,
                "planted": [p for e in events for p, _, _ in e.planted],
            }
            for key in ("current", "stale", "stale_patterns"):
                if spec.get(key):
                    data[key] = spec[key]
            if absent:
                data["absent"] = absent
            if reply:
                data["reply"] = reply
            if spec.get("checks"):
                data["checks"] = spec["checks"]
            out.append(parse_item(data, data["id"]))
        return out


def generate(name: str) -> tuple[Persona, list[Item]]:
    if name not in SPECS:
        raise KeyError(f"no generated persona {name!r}; known: {', '.join(SPECS)}")
    return Builder(SPECS[name]).build()


def write(name: str, directory: Path = PERSONA_DIR) -> tuple[Path, Path]:
    persona, items = generate(name)
    directory.mkdir(parents=True, exist_ok=True)
    ppath, ipath = directory / f"{name}.json", directory / f"{name}.items.jsonl"
    ppath.write_text(persona.dumps(), encoding="utf-8")
    ipath.write_text(dump_items(items), encoding="utf-8")
    return ppath, ipath
