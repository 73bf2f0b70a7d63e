"""Each rule of the remap, on hand-made passages: split, merge, edit, move, lost, two labels in
one chunk, and the grade-0 rule; worked out by hand from the texts in remap_helpers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeler.remap import OldLabel, decide, plan_remap
from labeler.remap.evidence import Evidence
from labeler.remap.rules import Mapping, point_to_the_answer
from labeler.remap.text import nonblank_count
from labeler.store import Store
from tests.remap_helpers import (
    BOTH,
    P_GIFT,
    P_OPENED,
    P_PAYS,
    P_PLUS,
    P_UNOPENED,
    POSTAGE,
    RETURNS,
    grade,
    setup,
)


def decisions(store: Store, **kwargs) -> list[tuple]:
    plan = plan_remap(store, "v1", "v2", **kwargs)
    return sorted(
        (m.question_id, m.reviewer, m.old_chunk, m.new_chunk, m.grade, m.decision, m.reason)
        for m in plan.mappings
    )


def test_identical_text_carries_whatever_the_grade(store: Store) -> None:
    setup(store, {"a": P_UNOPENED, "g": P_GIFT}, {"x": P_UNOPENED, "y": P_GIFT})
    grade(store, "q1", "a", 2)
    grade(store, "q1", "g", 0)
    assert decisions(store) == [
        ("q1", "maria", "a", "x", 2, "applied", "identical"),
        ("q1", "maria", "g", "y", 0, "applied", "identical"),
    ]


def test_split_passage_goes_to_review_with_a_proposal_for_each_piece(store: Store) -> None:
    setup(store, {"a": BOTH}, {"x": P_UNOPENED, "y": P_OPENED})
    grade(store, "q1", "a", 2)
    plan = plan_remap(store, "v1", "v2")
    # q1 asks about an unopened item: the piece about opened items is proposed 0.
    assert [(m.new_chunk, m.grade, m.decision, m.reason) for m in plan.mappings] == [
        ("x", 2, "queued", "split"),
        ("y", 0, "queued", "elsewhere"),
    ]
    # Offsets: the document is unchanged, so the shares are exact (non-blank characters).
    x, y = plan.mappings
    assert x.method == y.method == "offsets"
    assert x.containment == y.containment == 1.0
    assert x.coverage + y.coverage == pytest.approx(1.0)
    unopened, opened = nonblank_count(P_UNOPENED), nonblank_count(P_OPENED)
    assert (unopened, opened) == (63, 66)
    assert x.coverage == round(63 / 129, 4)


def piece(new_chunk: str, reason: str = "split", grade: int = 2, old: str = "a") -> Mapping:
    return Mapping(
        "label",
        "q1",
        "maria",
        old,
        new_chunk,
        grade,
        grade,
        None,
        "offsets",
        0.5,
        1.0,
        100.0,
        "queued",
        reason,
    )


def test_the_piece_holding_the_questions_words_keeps_the_grade() -> None:
    shares = {"x": 0.6, "y": 0.2, "z": 0.0}
    pieces = [piece("x"), piece("y", "partial"), piece("z", "edited")]
    pointed = point_to_the_answer(pieces, lambda q, c: shares[c])
    assert [(m.new_chunk, m.grade, m.reason) for m in pointed] == [
        ("x", 2, "split"),
        ("y", 0, "elsewhere"),
        ("z", 0, "elsewhere"),
    ]


@pytest.mark.parametrize(
    "shares",
    [{"x": 0.0, "y": 0.0}, {"x": 0.5, "y": 0.5}],
    ids=["no piece holds a word", "every piece holds as many"],
)
def test_without_a_clue_every_piece_keeps_the_grade(shares: dict) -> None:
    pieces = [piece("x"), piece("y")]
    assert point_to_the_answer(pieces, lambda q, c: shares[c]) == pieces


def test_only_the_pieces_of_a_positive_label_are_pointed() -> None:
    shares = {"x": 0.6, "y": 0.2}
    zero = [piece("x", "unseen", grade=0), piece("y", "unseen", grade=0)]
    conflict = [piece("x", "conflict"), piece("y", "conflict")]
    alone = [piece("x"), piece("y", old="b")]  # two labels, one piece each
    for pieces in (zero, conflict, alone):
        assert point_to_the_answer(pieces, lambda q, c: shares[c]) == pieces


def test_a_split_grade_0_carries_to_pieces_made_only_of_it(store: Store) -> None:
    setup(store, {"a": BOTH}, {"x": P_UNOPENED, "y": P_OPENED})
    grade(store, "q2", "a", 0)
    assert [d[3:] for d in decisions(store)] == [
        ("x", 0, "applied", "made of"),
        ("y", 0, "applied", "made of"),
    ]


def test_merged_passages_of_one_grade_carry_to_the_merged_chunk(store: Store) -> None:
    setup(store, {"a": P_UNOPENED, "b": P_OPENED}, {"m": BOTH})
    grade(store, "q1", "a", 2)
    grade(store, "q1", "b", 2)
    grade(store, "q3", "a", 0)
    grade(store, "q3", "b", 0)
    assert decisions(store) == [
        ("q1", "maria", "a", "m", 2, "applied", "contains"),
        ("q1", "maria", "b", "m", 2, "applied", "contains"),
        ("q3", "maria", "a", "m", 0, "applied", "made of"),
        ("q3", "maria", "b", "m", 0, "applied", "made of"),
    ]


def test_two_labels_of_different_grades_in_one_chunk_go_to_review(store: Store) -> None:
    setup(store, {"a": P_UNOPENED, "b": P_OPENED}, {"m": BOTH})
    grade(store, "q1", "a", 2)
    grade(store, "q1", "b", 1)
    grade(store, "q2", "a", 2)
    grade(store, "q2", "b", 0)
    assert decisions(store) == [
        ("q1", "maria", "a", "m", 2, "queued", "conflict"),
        ("q1", "maria", "b", "m", 2, "queued", "conflict"),
        ("q2", "maria", "a", "m", 2, "queued", "conflict"),
        ("q2", "maria", "b", "m", 2, "queued", "conflict"),
    ]


def test_different_reviewers_never_conflict_with_each_other(store: Store) -> None:
    setup(store, {"a": P_UNOPENED, "b": P_OPENED}, {"m": BOTH})
    grade(store, "q1", "a", 2, reviewer="maria")
    grade(store, "q1", "b", 0, reviewer="tom")
    assert decisions(store) == [
        ("q1", "maria", "a", "m", 2, "applied", "contains"),
        ("q1", "tom", "b", "m", 0, "queued", "unseen"),
    ]


def test_a_0_does_not_carry_to_a_chunk_that_adds_ungraded_text(store: Store) -> None:
    setup(store, {"a": P_UNOPENED}, {"m": BOTH})
    grade(store, "q3", "a", 0)
    assert [d[3:] for d in decisions(store)] == [("m", 0, "queued", "unseen")]


def test_a_0_does_not_carry_where_a_relevant_passage_reaches_in(store: Store) -> None:
    # m is all of b (0) and the last word of c (2), one character under 5 %: the 0 would pass
    # containment, but the chunk holds text graded relevant.
    tail = " resold."
    text = RETURNS
    setup(
        store,
        {"c": P_OPENED, "b": POSTAGE},
        {"m": tail.strip() + "\n\n" + POSTAGE},
        text=text,
    )
    grade(store, "q2", "b", 0)
    grade(store, "q2", "c", 2)
    plan = plan_remap(store, "v1", "v2")
    zero = next(m for m in plan.mappings if m.old_chunk == "b")
    assert (zero.decision, zero.reason) == ("queued", "conflict")
    assert zero.containment >= 0.95


def test_a_positive_grade_carries_to_a_chunk_holding_the_whole_passage(store: Store) -> None:
    setup(store, {"a": P_PAYS}, {"m": POSTAGE})
    grade(store, "q2", "a", 2)
    plan = plan_remap(store, "v1", "v2")
    (m,) = plan.mappings
    assert (m.new_chunk, m.decision, m.reason, m.method) == ("m", "applied", "contains", "offsets")
    assert m.coverage == 1.0
    assert m.containment < 0.5


def test_an_edited_passage_carries_when_almost_all_of_it_is_still_there(store: Store) -> None:
    # One word changed in a long passage: coverage stays above 0.95.
    small = RETURNS.replace("unless the item is faulty", "unless the item is broken")
    setup(store, {"a": POSTAGE}, {"m": POSTAGE.replace("faulty", "broken")}, new_text=small)
    grade(store, "q2", "a", 2)
    (m,) = plan_remap(store, "v1", "v2").mappings
    assert (m.decision, m.reason, m.method) == ("applied", "contains", "fuzzy")
    assert 0.95 <= m.coverage < 1.0
    assert m.similarity < 100


def test_a_passage_edited_too_much_goes_to_review(store: Store) -> None:
    reworded = "Plus members get free return postage for every return."
    edited = RETURNS.replace(P_PLUS, reworded)
    setup(store, {"a": POSTAGE}, {"m": POSTAGE.replace(P_PLUS, reworded)}, new_text=edited)
    grade(store, "q2", "a", 2)
    (m,) = plan_remap(store, "v1", "v2").mappings
    assert (m.new_chunk, m.decision, m.reason, m.method) == ("m", "queued", "edited", "fuzzy")
    assert 0.4 < m.coverage < 0.95


def test_a_moved_section_is_found_where_it_went(store: Store) -> None:
    gift = "## Gift cards\n\n" + P_GIFT
    moved = RETURNS.replace("\n\n" + gift, "").replace("## Postage", gift + "\n\n## Postage")
    setup(store, {"g": gift, "p": POSTAGE}, {"x": gift + "\n\n" + POSTAGE}, new_text=moved)
    grade(store, "q3", "g", 2)
    (m,) = [m for m in plan_remap(store, "v1", "v2").mappings if m.old_chunk == "g"]
    assert (m.new_chunk, m.decision, m.method, m.coverage) == ("x", "applied", "fuzzy", 1.0)
    assert m.similarity == 100


def test_a_passage_removed_from_its_document_is_lost(store: Store) -> None:
    without = RETURNS.replace("\n\n" + P_PLUS, "")
    setup(
        store,
        {"p": P_PLUS, "a": P_PAYS},
        {"m": POSTAGE.replace("\n\n" + P_PLUS, "")},
        new_text=without,
    )
    grade(store, "q2", "p", 2)
    grade(store, "q2", "a", 2)
    assert decisions(store) == [
        ("q2", "maria", "a", "m", 2, "applied", "contains"),
        ("q2", "maria", "p", None, 2, "lost", "lost"),
    ]


def test_a_renamed_document_is_found_through_the_full_text_index(store: Store) -> None:
    setup(
        store,
        {"a": P_UNOPENED, "b": POSTAGE},
        {"x": BOTH, "y": POSTAGE.replace("faulty", "broken")},
        new_text=RETURNS.replace("faulty", "broken"),
        new_doc_id="returns-2025",
    )
    grade(store, "q1", "a", 2)
    grade(store, "q2", "b", 1)
    plan = plan_remap(store, "v1", "v2")
    assert [(m.old_chunk, m.new_chunk, m.decision, m.method) for m in plan.mappings] == [
        ("a", "x", "applied", "fuzzy"),
        ("b", "y", "applied", "fuzzy"),
    ]
    assert plan.searches >= 1


def test_the_threshold_is_the_users(store: Store) -> None:
    setup(store, {"a": BOTH}, {"x": P_UNOPENED + "\n\n" + P_OPENED[:40]})
    grade(store, "q1", "a", 2)
    (strict,) = plan_remap(store, "v1", "v2").mappings
    (lax,) = plan_remap(store, "v1", "v2", min_coverage=0.6).mappings
    assert (strict.decision, lax.decision) == ("queued", "applied")


# the rules alone, fed evidence by hand ------------------------------------------------------


def evidence(chunk: str, coverage: float, containment: float, *, length: int = 100, spans=None):
    spans = spans or ((0, round(containment * length)),)
    return Evidence(chunk, "offsets", coverage, containment, 100.0, spans, length, ("d", 0, chunk))


def label(chunk: str, grade_: int, question: str = "q", reviewer: str = "r") -> OldLabel:
    return OldLabel("label", question, reviewer, chunk, grade_, None, (chunk,))


def test_grade_0_carries_to_a_chunk_made_of_two_zero_passages_side_by_side() -> None:
    def found(end: int) -> dict:
        return {
            ("a",): (evidence("m", 1.0, 0.5, spans=((0, 50),)),),
            ("b",): (evidence("m", 1.0, (end - 50) / 100, spans=((50, end),)),),
        }

    # Together they make 98 of the chunk's 100 characters: each alone is far from it.
    got = decide([label("a", 0), label("b", 0)], found(98))
    assert [(m.decision, m.reason) for m in got] == [("applied", "made of")] * 2
    # 90 %: a tenth of the chunk is text nobody graded.
    got = decide([label("a", 0), label("b", 0)], found(90))
    assert [(m.decision, m.reason) for m in got] == [("queued", "unseen")] * 2


def test_slivers_are_not_proposals() -> None:
    found = {("a",): (evidence("m", 1.0, 1.0), evidence("n", 0.02, 0.05))}
    got = decide([label("a", 2)], found)
    assert [(m.new_chunk, m.decision) for m in got] == [("m", "applied")]
    only_sliver = {("a",): (evidence("n", 0.02, 0.05),)}
    assert [m.decision for m in decide([label("a", 2)], only_sliver)] == ["lost"]


def test_a_label_whose_text_is_only_where_its_grade_already_goes_is_consistent() -> None:
    found = {
        ("a",): (evidence("m", 1.0, 0.6),),
        ("b",): (evidence("m", 0.4, 0.3),),
    }
    got = decide([label("a", 2), label("b", 2)], found)
    assert [(m.old_chunk, m.decision, m.reason) for m in got] == [
        ("a", "applied", "contains"),
        ("b", "applied", "consistent"),
    ]


# a property: remapping unchanged text is the identity --------------------------------------

WORDS = st.sampled_from(
    "refund postage parcel order key token limit page cursor webhook retry member card".split()
)
SENTENCES = st.lists(WORDS, min_size=3, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    paragraphs=st.lists(SENTENCES, min_size=1, max_size=8, unique=True),
    grades=st.lists(st.integers(0, 2), min_size=8, max_size=8),
    rename=st.booleans(),
)
def test_remapping_unchanged_text_is_the_identity(tmp_path_factory, paragraphs, grades, rename):
    text = "\n\n".join(paragraphs) + "\n"
    with Store(tmp_path_factory.mktemp("identity") / "t.db") as store:
        store.questions.upsert([{"id": "q", "text": "question"}])
        store.corpus.upsert_documents([{"id": "d", "text": text}])
        rows, position = [], 0
        for k, paragraph in enumerate(paragraphs):
            start = text.index(paragraph, position)
            position = start + len(paragraph)
            rows.append(
                {"id": f"c{k}", "doc_id": "d", "text": paragraph, "start": start, "end": position}
            )
        store.corpus.ensure_chunking("v1")
        store.corpus.upsert_chunks("v1", rows)
        store.corpus.ensure_chunking("v2")
        store.corpus.upsert_chunks(
            "v2", [{**r, "id": f"new-{r['id']}" if rename else r["id"]} for r in rows]
        )
        for row, value in zip(rows, grades, strict=False):
            store.labels.set_grade("q", "v1", row["id"], "r", value)
        plan = plan_remap(store, "v1", "v2")
        expected = {
            (r["id"], f"new-{r['id']}" if rename else r["id"], g)
            for r, g in zip(rows, grades, strict=False)
        }
        assert {(m.old_chunk, m.new_chunk, m.grade) for m in plan.mappings} == expected
        assert {(m.decision, m.method) for m in plan.mappings} == {("applied", "identical")}
