"""Lexical faithfulness (worked example E) and claim-based scores (worked example F)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.faithfulness import (
    check_answers,
    claim_score,
    lexical_faithfulness,
    read_answers,
    read_contexts,
    sentences,
    terms,
)

PASSAGE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a"
    " Retry-After header."
)
ANSWER = (
    "You can send 100 requests per minute per API key. Extra requests return status 429."
    " Limits reset every hour."
)


def test_e_worked_example() -> None:
    result = lexical_faithfulness(ANSWER, PASSAGE)
    got = [(s.text, s.share, s.verdict) for s in result.sentences]
    assert got == [
        ("You can send 100 requests per minute per API key.", 1.0, "supported"),
        ("Extra requests return status 429.", 1.0, "supported"),
        ("Limits reset every hour.", 0.0, "not found"),
    ]
    assert result.score == pytest.approx(2 / 3)


def test_terms_and_sentences() -> None:
    assert terms("You can send 100 requests per minute per API key.") == [
        "send", "100", "requests", "minute", "api", "key",
    ]  # fmt: skip
    assert terms("a Retry-After header") == ["retry-after", "header"]
    assert sentences("One. Two! Three?\nFour 2.5 five") == [
        "One.",
        "Two!",
        "Three?",
        "Four 2.5 five",
    ]


def test_the_threshold() -> None:
    # 3 of 4 terms in the passage: supported at 0.75, not at 0.8.
    answer = "Send requests quickly minute."
    assert lexical_faithfulness(answer, PASSAGE).sentences[0].share == 0.75
    assert lexical_faithfulness(answer, PASSAGE).score == 1.0
    assert lexical_faithfulness(answer, PASSAGE, threshold=0.8).score == 0.0
    with pytest.raises(LabelerError, match='field "threshold"'):
        lexical_faithfulness(answer, PASSAGE, threshold=0)


def test_one_passage_must_hold_the_terms() -> None:
    answer = "Extra requests return status 429."
    split = ["Extra requests return.", "Status 429."]
    result = lexical_faithfulness(answer, split)
    assert result.sentences[0].share == pytest.approx(3 / 5)
    assert result.sentences[0].passage == 0
    assert result.score == 0.0


def test_the_stated_limits() -> None:
    """A paraphrase is missed; copied words with the opposite meaning pass."""
    assert lexical_faithfulness("Each key gets 100 calls a minute.", PASSAGE).score == 0.0
    assert lexical_faithfulness("Extra requests never return status 429.", PASSAGE).score == 1.0


def test_sentences_without_terms_are_not_counted() -> None:
    result = lexical_faithfulness("You can. Extra requests return status 429.", PASSAGE)
    assert [s.verdict for s in result.sentences] == ["no terms", "supported"]
    assert result.score == 1.0
    assert lexical_faithfulness("", PASSAGE).score is None


@pytest.mark.parametrize(
    ("supported", "claims", "expected"),
    [(2, 3, 0.667), (3, 3, 1.000), (1, 3, 0.333)],  # F: faithfulness, context recall, top two
)
def test_f_claim_based_scores(supported: int, claims: int, expected: float) -> None:
    assert claim_score(supported, claims) == pytest.approx(expected, abs=5e-4)


def test_claim_score_checks_its_counts() -> None:
    assert claim_score(0, 0) is None
    with pytest.raises(LabelerError):
        claim_score(4, 3)
    with pytest.raises(LabelerError):
        claim_score(-1, 3)


def test_files(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(f'{{"question_id": "q1", "answer": "{ANSWER}"}}\n', encoding="utf-8")
    contexts = tmp_path / "contexts.jsonl"
    contexts.write_text(
        '{"question_id": "q1", "text": "Each API key may send 100 requests per minute."}\n'
        '{"question_id": "q1", "contexts": ["Extra requests return status 429."]}\n',
        encoding="utf-8",
    )
    (check,) = check_answers(read_answers(answers), read_contexts(contexts))
    assert check.passages == 2
    assert check.result.score == pytest.approx(2 / 3)
    answers.write_text('{"question_id": "q1"}\n', encoding="utf-8")
    with pytest.raises(LabelerError, match=r'answers.jsonl:1: field "answer": missing'):
        read_answers(answers)
