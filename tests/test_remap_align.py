"""Text alignment for the remap: collapsed text and its map, the aligners, and placements."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.remap.align import ALIGNERS, align_in, align_words, placements
from labeler.remap.text import Normalized, collapse, nonblank_count

TEXT = "# Returns\n\n  Unopened items   within 30 days.\n\tOpened items within 14 days.\n"


def test_collapse_and_its_map() -> None:
    norm = Normalized.of(TEXT)
    assert norm.text == "# Returns Unopened items within 30 days. Opened items within 14 days."
    start = TEXT.index("Unopened")
    assert norm.from_original(start) == norm.text.index("Unopened")
    assert norm.to_original(norm.text.index("Opened items")) == TEXT.index("Opened items")
    # Inside a run of blanks: the space after the word before it.
    assert norm.from_original(TEXT.index("items   within") + 6) == norm.text.index(" within")


def test_non_blank_characters_ignore_whitespace() -> None:
    assert nonblank_count(TEXT) == nonblank_count(collapse(TEXT)) == len("".join(TEXT.split()))
    assert nonblank_count("a b\n\nc", 1, 4) == 1


@given(st.text(alphabet=st.sampled_from("ab \n\t"), max_size=40))
def test_every_word_maps_back_to_itself(text: str) -> None:
    norm = Normalized.of(text)
    for start, word in zip(norm.norm_starts, norm.text.split(" "), strict=False):
        original = norm.to_original(start)
        assert text[original : original + len(word)] == word
        assert norm.from_original(original) == start


def test_word_alignment_keeps_runs_of_three_words() -> None:
    passage = "the customer pays return postage unless the item is faulty"
    target = "as a rule the customer pays return postage unless the item was sent in error"
    found = align_words(passage, target)
    assert [(passage[b.p_start : b.p_end], target[b.t_start : b.t_end]) for b in found.blocks] == [
        (
            "the customer pays return postage unless the item",
            "the customer pays return postage unless the item",
        )
    ]
    # Common words alone are no evidence.
    assert not align_words("the cat sat on the mat", "the dog ran to the park").found


@pytest.mark.parametrize("name", sorted(ALIGNERS))
def test_every_aligner_finds_an_identical_passage(name: str) -> None:
    passage = collapse(TEXT)
    target = "Some words before it. " + passage + " And after it."
    found, _, _ = ALIGNERS[name](passage, target).within(target, 0, len(target))
    # The character aligner may match the final "." to a later one, a block too short to keep.
    assert found >= nonblank_count(passage) - 1
    if name == "words":
        assert found == nonblank_count(passage)


def test_placements_exact_then_by_probes() -> None:
    document = "x " * 50 + "Opened items can be returned within 14 days if unused." + " y" * 50
    passage = "Opened items can be returned within 14 days if unused."
    assert placements(passage, document) == [100]
    edited = document.replace("within 14 days", "inside fourteen days")
    assert abs(placements(passage, edited)[0] - 100) < 20
    assert placements("nothing of this is there at all, not a word", document) == []


def test_a_passage_split_by_a_moved_section_is_found_in_both_places() -> None:
    first = "## Plus members Fernleaf Plus members never pay return postage at all."
    second = "## Refunds The customer is refunded within five working days of arrival."
    passage = first + " " + second
    document = second + " ## Other Something else entirely is written here. " + first
    # Each part votes for its own place; from either, the other part is found where it went.
    for alignment in align_in(passage, document):
        found, _, _ = alignment.within(document, 0, len(document))
        assert found >= 0.95 * nonblank_count(passage)
        starts = sorted(b.t_start for b in alignment.blocks)
        assert starts[0] < len(second) < document.index(first) <= starts[-1]
