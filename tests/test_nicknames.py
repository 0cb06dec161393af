"""memory.text.nicknames: a short form of the given name the person introduces themself by."""

from __future__ import annotations

import pytest

from memory import soul
from memory.text import nicknames


@pytest.mark.parametrize(
    "word, given, short",
    [
        ("Wil", "Wilhelmina", True),  # a truncation
        ("Mina", "Wilhelmina", True),  # from the middle
        ("Freddie", "Alfred", True),  # an ending on a middle part
        ("Becca", "Rebecca", True),
        ("Dot", "Dorothea", True),  # its opening, then later letters in order
        ("Dorian", "Dorothea", False),
        ("Wilhelmina", "Wilhelmina", False),  # the name itself
        ("Wilbur", "Wilhelmina", False),  # shares a start, is no part of it
        ("Al", "Bob", False),
    ],
)
def test_a_short_form_is_part_of_the_given_name_with_an_ending_at_most(word, given, short):
    assert nicknames.short_form(word, given) is short


def test_the_given_name_is_read_from_the_ways_people_introduce_themselves():
    assert nicknames.given_name("Hiya! Ingrid Solberg, I run the café on Kirkgata.") == "Ingrid"
    assert nicknames.given_name("Quick one from me: my name is Oswald Trent.") == "Oswald"
    assert nicknames.given_name("Ingrid Solberg here, about the lease.") == "Ingrid"
    assert nicknames.given_name("The lease on Kirkgata ends in May.") == ""


def test_a_short_form_standing_as_a_name_is_the_name_to_use_and_someone_elses_is_not():
    intro = "Hello, I'm Bartholomew Trent, I look after the allotments. Bart does the job."
    assert nicknames.nickname("Bart does the job.", intro) == "Bart"
    assert soul.wished_treatment("Bart does the job.", intro)
    assert not soul.wished_treatment("Bart does the job.")  # no full name to be a short form of
    other = "I'm Bartholomew Trent; my neighbour Bart waters the plots in August."
    assert nicknames.nickname(other, other) == ""  # after a possessive and a noun: someone else
    firm = "I'm Bartholomew Trent. Bartel Supplies sends the seed."
    assert nicknames.nickname("Bartel Supplies sends the seed.", firm) == ""  # joined to a name
    assert nicknames.nickname("Just Bart, thanks.", "My name is Bartholomew Trent. Just Bart, thanks.") == "Bart"


@pytest.mark.parametrize(
    "sentence, message, name",
    [
        ("just Dez is fine.", "Hi, I'm Desmond Achebe, I run the depot. just Dez is fine.", "Dez"),
        ("Oh and it's Trixie, not Beatrice.", "", "Trixie"),  # a correction is about the person itself
        ("Sunny is what I answer to.", "", "Sunny"),
        ("Marguerite works fine.", "Stop calling me 'boss'. Marguerite works fine.", "Marguerite"),
    ],
)
def test_a_name_offered_in_a_frame_of_naming_is_the_name_to_use(sentence, message, name):
    assert nicknames.offered_name(sentence, message) == name
    assert soul.wished_treatment(sentence, message)


def test_a_frame_says_nothing_of_the_person_without_a_tie_to_their_name():
    assert nicknames.offered_name("Priya is fine now.") == ""  # no introduction, nothing said to kept
    assert nicknames.offered_name("Priya is fine now.", "I'm Sam Lee. Priya is fine now.") == ""  # "now": no frame
    assert nicknames.offered_name("Priya is fine.", "I'm Sam Lee. Priya is fine.") == ""  # not as Sam begins
    assert nicknames.offered_name("Tuesday works for me.", "I'm Sam Lee. Tuesday works for me.") == ""
    assert nicknames.offered_name("go with Tom to the station", bidden=True) == ""
    assert nicknames.offered_name("pls go with Pinky, everyone does", bidden=True) == "Pinky"
    assert nicknames.offered_name("My daughter Thea is fine.", "I'm Sam Lee.") == ""


def test_a_name_denied_then_given_is_a_correction_too():
    assert nicknames.offered_name("Nobody actually calls me Rosalind, it's Roz.") == "Roz"
    assert nicknames.offered_name("Nobody has called me Marguerite since school, it's Mags.") == "Mags"
    assert nicknames.offered_name("Nobody came to the party, it's Friday.") == ""
