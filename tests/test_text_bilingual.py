"""memory.text.bilingual: Chinese words read in English through CC-CEDICT."""

from __future__ import annotations

from memory.text import bilingual, tokens


def test_words_are_segmented_by_the_dictionary_and_function_words_left_out():
    assert bilingual.words("我的会计师叫什么名字？") == ["会计师", "名字"]
    assert "什么" not in bilingual.words("这是什么") and bilingual.words("几点开始") == ["开始"]


def test_glosses_are_stemmed_english_terms_without_notes():
    assert tokens("accountant")[0] in bilingual.glosses("会计师")
    assert "wife" in bilingual.glosses("老婆")  # "(coll.) wife": the note goes, the word stays
    assert not any(t.startswith("cl") and ":" in t for t in bilingual.glosses("办公室"))


def test_an_entry_that_points_to_another_means_what_that_one_means():
    # 体检 is only "abbr. for 体格检查" in the dictionary.
    assert "examin" in bilingual.glosses("体检")


def test_stored_texts_also_carry_the_glosses_of_words_inside_longer_words():
    text = "用户花粉过敏。"
    assert "allerg" not in bilingual.english_terms(text)
    assert "allerg" in bilingual.english_terms(text, inner=True)


def test_a_text_without_chinese_has_no_english_terms_to_add():
    assert bilingual.english_terms("The user's dentist is Dr. Okafor.") == ()


def test_proper_name_is_a_word_the_dictionary_knows_only_as_a_name():
    assert bilingual.proper_name("加拿大") and bilingual.proper_name("台中")
    assert not bilingual.proper_name("公司") and not bilingual.proper_name("幼儿园")
    assert not bilingual.proper_name("不是一个词语")
