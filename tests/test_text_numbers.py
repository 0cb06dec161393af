"""memory.text.numbers: the one parser of counts, amounts and Chinese numerals."""

from __future__ import annotations

import re

import pytest

from memory.text.numbers import CN_NUMERAL, NUMBER, amount, cn_int, en_int, to_int


@pytest.mark.parametrize(
    "text, value",
    [
        ("三", 3),
        ("十", 10),
        ("十二", 12),
        ("二十", 20),
        ("二十三", 23),
        ("两", 2),
        ("一百零五", 105),
        ("一百五", 150),
        ("三千二", 3200),
        ("三万五千", 35000),
        ("两万五", 25000),
        ("二〇二六", 2026),
        ("3万", 30000),
        ("5千", 5000),
        ("一万亿", 10**12),
        ("九十九", 99),
        ("12", 12),
    ],
)
def test_chinese_numerals(text, value):
    assert cn_int(text) == value


@pytest.mark.parametrize("text", ["", "周", "三天", "abc", None])
def test_not_a_chinese_numeral_is_none(text):
    assert cn_int(text) is None


@pytest.mark.parametrize(
    "text, value",
    [
        ("one", 1),
        ("a", 1),
        ("an", 1),
        ("eleven", 11),
        ("twenty-five", 25),
        ("twenty five", 25),
        ("one hundred and five", 105),
        ("three thousand two hundred", 3200),
        ("a couple of", 2),
        ("7", 7),
    ],
)
def test_english_number_words(text, value):
    assert en_int(text) == value


def test_vague_counts_are_numbers_only_when_approximate_is_asked_for():
    assert en_int("a few") is None
    assert en_int("a few", approx=True) == 3
    assert en_int("several") is None


def test_to_int_reads_any_spelling_the_same():
    assert to_int("3") == to_int("three") == to_int("三") == to_int("３") == 3
    assert to_int("weeks") is None


@pytest.mark.parametrize(
    "text, value",
    [
        ("$5,000", 5000),
        ("5000", 5000),
        ("5k", 5000),
        ("5 thousand", 5000),
        ("5千", 5000),
        ("1.5 million", 1_500_000),
        ("€2.5m", 2_500_000),
        ("三万块", 30000),
        ("12.5", 12.5),
        ("300 dollars", 300),
    ],
)
def test_amounts(text, value):
    assert amount(text) == value


def test_amount_of_words_that_are_no_amount_is_none():
    assert amount("the budget") is None


def test_patterns_find_numbers_inside_phrases():
    assert re.findall(NUMBER, "in twenty-five minutes, 3 hours or 三天") == ["twenty-five", "3", "三"]
    assert re.search(CN_NUMERAL, "大后天晚上七点").group(0) == "七"
