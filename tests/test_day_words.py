"""memory.text.day_words: other languages' words for the days around today, from CLDR, read by
memory.text.dates as the days they name."""

from __future__ import annotations

import json
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from agent import screen
from memory.text import dates, day_words

TZ = ZoneInfo("Europe/Lisbon")
NOW = datetime(2027, 3, 10, 9, 0, tzinfo=TZ)  # a Wednesday


def test_the_committed_table_is_what_cldr_gives_by_the_stated_rules():
    pytest.importorskip("babel")
    committed = json.loads(day_words.DATA.read_text(encoding="utf-8"))["words"]
    assert committed == day_words.generate()


def test_the_table_keeps_no_english_word_and_no_latin_word_for_a_past_day():
    from memory.text.people import lemmas

    for word, offset in day_words.table().items():
        if day_words.latin(word):
            assert offset in day_words.LATIN_OFFSETS
            assert not any(lemmas(part) for part in word.split()), word


@pytest.mark.parametrize(
    ("request_text", "moment"),
    [
        ("Pencil in Joaquim amanhã 10h15 for the shipping review", datetime(2027, 3, 11, 10, 15)),
        ("ραντεβού με τον Νίκο μεθαύριο 18:00", datetime(2027, 3, 12, 18, 0)),
        ("Put Wairimu and me on a call kesho 2:40pm", datetime(2027, 3, 11, 14, 40)),
        ("聽日下午四點半同陳生開會", datetime(2027, 3, 11, 16, 30)),
        ("übermorgen 7:45 mit Frau Brandt", datetime(2027, 3, 12, 7, 45)),
    ],
)
def test_a_day_said_in_the_writers_own_language_books_that_day(request_text, moment):
    named = screen.named_time(request_text, NOW, TZ)
    assert named is not None and named.moment == moment.replace(tzinfo=TZ)


def test_a_latin_day_word_written_with_a_capital_is_a_name_not_a_day():
    # "Sabah" is Azerbaijani for tomorrow and a Malaysian state; "Bihar" Basque and an Indian state.
    assert "sabah" in day_words.table() and "bihar" in day_words.table()
    named = screen.named_time("Get the pallets to Sabah by 4pm", NOW, TZ)
    assert named is not None and named.moment is None and named.day is None
    assert dates.annotate("Shipment leaves for Bihar at 6", date(2027, 3, 10)) == "Shipment leaves for Bihar at 6"
    assert dates.annotate("call Bruno amanhã", date(2027, 3, 10)) == "call Bruno amanhã (2027-03-11)"


def test_english_and_chinese_rules_read_before_the_other_languages_words():
    # 明日 is Chinese and Japanese for tomorrow: the Chinese rule reads it, the same day either way.
    assert dates.resolve("明日", date(2027, 3, 10)).start == date(2027, 3, 11)
    assert dates.resolve("tomorrow", date(2027, 3, 10)).start == date(2027, 3, 11)
