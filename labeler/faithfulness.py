"""Lexical faithfulness: which sentences of an answer are backed by the retrieved passages?

A cheap first screen, not a judge. Terms are the lower-cased matches of ``[a-z0-9-]+`` minus a
few stop words; a sentence is *supported* when at least ``threshold`` (0.75) of its distinct
terms appear in one passage; faithfulness is the share of supported sentences. Sentences end
after ``.``, ``!`` or ``?`` followed by white space, and at line breaks.

Its limits, stated plainly: it misses paraphrases ("100 calls a minute" against "100 requests
per minute" is not found), it has no stemming ("request" is not "requests"), and it accepts a
sentence that copies the passage's words while changing the meaning ("429 is never returned"
against a passage about status 429). Use it to sort answers for review; the judge audit
measures how far it can be trusted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from labeler.errors import LabelerError
from labeler.readers import iter_jsonl, text_field

STOP_WORDS = frozenset({"a", "an", "the", "you", "can", "per", "with", "every", "each", "may"})
DEFAULT_THRESHOLD = 0.75
_TERM = re.compile(r"[a-z0-9-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")


def terms(text: str) -> list[str]:
    """The text's terms, in order: lower-cased ``[a-z0-9-]+`` matches minus the stop words."""
    return [t for t in _TERM.findall(text.lower()) if t not in STOP_WORDS]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


@dataclass(frozen=True, slots=True)
class SentenceVerdict:
    """One answer sentence: its distinct terms, the best passage's share of them, the verdict.

    ``share`` and ``supported`` are None for a sentence without terms (it is not counted).
    """

    text: str
    terms: tuple[str, ...]
    found: tuple[str, ...]
    share: float | None
    supported: bool | None
    passage: int | None

    @property
    def verdict(self) -> str:
        if self.supported is None:
            return "no terms"
        return "supported" if self.supported else "not found"

    def as_dict(self) -> dict:
        return {
            "sentence": self.text,
            "verdict": self.verdict,
            "share": self.share,
            "terms": list(self.terms),
            "missing": [t for t in self.terms if t not in self.found],
            "passage": self.passage,
        }


@dataclass(frozen=True, slots=True)
class Faithfulness:
    sentences: tuple[SentenceVerdict, ...]

    @property
    def counted(self) -> int:
        return sum(1 for s in self.sentences if s.supported is not None)

    @property
    def supported(self) -> int:
        return sum(1 for s in self.sentences if s.supported)

    @property
    def score(self) -> float | None:
        """Supported sentences / sentences with terms; None when no sentence has a term."""
        return self.supported / self.counted if self.counted else None


def lexical_faithfulness(
    answer: str, passages: str | Sequence[str], *, threshold: float = DEFAULT_THRESHOLD
) -> Faithfulness:
    """Check every sentence of ``answer`` against each passage; the best passage decides."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not 0 < threshold <= 1
    ):
        raise LabelerError(f"must be a number in (0, 1], got {threshold!r}", field="threshold")
    passages = [passages] if isinstance(passages, str) else list(passages)
    vocabularies = [set(terms(p)) for p in passages]
    verdicts = []
    for sentence in sentences(answer):
        distinct = tuple(dict.fromkeys(terms(sentence)))
        if not distinct:
            verdicts.append(SentenceVerdict(sentence, (), (), None, None, None))
            continue
        best, found = None, ()
        for i, vocabulary in enumerate(vocabularies):
            hits = tuple(t for t in distinct if t in vocabulary)
            if best is None or len(hits) > len(found):
                best, found = i, hits
        share = len(found) / len(distinct)
        verdicts.append(SentenceVerdict(sentence, distinct, found, share, share >= threshold, best))
    return Faithfulness(tuple(verdicts))


@dataclass(frozen=True, slots=True)
class AnswerCheck:
    question_id: str
    answer: str
    result: Faithfulness
    passages: int

    def as_dict(self) -> dict:
        return {
            "question_id": self.question_id,
            "faithfulness": self.result.score,
            "supported": self.result.supported,
            "sentences": self.result.counted,
            "passages": self.passages,
            "verdicts": [s.as_dict() for s in self.result.sentences],
        }


def read_answers(path: str | Path) -> dict[str, str]:
    """Answers JSONL: ``{"question_id", "answer"}`` per line."""
    answers: dict[str, str] = {}
    for line, record in iter_jsonl(path):
        qid = text_field(record, "question_id", path=path, line=line)
        answer = record.get("answer")
        if not isinstance(answer, str):
            what = "missing" if answer is None else f"expected text, got {answer!r}"
            raise LabelerError(what, path=path, line=line, field="answer")
        if qid in answers:
            raise LabelerError(f"question {qid} has two answers", path=path, line=line)
        answers[qid] = answer
    return answers


def read_contexts(path: str | Path) -> dict[str, list[str]]:
    """Contexts JSONL: ``{"question_id", "contexts": [text, ...]}`` or one passage per line
    ``{"question_id", "text"}``; lines of one question add up, in order."""
    contexts: dict[str, list[str]] = {}
    for line, record in iter_jsonl(path):
        qid = text_field(record, "question_id", path=path, line=line)
        if "contexts" in record:
            given = record["contexts"]
            if not isinstance(given, list) or not all(isinstance(c, str) for c in given):
                raise LabelerError(
                    "expected a list of text", path=path, line=line, field="contexts"
                )
        else:
            given = [text_field(record, "text", path=path, line=line)]
        contexts.setdefault(qid, []).extend(given)
    return contexts


def check_answers(
    answers: Mapping[str, str],
    contexts: Mapping[str, Sequence[str]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> tuple[AnswerCheck, ...]:
    """Every answer against its question's passages (none: every sentence is not found)."""
    return tuple(
        AnswerCheck(
            qid,
            answer,
            lexical_faithfulness(answer, contexts.get(qid, []), threshold=threshold),
            len(contexts.get(qid, [])),
        )
        for qid, answer in answers.items()
    )


def claim_score(supported: int, claims: int) -> float | None:
    """A claim-based score from counts a reviewer or a judge supplies: faithfulness (answer
    claims the passages support / answer claims) or context recall (reference claims the
    passages support / reference claims). None when there is no claim to count."""
    for value, field in ((supported, "supported"), (claims, "claims")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise LabelerError(f"expected a count (0 or more), got {value!r}", field=field)
    if supported > claims:
        raise LabelerError(f"{supported} supported claims out of {claims}", field="supported")
    return supported / claims if claims else None


def mean_faithfulness(checks: Sequence[AnswerCheck]) -> float | None:
    scores = [c.result.score for c in checks if c.result.score is not None]
    return sum(scores) / len(scores) if scores else None


__all__ = [
    "DEFAULT_THRESHOLD",
    "STOP_WORDS",
    "AnswerCheck",
    "Faithfulness",
    "SentenceVerdict",
    "check_answers",
    "claim_score",
    "lexical_faithfulness",
    "mean_faithfulness",
    "read_answers",
    "read_contexts",
    "sentences",
    "terms",
]
