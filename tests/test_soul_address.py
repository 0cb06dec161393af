"""A name everyone uses for the person is how kept addresses them (memory/soul.py ``wished_treatment``);
one person's usage is a fact about them."""

from __future__ import annotations

import pytest

from memory.soul import wished_treatment


@pytest.mark.parametrize(
    "sentence",
    [
        "Everybody calls me Bex, so stick with it.",
        "People usually call me Tomo.",
        "Everyone just calls me Dee.",
    ],
)
def test_the_name_everyone_uses_is_a_wish(sentence):
    assert wished_treatment(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["My grandmother calls me Bunny.", "Everyone calls the server room the Fridge.", "Everyone loves the new office."],
)
def test_one_persons_usage_or_no_name_for_the_person_is_not(sentence):
    assert not wished_treatment(sentence)


def test_that_after_a_given_name_is_the_name_not_a_text():
    assert wished_treatment("Friends call me Mika, so please use that.")
    assert wished_treatment("Everyone calls me Rafa, so go with that.")
    assert not wished_treatment("Format that as a table.")


@pytest.mark.parametrize(
    "message, name",
    [
        ("我叫王芳，店里人都管我叫芳姐，你也这么叫。", "芳姐"),  # the 管…叫… frame of naming
        ("俺叫李大山，村里人都喊俺山子，你也喊俺山子就行。", "山子"),  # the northern first person
        ("额叫雷振华，熟人都喊额雷哥，你也这么叫就行。", "雷哥"),  # the northwestern one
    ],
)
def test_chinese_naming_frames_and_regional_first_persons_give_the_name_to_use(message, name):
    from memory import soul
    from memory.text.acts import address_name, sentences

    assert address_name(message) == name
    assert any(soul.wished_treatment(message[a:b], message) for a, b in sentences(message))
    assert not soul.wished_treatment("这个额度你帮我查一下", "这个额度你帮我查一下")
