"""memory.text.tokens: the vocabulary facts, messages and queries share."""

from __future__ import annotations

import pytest

from memory.text import has_cjk, query_terms, stem, tokens
from memory.text.words import written_in_chinese


@pytest.mark.parametrize("spelling", ["$5,000", "5000", "5,000.00", "5k", "5 thousand", "5千"])
def test_money_and_numbers_meet_whatever_their_spelling(spelling):
    assert tokens(spelling) == ["5000"]


def test_decimals_and_scaled_decimals_keep_their_value():
    assert tokens("3.5% churn") == ["3.5", "churn"]
    assert tokens("$2.5m deal") == ["2500000", "deal"]
    assert tokens("3万") == ["30000"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("10:00", "10:00"),
        ("10am", "10:00"),
        ("10 a.m.", "10:00"),
        ("上午十点", "10:00"),
        ("上午10点", "10:00"),
        ("3pm", "15:00"),
        ("15:00", "15:00"),
        ("下午三点", "15:00"),
        ("下午三点半", "15:30"),
        ("12am", "0:00"),
    ],
)
def test_clock_times_are_normalised(text, expected):
    assert tokens(text) == [expected]


@pytest.mark.parametrize("text", ["2026-11-10", "11/10/2026", "Nov 10th 2026", "November 10, 2026", "2026年11月10日"])
def test_date_forms_meet(text):
    assert sorted(tokens(text)) == sorted(["2026", "november", "10"])


def test_dates_without_year_still_meet():
    assert tokens("11月10日") == tokens("Nov 10") == ["november", "10"]


def test_plurals_possessives_and_verb_endings_are_normalised_by_snowball():
    assert tokens("meetings") == tokens("meeting") == tokens("meet")
    assert tokens("Caroline's") == tokens("Caroline")
    assert tokens("painted") == tokens("painting") == tokens("paints")
    assert tokens("scheduled") == tokens("scheduling") == tokens("schedule")
    assert tokens("emailing") == tokens("emails") == tokens("email")


def test_accented_latin_letters_meet_their_plain_spelling_and_chinese_is_untouched():
    assert tokens("Tomás") == tokens("tomas") == tokens("TOMAS")
    assert tokens("Malmö Škoda") == tokens("malmo skoda")
    assert "钢琴" in tokens("钢琴课")


def test_month_and_weekday_names_are_not_stemmed_so_they_meet_dates():
    assert tokens("November 10") == tokens("2026-11-10")[1:] == ["november", "10"]
    assert tokens("on Wednesdays") == tokens("Wednesday") == ["wednesday"]


def test_chinese_weekdays_read_as_weekdays():
    assert tokens("周五") == tokens("星期五") == tokens("礼拜五") == tokens("Friday")
    assert tokens("下周三") == ["下周", "wednesday"]


def test_stop_words_are_dropped():
    assert tokens("What is my dog's name?") == [stem("dog"), stem("name")]
    assert tokens("Bump the retry count to 3.") == ["bump", stem("retry"), "count", "3"]


def test_mixed_alphanumerics_stay_whole():
    assert tokens("gpt-4o and Q3 v2") == ["gpt", "4o", "q3", "v2"]


def test_chinese_becomes_unigrams_and_bigrams():
    assert tokens("预算") == ["预", "预算", "算"]
    assert "开会" in tokens("我们开会")


def test_mixed_chinese_english_sentence():
    got = tokens("我们下周一上午十点和Alice开会讨论Q3预算")
    assert "10:00" in got and "q3" in got and "预算" in got and "开会" in got and stem("alice") in got


def test_chinese_question_words_and_particles_make_no_ngrams():
    assert query_terms("Zenith 什么时候 launch？") == ["zenith", "launch"]
    assert "的日" not in tokens("把 Zenith 的 launch 加到我的日历上。") and "日历" in tokens("我的日历")
    assert "上海" in tokens("上海办公室") and "下周" in tokens("下周三")  # stop characters inside words stay


def test_chinese_question_meets_chinese_fact():
    fact = set(tokens("张伟负责上海办公室的招聘，预算是5万元。"))
    question = query_terms("上海办公室招聘的预算是多少？")
    assert len(fact.intersection(question)) >= 5
    assert "50000" in fact


def test_tokens_are_safe_for_the_full_text_index():
    import re

    allowed = re.compile(r"^[a-z0-9.:\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$")
    text = "Élan's café at 10:30pm, $1,250.50 — 预算 «quoted» e-mail: a@b.com #ops 2026-10-07"
    assert all(allowed.match(t) for t in tokens(text))


def test_has_cjk_tells_chinese_from_latin():
    assert has_cjk("预算") and not has_cjk("budget")


@pytest.mark.parametrize(
    ("text", "chinese"),
    [
        ("Please ask 孙悦 to send the façade drawings to the 甲方 by Friday.", False),
        ("Book a table at 鼎泰丰 for four on Saturday.", False),
        ("Bad news, 我们的 emcee 今早嗓子完全哑了。", True),
        ("下周的 production meeting 改在 Lumora 的 office 开。", True),
        ("帮我约一下王经理，周三下午三点。", True),
        ("See you at 8.", False),
        ("", False),
    ],
)
def test_a_message_is_written_in_chinese_when_chinese_outweighs_english_by_words_not_by_one_character(text, chinese):
    assert written_in_chinese(text) is chinese
    assert not chinese or has_cjk(text)
