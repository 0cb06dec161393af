"""memory.text.acts: requests, questions and statements, in English and Chinese.

The labelled sets are evals/data/acts_*.jsonl (`kept bench acts`);
these tests pin the mechanism (sentence shapes), not those items.
"""

from __future__ import annotations

import pytest

from evals.bench import acts as bench
from memory.text import acts, tokens
from memory.text.acts import (
    QUESTION,
    REQUEST,
    STATEMENT,
    about_talk,
    about_the_person,
    act,
    asks_for_the_speaker,
    asks_only,
    asks_to_act,
    asks_to_tell,
    is_question,
    is_request,
    self_contained,
    sentences,
    split,
    without_material,
)


@pytest.mark.parametrize(
    "text",
    [
        "Could you book a table for two?",
        "Would you kindly forward the notes to Ann?",
        "Are you able to call the vendor?",
        "Would it be possible to shift the demo to noon?",
        "Why don't we invite Kim as well?",
        "How about moving it to 5?",
        "Would you mind texting Bo that I'm late?",
        "Do you think you could file the expense report?",
        "I'd like you to add milk to my list.",
        "Email Ann the agenda, ok?",
        "Ok, ping the team.",
        "你能帮我订个会议室吗？",
        "可不可以帮我发一下周报？",
        "请把报告发给老板。",
        "把会议推迟半小时。",
        # an object opening with a number word or an indefinite pronoun
        "Please hire nine chairs from the depot for Friday.",
        "Get somebody to water the plants while I'm away.",
        "Order something vegetarian for the workshop lunch.",
    ],
)
def test_requests_are_requests_whatever_their_form(text):
    assert is_request(text)
    assert not is_question(text)
    assert not asks_only(text)


@pytest.mark.parametrize(
    "text",
    [
        "Did I reply to Ann?",
        "When does the train leave?",
        "Is Kim coming on Friday?",
        "Could Bo have sent it already?",
        "Can you tell me when the review is?",
        "Remind me what Ann said about the budget.",
        "The demo is at 3, right?",
        "How about the invoice, was it paid?",
        "我有没有回复Ann？",
        "报告发了吗？",
        "明天谁值班？",
    ],
)
def test_real_questions_only_ask(text):
    assert is_question(text)
    assert not is_request(text)
    assert asks_only(text)


@pytest.mark.parametrize(
    "text", ["Kim moved to Lisbon.", "Ann Lee joined the team.", "Thanks a lot!", "我下午在家。", "好的。"]
)
def test_statements_are_neither(text):
    assert act(text) == STATEMENT


def test_a_turn_can_ask_and_request():
    text = "Did I pay the bill? If not, pay it now."
    assert is_question(text) and is_request(text)
    assert not asks_only(text)


def test_sentences_keep_numbers_and_abbreviations_whole():
    text = "Meet at 10.30 a.m. tomorrow. Then call Dr. Lee!  好的。谢谢"
    assert split(text) == ["Meet at 10.30 a.m. tomorrow.", "Then call Dr. Lee!", "好的。", "谢谢"]
    assert [text[a:b] for a, b in sentences(text)] == split(text)


@pytest.mark.parametrize(
    "text",
    [
        "where's the spare key",
        "who signed off on the refund",
        "how long is the flight to Porto",
        "what the landlord said about the deposit",
        "did kim pay the invoice",
        "have the movers confirmed",
        "下午几点开会",
    ],
)
def test_unmarked_lowercase_questions_are_questions(text):
    assert act(text) == QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "is grandad staying over on saturday",  # be + subject + participle: the progressive asked
        "are the painters starting monday",
        "how often has the boiler broken down",  # the inversion after how's degree word
        "how many weeks has the permit been stuck",
    ],
)
def test_inversion_past_the_first_words_asks_without_a_question_mark(text):
    assert act(text) == QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "was thinking we could push it a week",  # the subject dropped, no inversion
        "is being sorted by facilities now",
    ],
)
def test_a_copula_without_an_inverted_subject_does_not_ask(text):
    assert act(text) != QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "I forget the name of the plumber we used",
        "I can't remember when the gym contract ends.",
        "not sure who signs off on travel",
        "the boiler is making that noise again, who do we call",
        "a parcel came for Ruth - where should it go",
    ],
)
def test_saying_what_one_does_not_know_or_asking_after_a_scene_is_a_question(text):
    assert act(text) == QUESTION


@pytest.mark.parametrize(
    "text",
    [
        "I know what you mean.",
        "I forget things when I'm tired.",
        "Moved the gym session again, not sure if it holds.",
        "The plumber came, and the boiler works again.",
    ],
)
def test_knowing_verbs_and_commas_alone_ask_nothing(text):
    assert act(text) == STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "When the parcel arrives, I'll let you know.",
        "where we stayed last year we'll stay again",
        "What a week!",
        "Had fun today!",
        "Has been a long day.",
    ],
)
def test_clauses_of_time_and_exclamations_are_statements(text):
    assert act(text) == STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "Please call me Bea.",
        "Just call me by my first name.",
        "You can refer to me as Professor Lind.",
        "Reply in Spanish, please.",
        "Always answer with a short summary first.",
        "Keep it short, I'm on mobile.",
        "Be more direct with me.",
        "Never use jargon when you write to me.",
        "以后请叫我阿明。",
        "请用英文回复。",
        "回复简洁一点。",
    ],
)
def test_wishes_about_how_kept_talks_are_not_requests_to_act(text):
    assert not is_request(text)
    assert act(text) == STATEMENT


@pytest.mark.parametrize(
    "text",
    [
        "Call me a taxi for 6.",
        "Call me back after lunch.",
        "Reply to the landlord today.",
        "Write Bo a thank-you note.",
    ],
)
def test_acting_verbs_with_something_to_act_on_stay_requests(text):
    assert is_request(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Update: the courier came early.", STATEMENT),
        ("Heads up, the printer is broken again.", STATEMENT),
        ("Note: Kim starts on Monday.", STATEMENT),
        ("Bo, send me the receipts.", REQUEST),
        ("Quick one: is the lab open on Sunday?", QUESTION),
    ],
)
def test_a_label_before_a_colon_or_comma_lets_the_rest_decide(text, expected):
    assert act(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Do you mind emailing Ann the slides?",
        "Could I ask you to cancel my 4pm?",
        "Can I get you to order more paper?",
        "是否可以帮我订明早的车？",
        "您方便帮我改一下时间吗？",
    ],
)
def test_polite_questions_that_ask_for_an_action_are_requests(text):
    assert is_request(text)
    assert not asks_only(text)


def test_acts_are_the_three_labels():
    assert {act("Send it."), act("Did I?"), act("Fine.")} == {REQUEST, QUESTION, STATEMENT}


@pytest.mark.parametrize("split_name", bench.available())
def test_labelled_sets_are_well_formed(split_name):
    items = bench.load(split_name)
    assert len(items) >= 30
    assert {i["label"] for i in items} == {REQUEST, QUESTION, STATEMENT}
    assert any("\u4e00" <= ch <= "\u9fff" for i in items for ch in i["text"])


def test_the_acting_figures_count_statements_read_as_acting_and_requests_by_their_tool():
    items = [
        {"text": "Booked the van for Friday, Ines is driving.", "label": "statement", "tool": None},
        {"text": "Book a meeting with Ines tomorrow at 3.", "label": "request", "tool": "schedule_meeting"},
        {"text": "Tell Ines that the van is booked.", "label": "request", "tool": "send_message"},
        {"text": "Tell Ines that the van is booked.", "label": "request", "tool": "assign_task"},  # misread
    ]
    figures = bench.acting(items)
    assert figures == {
        "statements read as asking to act": (0, 1),
        "requests for a tool read as asking to act": (3, 3),
        "  their tool read right": (2, 3),
        "  by shapes alone": (2, 3),
    }
    assert bench.acting([{"text": "Send it.", "label": "request"}]) is None  # a split naming no tools


def test_the_misses_of_a_held_out_split_are_not_listed(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--show", "test5"])
    assert "held out" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text", ["以后就叫我阿杰吧。", "请用英文回复我。", "回答尽量简洁。", "Call me 阿杰 from now on."]
)
def test_about_talk_reads_chinese_wishes_as_the_sentence_reading_does(text):
    # SOUL takes what about_talk reads; it must agree with act(), which calls these statements.
    assert about_talk(text)
    assert act(text) == STATEMENT


@pytest.mark.parametrize("text", ["叫我起床。", "帮我用英文写一封邮件给房东。", "明天叫我去开会。"])
def test_about_talk_leaves_chinese_requests_to_act(text):
    assert not about_talk(text)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Where does my sister work?", True),
        ("did i ever pay the plumber", True),
        ("我的车停在哪里？", True),
        ("Have we sent the contract yet?", True),
        ("What is a VAT number?", False),
        ("Did Priya sign it?", False),
        ("Is mine the blue one?", True),
    ],
)
def test_about_the_person_reads_possessives_and_the_person_as_subject(text, expected):
    assert about_the_person(text) is expected


# --- self_contained: kinds and the world at large, or the message's own text -----------------
#
# Each class below is asked both ways: about kinds (nothing stored can change the answer) and
# about a particular thing of the person's (the same topic), which may get memory.

KINDS, CARRIED = "asks about kinds", "works on the text it carries"


def _names(*words: str) -> set[str]:
    """The index terms a store's names stand for, as recall passes them."""
    return {t for w in words for t in tokens(w)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # no particular reference at all: bare plurals, mass nouns, indefinites, numbers given
        ("what is sourdough starter", KINDS),
        ("Which grapes grow well on chalk?", KINDS),
        ("how many calories are in a croissant", KINDS),
        ("what's 12% of 640", KINDS),
        # ...and the same topics about particular things
        ("what is in the sourdough starter jar", None),
        ("Which grapes did we plant?", None),
        ("how many croissants are left from this morning", None),
        ("Is the sourdough class on Friday?", None),
        ("Did she order the grapes?", None),
        ("What did the vet charge?", None),
        ("who picks up the croissants", None),
    ],
)
def test_a_question_with_no_particular_reference_is_about_kinds(text, expected):
    assert self_contained(text) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("How long do beehives usually last?", set(), KINDS),
        ("How long does the MOT typically take?", set(), KINDS),
        ("In general, are heat pumps loud?", set(), KINDS),
        ("Do ferries normally run in fog in Oban?", _names("Oban"), KINDS),
        ("How long does my beehive usually last?", set(), None),
        ("When does Odile usually finish?", _names("Odile"), None),
        ("How long did the MOT take this time?", set(), None),
        ("Is the heat pump usually this loud?", set(), None),
    ],
)
def test_a_habitual_or_generic_adverb_speaks_of_a_kind_unless_someone_particular_is_its_subject(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("What's the difference between a latte and a flat white?", set(), KINDS),
        ("How is Figma different from Sketch?", _names("Figma", "Sketch"), KINDS),
        ("gouache vs acrylic, which dries faster?", set(), KINDS),
        ("how far is Braga from Porto", _names("Braga", "Porto"), KINDS),
        ("Which trains go from Leeds to York?", _names("Leeds", "York"), KINDS),
        ("What's the difference between my two quotes?", set(), None),
        ("How is this quote different from the last one?", set(), None),
        ("how far is my hotel from Porto", _names("Porto"), None),
        ("When does my train from Leeds leave?", _names("Leeds"), None),
    ],
)
def test_comparisons_and_distances_are_about_the_things_compared_named_or_not(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Is parking expensive in Bristol?", _names("Bristol"), KINDS),
        ("What grows well at altitude near Quito?", _names("Quito"), KINDS),
        ("Is Odile in Bristol this week?", _names("Odile", "Bristol"), None),
        ("What's Bristol's office address?", _names("Bristol"), None),
        ("when is Larkspur due", _names("Larkspur"), None),
    ],
)
def test_a_stored_name_after_a_preposition_of_place_is_the_setting_not_the_subject(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("when's choir", None),
        ("what night is pottery", None),
        ("what time does yoga start", None),
        ("How many tickets are remaining?", None),
        ("How many sick days are left?", None),
        ("Which invoices are still outstanding?", None),
        ("When do choirs usually rehearse?", KINDS),
    ],
)
def test_the_time_of_an_occurrence_and_an_ongoing_situation_are_particular(text, expected):
    assert self_contained(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("日本的小学一般几点上课？", KINDS),
        ("一般几点接孩子？", None),  # the person's habit, the pronoun dropped
        ("大阪有什么好玩的？", KINDS),
        ("猫和狗有什么区别？", KINDS),
        ("女儿的学校几点上课？", None),  # pronoun dropped: a bare Chinese question stays particular
        ("公司有什么新规定？", None),  # 公司 is no named place
        ("我一般几点下班？", None),
        ("明天大阪有什么活动？", None),
    ],
)
def test_chinese_questions_are_general_only_by_a_generic_form(text, expected):
    assert self_contained(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("牙医一般建议多久洗一次牙？", KINDS),  # a noun before the generic adverb: what holds of the kind
        ("锂电池一般能充多少次？", KINDS),
        ("SSD 通常能用几年？", KINDS),  # a Latin noun is a subject too
        ("周一一般几点开会？", None),  # a time word is no subject: the person's habit
        ("下班以后一般去哪儿？", None),
        ("你一般几点起床？", None),  # a pronoun: someone particular
    ],
)
def test_a_chinese_generic_adverb_after_a_noun_phrase_speaks_of_kinds(text, expected):
    assert self_contained(text) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("帮我把这段话改得正式一点：周五见。", set(), CARRIED),
        ("Tidy up this wording: meeting moved to noon", set(), CARRIED),
        ("Add a task: order the Topaz parts", set(), None),
        ("Polish this: Ines moved the meeting to noon", set(), None),
        ("Help me shorten this: we are pleased to announce the new opening hours", set(), CARRIED),
        ("Tell Odile: meeting moved to noon", _names("Odile"), None),
        ("Remind me tomorrow: call the vet", set(), None),
        ("Add to my calendar: dentist 3pm", set(), None),
        ("Book the 10:30 slot with the vet", set(), None),
    ],
)
def test_a_request_that_works_on_the_text_it_carries_needs_nothing_of_the_persons(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        # The material is in the talk, pointed at by a demonstrative: work on it for the person.
        ("Condense this memo into three bullets for me.", set(), CARRIED),
        ("Proofread these paragraphs", set(), CARRIED),
        ("帮我把这篇报告翻译成英文。", set(), CARRIED),
        ("帮我把这个 table 按日期排好", set(), CARRIED),
        # ...and the same requests acting on someone or something particular, which may get memory.
        ("Forward this memo to Odile", _names("Odile"), None),
        ("Send these paragraphs to her", set(), None),
        ("Move this memo into my shared folder", set(), None),
        ("Book this Thursday with the vet", set(), None),
        ("帮我把这周的会议改到下午", set(), None),
        ("Approve this 4200 dollar invoice", set(), None),
    ],
)
def test_a_request_on_material_at_hand_needs_nothing_of_the_persons(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        # Quoted text is material without a pointer, an apostrophe inside it included, and the
        # language it goes "into" is no one taking part, even when the store names it.
        ("Translate 'the kettle's broken again' into Greek.", _names("Greek"), CARRIED),
        ("Turn 'the vet rang back' into English", _names("English"), CARRIED),
        # ...while someone taking part or the person's own things still may get memory.
        ("Tell Odile 'see you at noon'", _names("Odile"), None),
        ("Put 'dinner with the Brauns' into my calendar", set(), None),
    ],
)
def test_quoted_material_needs_no_pointer_and_its_target_language_takes_no_part(text, names, expected):
    assert self_contained(text, names) == expected


def test_without_material_drops_only_the_carried_text():
    assert without_material("Tidy up this wording: meeting moved to noon") == "Tidy up this wording"
    assert without_material("加一个任务：给 Topaz 开采购单") == "加一个任务：给 Topaz 开采购单"
    assert without_material("Remind me tomorrow: call the vet") == "Remind me tomorrow: call the vet"
    assert without_material("Call the vet at 10:30") == "Call the vet at 10:30"


def test_the_person_named_by_the_store_is_never_a_kind():
    assert self_contained("What books has Noor read?", person=True) is None


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        # "the" before a capital: a unique public thing; the person's capitalised things are stored names
        ("What were the main causes of the Great Depression?", set(), KINDS),
        ("When does the Larkspur review start?", _names("Larkspur"), None),
        ("When does the QA review start?", set(), None),
        # a possessive of a name the store lacks is a public thing's (or nobody the store can help with)
        ("How has Lisbon's tram network changed?", set(), KINDS),
        ("How has Lisbon's office changed?", _names("Lisbon"), None),
        ("What did Odile's vet charge?", _names("Odile"), None),
        ("what's the vet's number", set(), None),
        # a pronoun late in the question is bound by a noun of the same sentence
        ("What do beekeepers wear to protect their hands?", set(), KINDS),
        ("Did they wear gloves?", set(), None),
        ("Is it due this week?", set(), None),
    ],
)
def test_public_things_and_bound_pronouns_are_no_particular_of_the_persons(text, names, expected):
    assert self_contained(text, names) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what do you call me", None),
        ("which name do you use for me?", None),
        ("Can you tell me what sourdough starter is?", KINDS),
        ("Tighten this up for me: thanks for coming, see you soon", CARRIED),
    ],
)
def test_the_person_only_as_the_one_helped_is_not_the_topic(text, expected):
    assert self_contained(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # before any fact is kept, any word may name someone of the person's
        ("Which company is Ines with?", None),
        ("what does ines do for work", None),
        ("What changed about the Larkspur meeting?", None),
        # the forms that speak of kinds still do
        ("How long do beehives usually last?", KINDS),
        ("How is Figma different from Sketch?", KINDS),
    ],
)
def test_without_the_stores_names_only_the_forms_of_kinds_close_a_question(text, expected):
    assert self_contained(text, None) == expected


def test_with_the_stores_names_known_an_unanchored_question_is_about_kinds():
    assert self_contained("what does ines do for work", set()) == KINDS
    assert self_contained("what does ines do for work", _names("Ines")) is None


def test_a_place_name_modifying_a_common_noun_after_the_is_a_particular_thing():
    # "the Lisbon recital" is one recital, set in Lisbon; "the Lisbon Marathon" a public event's name.
    assert self_contained("On what date is the Lisbon recital?", set()) is None
    assert self_contained("What is the Lisbon Marathon known for?", set()) == KINDS
    assert self_contained("What is the Usher Hall in Edinburgh known for?", set()) == KINDS


def test_a_chinese_change_closed_by_le_is_reported_not_ordered():
    from memory.text.acts import is_request

    # 了 closing a verb of change says it happened; without it, or with 吧, it is asked for.
    assert not is_request("会议推迟到下周三了。")
    assert not is_request("客户那边说，交付改成月底了。")
    assert is_request("推迟到下周三吧。")
    assert is_request("改到周五。")


@pytest.mark.parametrize(
    "text",
    [
        "订好了。",
        "给老王发了。",
        "约了。",
        "删掉了。",
        "安排好了。",
        "提前到周三了。",
        "改成线上了。",
        "推迟到五月了。",
    ],
)
def test_a_sentence_final_le_right_after_its_opening_verb_reports_the_change_whatever_the_verb(text):
    from memory.text.acts import is_request

    assert not is_request(text), text


@pytest.mark.parametrize(
    "text",
    ["告诉她会议取消了。", "通知大家会议推迟了。", "把会取消了。", "订个会议室吧。", "改到周五。"],
)
def test_a_le_owned_by_a_carried_message_or_a_ba_order_leaves_the_order(text):
    from memory.text.acts import is_request

    assert is_request(text), text


@pytest.mark.parametrize(
    "text, expected",
    [
        ("What do you call me again?", True),
        ("what name have you got for me", True),
        ("你一般怎么称呼我？", True),
        ("Call me Bea from now on.", False),  # a wish, not a question
        ("Who should I call about the boiler?", False),
        ("What is my landlord called?", False),
    ],
)
def test_asking_what_kept_calls_the_person_is_read(text, expected):
    from memory.text.acts import asks_how_addressed

    assert asks_how_addressed(text) is expected


# ---- session 11: grammar that tells reports, questions and attention-asking apart (issue 18)


@pytest.mark.parametrize(
    "text",
    [
        # A Latin run before a Chinese adverb, 的 or a verb in the completed aspect is that clause's subject or modifier.
        "Spring menu 又推了一周。",
        "这周 close 掉了一大批, open 的 CAPA 现在只剩 23 个了。",
        "Launch 推迟了。",
        # A number opens no imperative.
        "$27,400 installed, ouch.",
        # "which" after a comma and before its verb opens a relative clause.
        "Hamish is coming on the 9th to install the canning line, which will finally get us off the mobile canner.",
        # A list after a dash is read whole, not cut at its first comma.
        "I look after production in Leeds - brew schedule, tanks, the lot.",
        # The speaker the only participant, the rest pointing back or a condition: attention, not an act.
        "Hold me to that.",
        "Nag me if I start wriggling out of it.",
        "so keep me honest on that one",
        "don't let me forget that one",
        "到时候记得 push 我一下啊。",
        # a number word or an indefinite pronoun as a subject, before its own verb
        "Nine chairs came back broken.",
        "Somebody left the gate open again.",
    ],
)
def test_reports_and_attention_wishes_are_no_requests(text):
    assert not is_request(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Remind me to water the plants on Sunday.",
        "Send me the notes",
        "Send me that",
        "Assign 陈思远 去把 torque tester calibrate 一下, due 后天上午 10:30。",
        "帮我 book 个 meeting with Anika Sharma, 明天下午 2:15。",
        "Text Aisha Bello that the first team call on Monday is 7am sharp.",
        "再给李明派个任务：整理初二的成绩分析，明天下午五点前交给我。",
        "We are out of toner - order more, then tell Dana.",
        "帮我订一下",
    ],
)
def test_requests_stay_requests(text):
    assert is_request(text), text


# --- whom the asked act is for ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # The speaker as the only object, then a time, a thing pointed back at, a that-clause,
        # or the speaker's own act (a to-infinitive, a bare verb after "let").
        "Remind me to phone the insurer on Thursday.",
        "Could you ping us about it next week?",
        "nudge me Friday",
        "Please remind me that the car tax is due on the 1st.",
        "Don't let me forget to return Malik's drill.",
        "Hey, can you remind me tomorrow morning to chase the roofer?",
        "Call me at 7am",
        # Chinese: a pivot verb phrase after 我, a state with no object after 帮我, an attention wish.
        "下周一记得提醒我续签合同。",
        "麻烦你到时候催我们把发票寄出去",
        "这件事你替我记着，到时候叫我一声。",
        "帮我盯着点，别让我拖到周末。",
        # Mixed.
        "Remind me to 给物业打电话 tomorrow.",
        "Thursday 记得提醒我 to send the deck",
    ],
)
def test_a_request_only_to_be_reminded_asks_no_act(text):
    assert not asks_to_act(text), text


def test_a_reminder_is_still_a_request_but_one_for_the_speaker():
    # The reading of requests is unchanged (recall, the write pass and the screen rely on it).
    for text in ("Remind me to phone the insurer on Thursday.", "下周一记得提醒我续签合同。"):
        assert is_request(text) and asks_for_the_speaker(text), text
    assert not asks_for_the_speaker("Remind Tomasz to send the invoice.")
    assert not asks_for_the_speaker("The insurer called.")  # no request at all


@pytest.mark.parametrize(
    "text",
    [
        # A second object, a person, a thing the speaker is put into, the tool's own noun.
        "Send me the minutes from Tuesday.",
        "Book us a table for four at 8.",
        "Add me to the Thursday planning call.",
        "Remind Tomasz to send the invoice.",
        "Put a task on my list: renew the domain by Friday.",
        "Help me set up a call with Ines tomorrow at 3.",
        "Remind me to call the bank, and message Dana that I'm late.",
        "提醒小吴明天交周报。",
        "帮我提醒一下老周周五开会",
        "帮我订一下",
        "帮我给周老师发个消息，说明天不上课。",
        "请发我一份上个月的报价单",
        "麻烦转我那封邮件",
    ],
)
def test_a_request_that_acts_on_the_world_still_asks_to_act(text):
    assert asks_to_act(text), text


def test_a_reminder_of_a_message_the_person_will_send_is_no_message():
    assert asks_to_tell("Tell Priya that the offsite moved to Porto.")
    assert not asks_to_tell("Remind me to tell Priya that the offsite moved to Porto.")


def test_the_promise_in_a_reminder_turn_is_still_the_persons():
    from memory.text import commitments

    for text in (
        "我答应了房东，月底前把押金条给他。你帮我记着，到时候催我一下。",
        "Don't let me forget to send Odile the budget.",
    ):
        assert not asks_to_act(text)
        own = commitments.own(text)
        assert own and all(c.who == "I" for c in own), text


@pytest.mark.parametrize(
    "text",
    [
        # wh-word, auxiliary, subject: the inversion only a question has, whatever follows
        "what was it I said I'd do for Rosalind again",
        "where are the keys I left",
        # a question word in the name slot of 叫我 asks the name
        "你叫我什么来着？",
    ],
)
def test_inverted_and_slot_questions_ask(text):
    assert is_question(text) and not is_request(text), text


def test_a_clause_of_time_before_a_main_clause_stays_a_statement():
    assert act("When I get back, I'll send it") == STATEMENT


def test_the_name_of_a_naming_wish():
    from memory.text.acts import address_name, asks_how_addressed

    assert address_name("Theodora is a mouthful, so everyone calls me Teddie.") == "Teddie"
    assert address_name("公司上上下下都喊我老欧，你也跟着喊就行。") == "老欧"
    assert address_name("叫我Kiki就好。") == "Kiki"
    # A negated naming names what not to use; the correction after it gives the name.
    assert address_name("Honestly nobody's called me Marguerite since my christening, it's Mags.") == "Mags"
    assert address_name("Nobody has called me Marguerite since my christening.") == ""
    assert asks_how_addressed("What do you have me down as, name-wise?")
    assert not asks_how_addressed("What was the name of the guy who emailed me?")


@pytest.mark.parametrize(
    "text",
    [
        "另外，凡是要列好几项的，麻烦加上编号，1、2、3这样一条一行。",
        "From now on, send all invoices to Dana.",
        "Whenever you list things, number them.",
    ],
)
def test_a_standing_rule_under_a_habitual_frame_is_no_act_to_do_now(text):
    assert not is_request(text)


def test_a_time_clause_with_later_is_no_habitual_frame():
    assert is_request("下班以后帮我订个车")


def test_one_habitual_reading_two_scopes():
    from memory import soul
    from memory.text.acts import ANYWHERE, OPENING, habitual

    # Governing the sentence: a time adverb of from-now-on anywhere, a frequency adverb or a
    # Chinese frame opening it.
    for text in (
        "Going forward, cc Ines on supplier emails.",
        "Always send the agenda a day early.",
        "今后报销单都发给财务",
    ):
        assert habitual(text, OPENING) and habitual(text, ANYWHERE), text
    # A quantifier over occasions inside an order is no frame for the act reading, and is one for a wish.
    for text in ("Send me anything the auditor sends.", "Book a room for each speaker.", "回复我的时候每次都先说结论"):
        assert not habitual(text, OPENING) and habitual(text, ANYWHERE), text
    assert is_request("Send me anything the auditor sends.")
    # Units of time repeat a task; they are no rule for replies.
    assert not habitual("Water the plants every morning.", ANYWHERE)
    assert not habitual("下班以后帮我订个车", OPENING)
    # soul reads the same frames through it: a Chinese clause said as a rule is said to kept.
    assert soul.bidden("每次都先说结论") and not soul.bidden("他每天先说结论")


def test_names_given_by_a_noun_of_naming_or_by_a_correction():
    from memory.text.acts import address_name

    assert address_name("英文名 Lynn, 实验室里大家都这么叫, 你也用这个吧.") == "Lynn"
    assert address_name("Nobody actually calls me Rosalind, it's Roz.") == "Roz"
    assert address_name("朋友都叫我橙子，你也这么叫我吧.") == "橙子"
    assert address_name("大家都叫我 Howie.") == "Howie"


@pytest.mark.parametrize(
    "text",
    [
        "Send Keeley Marsh a message saying Saturday's tour is fully booked.",
        "Send Ingrid Solberg a message: the catering tasting is confirmed.",
        "Message Sunita Rao and let her know the Thursday hygiene list is cancelled.",
        "给何静发条消息，告诉她今晚去洛阳的那趟车推迟到九点发车。",
        "发个 message 给周怡婷, 跟她说 lab safety training 改到 Room 502 了。",
    ],
)
def test_a_request_to_send_a_message_by_its_noun_is_a_message(text):
    from memory.text.acts import asks_to_tell

    assert asks_to_tell(text)


@pytest.mark.parametrize(
    "text",
    [
        "给杨志刚派个活：冷库里的温湿度计全部换成新的。",
        "Book a meeting with Marco tomorrow at 2pm.",
        "I got a message from Dana.",
    ],
)
def test_other_requests_and_statements_are_no_message(text):
    from memory.text.acts import asks_to_tell

    assert not asks_to_tell(text)


def test_a_suggestion_pointing_back_at_the_name_given_is_a_naming_wish():
    assert not is_request("英文名 Lynn, 实验室里大家都这么叫, 你也用这个吧。")
    assert is_request("这个方案不错，你也用这个吧")  # no name given: the suggestion asks


# A conjunction of clauses after a comma opens a clause, not a list item (cases of their own).
@pytest.mark.parametrize(
    "text",
    [
        "It is late, but call Dana back before she leaves.",
        "The room is small, yet book it for Thursday anyway.",
    ],
)
def test_an_order_after_but_or_yet_is_a_request(text):
    assert is_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "The venue is booked, but I still need the menu.",
        "Sorry, but the printer is broken again.",
        "Tadhg booked the ferry, so that's one thing off my plate.",
    ],
)
def test_a_report_after_but_stays_a_statement(text):
    assert not is_request(text)


# The present moment is particular reference, as "today" is (cases of their own, not from an eval set).
@pytest.mark.parametrize("text", ["the crane hire: first quote vs now?", "how far behind is Denver right now?"])
def test_a_comparison_or_distance_asked_of_now_is_about_a_particular_situation(text):
    assert self_contained(text, set()) is None


@pytest.mark.parametrize("text", ["the crane hire: first quote vs second quote?", "how far is Denver from Boulder?"])
def test_a_comparison_or_distance_without_a_time_still_asks_about_kinds(text):
    assert self_contained(text, set()) == "asks about kinds"


# Chat spellings of "you" in the request frames (cases of their own, not from an eval set).
def test_chat_spellings_of_you_ask_as_you_does():
    assert is_request("can u move my dentist to friday")
    assert is_question("is ur calendar free tmrw?")
    # The capital letter U is no pronoun.
    assert not is_request("U-bend under the sink is leaking again.")
    assert not is_request("the U.S. office closes at 5")


# A head of a verb and whom it addresses before a colon or a dash orders what follows said
# (cases of their own, not from an eval set).
@pytest.mark.parametrize(
    "text",
    [
        "Email Jana: the invoice was paid.",
        "text Ravi: the forklift's battery is flat",
        "ping Odile - the samples arrived",
        "message 小林: the pallets are ready",
    ],
)
def test_a_verb_and_its_addressee_before_a_colon_ask_for_a_message(text):
    assert is_request(text) and asks_to_tell(text)


@pytest.mark.parametrize(
    "text",
    [
        "Update: the launch moved to May.",
        "Morning Dana: the van is late again.",
        "Dana, the van is late again.",
        "Big news - we won the Harlow bid.",
    ],
)
def test_a_label_a_greeting_or_a_vocative_before_a_colon_orders_nothing(text):
    assert not is_request(text)


def test_a_chinese_name_inside_an_english_sentence_is_read_as_a_noun():
    # The English frame keeps its object; a Chinese run is never the verb that opens a clause.
    assert is_request("message 阿梅 at the 仓库: the cold room door is sticking")
    assert not is_request("My name at work is 马丽 and everyone calls me 丽姐, so 丽姐 it is.")


def test_a_dash_after_the_noun_of_a_message_opens_what_it_says():
    from memory.text import people

    text = "send Odile a note - the courier comes at 4 now"
    assert asks_to_tell(text) and people.material(text) == "the courier comes at 4 now"
    # elsewhere a dash joins the request's own clauses
    assert people.material("Book the room for Thursday - Dana is coming") == ""


# A person set onto a piece of work is handed it (cases of their own, not from an eval set).
@pytest.mark.parametrize(
    "text",
    [
        "Put Ravi on the freezer audit, due Friday at noon.",
        "get 马丽 from accounts on it by 5pm",
        "Set Mia on the stock count.",
    ],
)
def test_a_person_put_on_a_piece_of_work_is_a_task(text):
    from memory.text.acts import asks_to_assign

    assert asks_to_assign(text)


@pytest.mark.parametrize(
    "text", ["put Dana on the invite for Friday at 3", "get Priya on the phone at 3", "Put the kettle on the stove."]
)
def test_a_person_added_to_a_call_or_a_thing_put_somewhere_is_no_task(text):
    from memory.text.acts import asks_to_assign

    assert not asks_to_assign(text)


def test_english_words_a_chinese_aspect_mark_closes_are_part_of_a_chinese_clause():
    # "他们那边 book 好了": the booking is reported done, in Chinese grammar; no English order is left.
    assert not is_request("周五的 review 改在三楼开，room 行政那边 book 好了。")
    # An English noun before 的 stays an English noun phrase: the order around it still asks.
    assert is_request("Assign 小林 去整理 Kestrel 的 vendor list, due 后天中午12点。")


@pytest.mark.parametrize(
    "text",
    [
        "Just push it to the two units tonight.",
        "simply resend the invoice to Carla",
        "slip fix is done, just push it to the two units on the orient crest job tonight",
        "the fix is done, push it to the units tonight",
    ],
)
def test_an_order_after_opening_adverbs_or_with_an_object_pronoun_after_a_comma_is_a_request(text):
    assert acts.is_request(text) and acts.asks_to_act(text)


@pytest.mark.parametrize(
    "text",
    [
        "Not mine to chase.",
        "Just finished the audit.",
        "Just got back from Leeds, the site is a mess.",
        "Really nice work today.",
        "The report is late, it happens.",
    ],
)
def test_opening_adverbs_and_negators_leave_a_statement_a_statement(text):
    assert not acts.is_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "Stage two is 40 pallets, 300 kg each, and every one of them has to be wrapped before loading.",
        "Plan B was dropped on Tuesday.",
        "Morag Innes, warden at the Brora estate, up the glen past the old mill.",
        "我在大连开了家物流公司，叫“顺海通”，干了八年了。",
    ],
)
def test_quantifiers_copulas_prepositions_and_a_quoted_name_order_nothing(text):
    assert not acts.asks_to_act(text)


@pytest.mark.parametrize(
    "text", ["Book each speaker a room for Friday.", "Email both suppliers the new spec.", "叫小王去仓库拿货。"]
)
def test_a_quantified_object_or_a_causative_with_its_verb_still_orders(text):
    assert acts.asks_to_act(text)


def test_an_english_clause_naming_a_chinese_firm_is_read_as_english():
    # "line producer at 青岚影像" is English with a name in it, not a Chinese clause read as it is.
    assert not acts.asks_to_act("Cantonese, ten years in 深圳, site manager at 华建工程, a fit-out firm in 南山.")
    assert acts.asks_to_act("搞定了，你帮我跟王总说一声")


@pytest.mark.parametrize(
    "text",
    [
        "do me a one-pager on the depot lease, same layout as last time",
        "Do us a quick cost split for the two quotes",
        "have them ring me back after lunch",
        "Have him sign the delivery note before he leaves",
    ],
)
def test_do_or_have_before_an_object_pronoun_is_an_order_not_a_question(text):
    # A pronoun in the object case is no subject: "do me…" is the verb "do", not an auxiliary asking.
    assert acts.acts(text) == [acts.REQUEST]


@pytest.mark.parametrize(
    "text", ["Do they deliver on Sundays", "do you have the lease terms", "Did him being late matter?"]
)
def test_do_before_a_subject_still_asks(text):
    assert acts.acts(text) == [acts.QUESTION]


@pytest.mark.parametrize(
    "text", ["the boiler's leaking again, can u get someone out", "quote came in at 4k, could u forward it to accounts"]
)
def test_a_clause_asking_in_chat_spelling_after_a_comma_is_a_request(text):
    # "u" is "you" in a joined clause as in a sentence of its own.
    assert acts.REQUEST in acts.acts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Have Marisol sort out the van insurance renewal",
        "could you get Tobias to draft the grant budget by Friday",
        "let Priyanka take over the supplier onboarding",
        "让阿伟去整理一下仓库的盘点表。",
    ],
)
def test_a_third_person_made_to_do_the_work_is_a_task(text):
    assert acts.asks_to_assign(text)


@pytest.mark.parametrize(
    "text",
    ["Let Marisol know the van is booked", "Let me sort out the van insurance", "Have a look at the grant budget"],
)
def test_a_causative_of_knowing_or_of_the_speaker_hands_over_no_work(text):
    assert not acts.asks_to_assign(text)


@pytest.mark.parametrize(
    "text",
    [
        "帮我给老周发个私讯，说货到了",  # a direct message
        "帮我发封电邮给 Amy，说合同签好了",  # Hong Kong's word for an email
        "麻煩給阿芳發個訊息：報價單改好了",  # Taiwan's word for a message, in Traditional characters
        "给物业回条短讯，说周三上午可以上门",
    ],
)
def test_the_nouns_of_a_message_come_from_the_dictionary(text):
    assert acts.asks_to_tell(text)


@pytest.mark.parametrize("text", ["给供应商发个快件", "帮我给老周发个文件"])
def test_a_parcel_or_a_file_sent_is_no_message(text):
    assert not acts.asks_to_tell(text)


@pytest.mark.parametrize(
    "text",
    [
        "那批样品让阿强去寄，明天中午前。",
        "这份周报交给 Lisa 整理",
        "這筆帳款交由會計處理，月底前。",
        "这个 bug assign 给 Ravi",
    ],
)
def test_a_fronted_object_then_work_handed_over_is_a_task(text):
    # Chinese fronts what is acted on as a topic (这个/那批/这份 + a noun); the order follows
    # with its subject dropped.
    assert acts.is_request(text)
    assert acts.asks_to_assign(text)


@pytest.mark.parametrize(
    "text",
    [
        "这个结果让人挺意外的",  # the causative of a feeling, about the topic
        "这份合同交给法务了",  # done: a report
        "这个项目以后就交给他负责，我放心。",  # 就 inside: no bare topic, a view
        "这个任务交给谁比较好？",  # a question
    ],
)
def test_a_fronted_topic_with_a_report_a_feeling_or_a_question_asks_nothing(text):
    assert not acts.asks_to_assign(text) or not acts.is_request(text)


@pytest.mark.parametrize(
    "text",
    ["帮我 send 条 message 给 Omar，说样品到了", "帮我 email 给房东，说下周三搬", "麻煩幫我 line 給阿明，說貨到了"],
)
def test_a_message_sent_with_a_borrowed_english_verb_is_a_message(text):
    assert acts.asks_to_tell(text)


def test_a_draft_addressed_to_someone_sends_nothing():
    assert not acts.asks_to_tell("帮我 draft 一封 email 给房东，先别发")


@pytest.mark.parametrize(
    "text",
    [
        "Ask Noor whether the scaffold inspection passed",
        "can you ask the landlord if the boiler got fixed",
        "Please ask Tomás to resend the signed lease",
        "帮我问一下物业，停车证什么时候能办好",
        "帮我 ping 一下 Ines，问她 slides 改完没",
        "Could you tell Bruno 仓库的门禁卡已经换了？",
    ],
)
def test_asking_someone_something_is_a_message(text):
    assert acts.asks_to_tell(text)


@pytest.mark.parametrize(
    "text", ["Ask me anything about the rota", "Can you ask around for a cheaper van?", "你问我这个干嘛"]
)
def test_asking_the_speaker_or_no_one_sends_nothing(text):
    assert not acts.asks_to_tell(text)


def test_what_is_asked_is_the_message():
    from memory.text import people

    assert (
        people.material("Ask Noor whether the scaffold inspection passed") == "whether the scaffold inspection passed"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Give the stocktake at the Leith shop to Carys.",
        "could you pass the onboarding of the two temps to Rafi",
        "Hand the insurance claim off to our office manager, please.",
        "Delegate the minutes to Oyelaran.",
    ],
)
def test_work_given_to_someone_is_a_task(text):
    assert acts.asks_to_assign(text)


@pytest.mark.parametrize(
    "text",
    [
        "Give the keys to me when you're back.",  # to the speaker
        "I handed the stocktake to Carys yesterday.",  # a report
        "Pass the email to Rafi.",  # words passed on: a message, not work
    ],
)
def test_a_thing_given_to_the_speaker_a_report_or_a_message_passed_on_is_no_task(text):
    assert not acts.asks_to_assign(text)


@pytest.mark.parametrize(
    "text",
    [
        "text Wiremu the door code",
        "Email the signed quote to the client, please",
        "could you message Halvard and confirm the 6 am start",
        "DM the venue the final headcount",
    ],
)
def test_the_verb_of_sending_a_message_makes_a_message(text):
    assert acts.asks_to_tell(text)


@pytest.mark.parametrize(
    "text", ["Text me when you land", "Texted Wiremu the door code.", "Email is down again across the office."]
)
def test_a_message_to_the_speaker_a_report_or_the_noun_sends_nothing(text):
    assert not acts.asks_to_tell(text)


@pytest.mark.parametrize(
    "text",
    [
        "Tomasz in procurement signed the purchase order this morning.",
        "Ines on the night shift says the van is fixed.",
        "Bartek the electrician will come at 8 on Friday.",
        "Odile in legal thinks we should wait for the redline.",
        "Spoke to the landlord, he's fixing the boiler on Friday.",
    ],
)
def test_a_name_with_a_phrase_after_it_then_a_verb_is_a_subject_not_an_order(text):
    # A word the lexicon lacks (a name), a prepositional phrase or an apposition, then a finite verb:
    # a subject and its verb. A form the lexicon knows as a verb only when inflected ("Spoke") opens
    # no imperative, whatever its other readings.
    assert act(text) == STATEMENT
    assert not asks_to_act(text)


@pytest.mark.parametrize(
    "text",
    [
        "WhatsApp the crew the new call time.",
        "WhatsApp the team in Porto that we moved the demo to Thursday.",
        "Slack Anneke in finance about the invoice.",
    ],
)
def test_a_verb_the_lexicon_lacks_still_orders_when_its_object_is_followed_by_no_verb_of_its_own(text):
    # The other side: a coinage verb with a second object, a clause of its own or a phrase with no
    # finite verb after its object stays an order.
    assert act(text) == REQUEST


@pytest.mark.parametrize(
    "text",
    ["Can book me and Darius into the small room Thursday 4pm?", "Could help me chase the deposit with Mrs Ong?"],
)
def test_a_modal_question_with_no_subject_asks_the_hearer_to_act(text):
    # English drops only a subject the hearer supplies: in a question that is the one asked.
    assert act(text) == REQUEST


@pytest.mark.parametrize(
    "text", ["Can confirm the pallets went out.", "Will send the rota tonight.", "Could be late tomorrow?"]
)
def test_a_modal_with_no_subject_outside_a_question_or_before_be_asks_nothing(text):
    # Unasked, the dropped subject is the speaker; "be" asks about a state, not for an act.
    assert act(text) != REQUEST


def test_the_written_abbreviations_of_with_and_without_are_read_as_the_prepositions():
    # "w/" cut by its slash left a letter the grammar read as a noun: the verb had no object frame.
    assert act("set up a catch-up w/ Lorenzo and the venue team thurs 3pm") == REQUEST
    assert act("dinner w/ the investors went late") == STATEMENT
    assert acts._you("ship it w/o the manual, or w/e") == "ship it without the manual, or w/e"


@pytest.mark.parametrize(
    "text",
    ["what'd i tell the landlord about the boiler", "whatd we agree w the printers", "wheres the spare van parked"],
)
def test_a_question_word_with_its_auxiliary_fused_on_then_a_subject_asks(text):
    # With or without the apostrophe, the fused auxiliary stands before the subject: inversion.
    assert act(text) == QUESTION


@pytest.mark.parametrize(
    "text, expected",
    [
        ("仓库里还有几箱货？", acts.QUESTION),  # 几 before its measure word asks how many
        ("你们组有几个实习生", acts.QUESTION),
        ("我们店有二十几个店员。", acts.STATEMENT),  # after a numeral: "twenty-odd"
        ("十几台机器明天到。", acts.STATEMENT),
        ("这几个供应商下周来看厂。", acts.STATEMENT),  # after a demonstrative: "these few"
        ("那几天都排满了。", acts.STATEMENT),
    ],
)
def test_chinese_ji_asks_only_where_it_is_no_indefinite_number(text, expected):
    assert acts.act(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I need half an hour with Bogdan before the board call.", acts.REQUEST),  # time with someone: arranged
        ("Need a quick sync with the site manager on Monday.", acts.REQUEST),
        ("We'd like a tasting with Mme Perrin next week.", acts.REQUEST),
        ("I need to catch up with Bogdan tomorrow.", acts.STATEMENT),  # the person's own doing
        ("I need a holiday.", acts.STATEMENT),  # no one to be with
        ("I had coffee with Bogdan this morning.", acts.STATEMENT),
    ],
)
def test_a_wish_for_time_with_someone_asks_kept_to_arrange_it(text, expected):
    assert acts.act(text) == expected


@pytest.mark.parametrize(
    "text, asks",
    [
        # An English verb's look-alike after a comma, then words of another language: that language's clause.
        ("Ana sorted the venue herself, invite já saiu, só falta confirmar.", False),
        ("The venue is sorted, invite everyone on the list.", True),
        ("The venue is sorted, invite josé and the band.", True),  # a lone such word may be a name
    ],
)
def test_a_clause_of_another_language_after_a_comma_is_not_read_as_an_english_order(text, asks):
    assert acts.asks_to_act(text) is asks
