"""memory.recall: BM25 ranking, the relevance gate, superseded facts, the cached index."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory import recall
from memory.db import transaction

DEV = Path(__file__).parent / "data" / "recall_dev.jsonl"

DOCS = [
    "The Billing cutover moved to November 10.",
    "Priya Shah is the product manager for the Atlas mobile app.",
    "The Q3 marketing budget is $45,000.",
    "The weekly design review happens every Thursday at 10:00.",
    "张伟负责上海办公室的招聘，预算是5万元。",
]


def _add_fact(db, text, status="active", replaces=None, touched="2026-10-07T09:00:00"):
    with transaction(db) as conn:
        cur = conn.execute(
            "INSERT INTO facts (text, said_on, status, replaces, created_at, touched_at) VALUES (?, ?, ?, ?, ?, ?)",
            (text, text[:10], status, replaces, touched, touched),
        )
        return cur.lastrowid


def test_rank_puts_the_matching_document_first_with_scores_descending():
    ranked = recall.rank("when is the billing cutover", DOCS, 3)
    assert ranked[0][0] == 0
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_rank_matches_numbers_across_spellings():
    assert recall.rank("is the Q3 marketing budget still 45k?", DOCS, 1)[0][0] == 2
    assert recall.rank("上海招聘预算 50000", DOCS, 1)[0][0] == 4


def test_rank_has_no_gate_and_recall_has_one():
    assert recall.rank("The checkout latency graph is red on Thursday.", DOCS, 12)  # shares "thursday"
    assert recall.recall("The checkout latency graph is red on Thursday.", DOCS) == []
    assert recall.recall("What is my dog's name?", DOCS) == []
    assert recall.recall("When is the design review?", DOCS)[0][0] == 3


def test_recall_returns_at_most_k():
    docs = [f"The Atlas release {i} shipped." for i in range(30)]
    assert len(recall.recall("Atlas release shipped", docs, k=12)) == 12


def test_gate_thresholds_keep_the_measured_dev_set_figures():
    """The chosen gate, measured on tests/data/recall_dev.jsonl (48 facts): 1 of
    48 ordinary turns and 1 of 17 absent questions got a fact (both task-shaped
    "email/forward" turns given the person's rule about emails); 47 of 48
    answerable turns kept their gold fact: all 30 questions, 17 of 18 tasks, all
    3 tasks whose gold is a standing rule. Bound: one turn either way."""
    from evals.bench.gate import evaluate, load
    from memory.recall import _DocsIndex, fact_body

    dev = load(DEV)
    docs = _DocsIndex([fact_body(f["text"]) for f in dev["facts"]])
    figures = evaluate(dev, lambda q, k: docs.recall(q, k))
    assert figures["ordinary_with_facts"] <= 2 / 48
    assert figures["absent_with_facts"] <= 2 / 17
    assert figures["answerable_keep_gold"] >= 46 / 48
    assert figures["questions_keep_gold"] >= 29 / 30
    assert figures["tasks_keep_gold"] >= 16 / 18
    assert figures["rules_keep_gold"] >= 2 / 3
    ungated = evaluate(dev, lambda q, k: docs.rank(q, k))
    assert ungated["ordinary_with_facts"] > 0.25  # the gate is what removes them
    plain = evaluate(dev, lambda q, k: docs.recall(q, k, task_aware=False))
    assert plain["tasks_keep_gold"] < figures["tasks_keep_gold"]  # what reading tasks adds


TEAM_FACTS = [
    "My manager is Priya Shah.",
    "Marco Bellini owns the Harbor project; his email is marco@northwind.example.",
    "The Harbor launch is set for December 6.",
    "The Prism launch moved to December 30.",
    "The Mica launch moved to December 18.",
    "I don't take meetings before 10:00; mornings are for focus work.",
    "Rule for me: anything I send outside Northwind also goes to Emil (emil@northwind.example) as a copy.",
    "Jonas prefers Slack over email.",
    "The staging database is Postgres 15.",
    "The Q3 marketing budget is $45,000.",
    "The design review is every Thursday.",
    "Sam owns the iOS release checklist.",
]


def _recalled(query, docs=TEAM_FACTS):
    return [docs[i] for i, _ in recall.recall(query, docs)]


def test_a_task_gets_the_fact_about_what_it_names_even_with_one_shared_word():
    assert "My manager is Priya Shah." in _recalled("Schedule a call with my manager tomorrow at 10am.")
    assert "My manager is Priya Shah." in _recalled("Schedule a call with my manager tomorrow at 10am.", ["My manager is Priya Shah."])
    got = _recalled("Tell the Harbor owner the launch date.")
    assert TEAM_FACTS[1] in got and TEAM_FACTS[2] in got
    assert TEAM_FACTS[3] not in got and TEAM_FACTS[4] not in got  # other launches share only "launch"


def test_a_task_gets_the_persons_standing_rules_for_its_kind_of_action_only():
    meeting = _recalled("Set up a 30-minute call with Kofi Mensah on December 9.")
    assert TEAM_FACTS[5] in meeting and TEAM_FACTS[6] not in meeting
    sending = _recalled("Let billing@litware.example know our invoice will be a week late.")
    assert TEAM_FACTS[6] in sending and TEAM_FACTS[5] not in sending
    assert TEAM_FACTS[7] not in sending  # Jonas's preference is not a rule of the person's


def test_questions_and_task_shaped_turns_that_name_nothing_stored_get_no_rules_or_facts():
    assert _recalled("When is the design review meeting?") == [TEAM_FACTS[10]]  # a question gets no rules
    assert _recalled("Create a new branch called fix-login.") == []
    assert _recalled("Set a timer for ten minutes.") == []
    assert _recalled("Send me the link to the Python docs.") == []
    assert _recalled("Book a table for two at 8pm tonight.") == []
    assert _recalled("What's the difference between TCP and UDP?") == []


CN_FACTS = [
    "Elena Petrova 负责 Zenith 项目，邮箱是 elena.petrova@northwind.example。",
    "Zenith 的 launch 定在 12月19日。",
    "Kiln 的预算是 $57,000。",
    "我 10:00 之前不开会，上午是 focus time。",
    "规矩：凡是发给 Northwind 以外的消息，都同时发一份给 Ingrid Dahl（ingrid.dahl@northwind.example）。",
    "Ember 的 nightly build 又挂了。",
]


def test_chinese_and_mixed_questions_and_tasks():
    assert _recalled("Zenith 什么时候 launch？", CN_FACTS) == [CN_FACTS[1]]
    assert set(_recalled("告诉 Zenith 的负责人 launch 日期。", CN_FACTS)) >= {CN_FACTS[0], CN_FACTS[1], CN_FACTS[4]}
    assert CN_FACTS[3] in _recalled("12月9日 和 Kofi Mensah 约一个 30 分钟的 call。", CN_FACTS)
    sending = _recalled("跟 billing@wingtip.example 说一下我们的 invoice 会晚一周。", CN_FACTS)
    assert CN_FACTS[4] in sending and CN_FACTS[3] not in sending
    assert _recalled("把 retry count 调到 3。", CN_FACTS) == []


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("Send the deck to Aisha.", {"send"}),
        ("Please let Omar know the build is green.", {"send"}),
        ("Can you book a call with my accountant?", {"do", "meet"}),
        ("Add a task to raise the Ledger purchase order.", {"do"}),
        ("Send me the link.", {"do"}),
        ("Who owns the Harbor project?", set()),
        ("The build is green again.", set()),
        ("告诉 Zenith 的负责人 launch 日期。", {"send"}),
        ("把 Zenith 的 launch 加到我的日历上。", {"do", "meet"}),
        ("Zenith 什么时候 launch？", set()),
    ],
)
def test_tasks_reads_the_kind_of_action_a_turn_asks_for(query, kinds):
    assert recall.tasks(query) == kinds


def test_recall_facts_returns_active_facts_dated(db):
    fid = _add_fact(db, "2026-09-02: The Billing cutover moved to November 10.")
    _add_fact(db, "2026-09-03: Priya Shah is the product manager for the Atlas mobile app.")
    got = recall.recall_facts(db, "When is the billing cutover?")
    assert [(r.fact_id, r.status) for r in got] == [(fid, "active")]
    assert got[0].text.startswith("2026-09-02: ")


def test_recall_facts_is_empty_on_a_turn_that_needs_no_memory(db):
    _add_fact(db, "2026-09-02: The Billing cutover moved to November 10.")
    _add_fact(db, "2026-09-08: The payments retry policy was reviewed by Sam.")
    assert recall.recall_facts(db, "Bump the retry count to 3.") == []
    assert recall.recall_facts(db, "What is my dog's name?") == []


def test_superseded_facts_are_never_recalled_as_current(db):
    old = _add_fact(db, "2026-09-02: The Billing cutover is on October 20.", status="superseded")
    new = _add_fact(db, "2026-09-20: The Billing cutover moved to November 10.", replaces=old)
    got = recall.recall_facts(db, "When is the Billing cutover?")
    assert [r.fact_id for r in got] == [new]


def test_a_what_changed_question_gets_superseded_facts_marked(db):
    _add_fact(db, "2026-09-03: Priya Shah is the product manager for the Atlas mobile app.")
    _add_fact(db, "2026-09-04: The Q3 marketing budget is $45,000.")
    _add_fact(db, "2026-09-05: The weekly design review happens every Thursday at 10:00.")
    old = _add_fact(db, "2026-09-02: The Billing cutover is on October 20.", status="superseded")
    new = _add_fact(db, "2026-09-20: The Billing cutover moved to November 10.", replaces=old)
    got = {r.fact_id: r.status for r in recall.recall_facts(db, "What was the Billing cutover date before it changed?")}
    assert got == {old: "superseded", new: "active"}


def test_deleted_and_archived_facts_are_not_recalled_into_the_prompt(db):
    _add_fact(db, "2026-09-02: The Billing cutover is on October 20.", status="deleted")
    _add_fact(db, "2026-09-03: The Billing cutover owner is Sam.", status="archived")
    assert recall.recall_facts(db, "Billing cutover owner?") == []


def test_fact_index_is_cached_and_rebuilt_when_facts_change(db, monkeypatch):
    _add_fact(db, "2026-09-02: The Billing cutover moved to November 10.")
    builds = []
    real = recall._FactIndex

    def counting(*args):
        builds.append(1)
        return real(*args)

    monkeypatch.setattr(recall, "_FactIndex", counting)
    recall._FACT_CACHE.clear()
    recall.recall_facts(db, "billing cutover")
    recall.recall_facts(db, "billing cutover date")
    assert len(builds) == 1
    fid = _add_fact(db, "2026-10-01: The Orion search launch is November 18.")
    assert [r.fact_id for r in recall.recall_facts(db, "Orion search launch")] == [fid]
    assert len(builds) == 2
    with transaction(db) as conn:  # a status change alone must invalidate too
        conn.execute("UPDATE facts SET status = 'archived' WHERE id = ?", (fid,))
    assert recall.recall_facts(db, "Orion search launch") == []
    assert len(builds) == 3


@pytest.mark.parametrize("query", ["", "   ", "?!", "the and of"])
def test_empty_or_stop_word_queries_recall_nothing(db, query):
    _add_fact(db, "2026-09-02: The Billing cutover moved to November 10.")
    assert recall.recall_facts(db, query) == []
