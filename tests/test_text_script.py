"""Traditional characters read as Simplified ones (memory.text.script), on cases of their own.

The readers are written against Simplified characters; a person in Taiwan or Hong Kong writes
Traditional ones. Each reader reads the Simplified form, keeps every offset where it was, and
gives back what it cuts from the text in the writer's own script.
"""

from __future__ import annotations

from datetime import date

from memory import recall
from memory.text import acts, commitments, dates, people, tokens
from memory.text.script import quotes_original, reads_simplified, simplified


def test_traditional_characters_become_simplified_in_place():
    text = "請幫我把報價單寄給黃經理，謝謝。"
    out = simplified(text)
    assert out == "请帮我把报价单寄给黄经理，谢谢。"
    assert len(out) == len(text)


def test_text_without_traditional_characters_is_left_as_it_is():
    for text in ["Book the room for Thursday.", "帮我约一下李总", "Ship the 终版 to Ops"]:
        assert simplified(text) == text


def test_a_phrase_is_converted_as_a_phrase():
    # 乾 is 干 in 乾淨 but stays in the name of the Qianlong emperor: a character table alone
    # cannot tell them apart.
    assert simplified("乾淨") == "干净"
    assert simplified("乾隆") == "乾隆"


def test_a_request_in_traditional_characters_is_read_as_one():
    assert acts.is_request("幫我跟陳經理約個時間開會")
    assert acts.asks_to_tell("麻煩給阿芳發個郵件，說報價單改好了")
    assert not acts.is_request("陳經理說他禮拜三會寄報價單過來。")
    assert acts.is_question("下週三有開會嗎？")


def test_the_same_reading_in_both_scripts():
    pairs = [
        ("帮我约周四下午跟财务开会", "幫我約週四下午跟財務開會"),
        ("你能不能把这个案子交给志豪负责？", "你能不能把這個案子交給志豪負責？"),
        ("我上周已经把合同寄给他们了。", "我上週已經把合約寄給他們了。"),
    ]
    for simple, traditional in pairs:
        assert acts.acts(traditional) == acts.acts(simple)
        assert acts.asks_to_assign(traditional) == acts.asks_to_assign(simple)
    assert acts.asks_whether_done("報價單有無寄出？") and acts.asks_whether_done("报价单有无寄出？")


def test_a_clock_time_in_traditional_characters_is_seen():
    assert dates.mentions_time("兩點開會")
    assert not dates.mentions_time("兩個人開會")


def test_dates_are_found_where_they_stand_and_quoted_in_the_writers_script():
    text = "廠商說下週三再開會"
    found = dates.find(text, date(2026, 12, 1))
    start, end, words, span = found[0]
    assert (start, end, words) == (3, 6, "下週三")  # not 下周三: the words are the writer's
    assert span.start == date(2026, 12, 9)
    assert dates.annotate(text, date(2026, 12, 1)) == "廠商說下週三 (2026-12-09)再開會"


def test_a_name_comes_back_as_it_was_written():
    # 阿傑 is 阿杰 in Simplified: the message must go to the name the person wrote.
    names = people.named("給阿傑發個訊息，說樣品到了")
    assert "阿傑" in names
    assert "阿杰" not in names


def test_a_promise_in_traditional_characters_is_detected_in_its_own_script():
    found = commitments.detect("我明天會把報價單寄給黃經理。")
    assert found
    assert all("报价单" not in c.what for c in found)


def test_cantonese_function_words_are_read_as_mandarin_in_place():
    text = "佢哋話聽日嚟攞貨，我哋喺倉度等"
    read = simplified(text)
    assert len(read) == len(text)  # offsets stay valid
    assert read.startswith("他们说明天来")
    assert "我们在" in read
    assert simplified("唔該") == "谢谢"  # the word first: not 不该 ("should not")
    assert simplified("打電話") == "打电话"  # 話 is "says" only after a pronoun or a name


def test_cantonese_question_words_are_read_as_mandarin_ones():
    from memory import asked

    assert simplified("你而家喺邊度？") == "你现在在哪里？"
    assert simplified("仲有幾多箱？") == "仲有多少箱？"
    assert asked.kinds("倉庫而家有幾多個貨架？") == frozenset({asked.NUMBER})
    assert asked.kinds("佢幾時返嚟？") == frozenset({asked.TIME})


def test_a_cantonese_day_is_read_and_quoted_as_written():
    text = "聽日下晝三點同阿Ken開會"
    start, end, words, span = dates.find(text, date(2026, 12, 1))[0]
    assert (words, span.start) == ("聽日", date(2026, 12, 2))


def test_a_cantonese_promise_is_the_speakers_and_a_cantonese_report_a_third_partys():
    [mine] = commitments.detect("冇問題，我聽晚打俾佢")
    assert mine.party == commitments.OWN
    [theirs] = commitments.detect("佢話聽日會寄份合約過嚟")
    assert theirs.party == commitments.THIRD
    assert commitments.detect("唔好意思，我今晚唔去飲嘢喇") == []  # negated


def test_recall_meets_a_fact_written_in_the_other_script():
    assert tokens("會議紀錄") == tokens("会议纪录")
    docs = [
        "用户的牙医是王医生，诊所在信义路。",
        "用户的供应商联系人是林志明，负责报价。",
        "公司的年会定在一月十八日，地点在圆山饭店。",
        "User's gym is on Keizersgracht.",
    ]
    for turn, fact in [("年會是哪一天？", 2), ("報價找誰？", 1), ("牙醫診所在哪裡？", 0)]:
        assert [docs[m.index] for m in recall.match(turn, docs)] == [docs[fact]], turn


def test_a_reader_given_no_text_is_called_as_it_is():
    @quotes_original
    def echo(text):
        return text

    assert echo(None) is None
    assert echo("會議") == "會議"  # what it cut from the text comes back as written


def test_words_read_for_comparison_stay_simplified():
    @reads_simplified
    def words(text):
        return [text[:2]]

    assert words("會議紀錄") == ["会议"]


def test_a_store_and_its_turns_in_traditional_characters_are_matched_as_in_simplified():
    import opencc

    to_traditional = opencc.OpenCC("s2t").convert
    store = [
        "用户的经理是黄志伟，负责质检。",
        "付款超过五十万需要陈总签字批准。",
        "用户每周三下午带女儿去学游泳。",
        "仓库在台中工业区，由阿哲管理。",
        "The forging supplier is Xiechang in Lukang.",
    ]
    turns = ["我们的经理是谁？", "帮我把这笔八十万的货款付给供应商", "女儿哪天学游泳？", "仓库归谁管？"]
    for turn in turns:
        simple = [(m.index, m.reason) for m in recall.match(turn, store)]
        traditional = [
            (m.index, m.reason) for m in recall.match(to_traditional(turn), [to_traditional(d) for d in store])
        ]
        assert [i for i, _ in traditional] == [i for i, _ in simple], turn
        assert simple, turn


def test_the_readers_outside_the_text_package_read_traditional_characters_too():
    from agent.reply_check import claimed_actions
    from memory import asked, soul

    # kept's check for made-up confirmations (issue 18) catches one written in Traditional.
    assert claimed_actions("已經幫你約好了，週三下午兩點。") == {"schedule_meeting"}
    assert claimed_actions("我還沒有寄出。") == set()
    assert asked.kinds("誰負責倉庫？") == asked.kinds("谁负责仓库？") == {asked.PERSON}
    assert asked.kinds("報價單什麼時候寄出？") == asked.kinds("报价单什么时候寄出？")
    assert soul.only_treatment("以後叫我小傑，回答簡短一點。") == soul.only_treatment("以后叫我小杰，回答简短一点。")
