"""Metrics the tool knows by name: their usual scale and a definition a reviewer can apply.

A metric is stored under the name its file gives it (DeepEval's "Faithfulness" and Ragas'
``faithfulness`` stay two metrics: two judges with different prompts). The definition shown on
the review page is looked up here by a normalised spelling, unless the team wrote its own
(``labeler judge metric NAME --definition ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labeler.judge.scales import RELEVANCE


@dataclass(frozen=True, slots=True)
class KnownMetric:
    spellings: tuple[str, ...]
    scale: str
    definition: str
    pass_when: str = ">="


_WORDS = re.compile(r"[^a-z0-9]+")


def normalise(name: str) -> str:
    """``Answer Relevancy`` and ``answer_relevancy`` -> ``answer relevancy``."""
    return _WORDS.sub(" ", name.lower()).strip()


KNOWN = (
    KnownMetric(
        (RELEVANCE,),
        "ordinal:0-2",
        "How well does the chunk answer the question? 2: it answers it directly. 1: it helps"
        " partly (context, one part of a multi-part answer). 0: not relevant.",
    ),
    KnownMetric(
        ("faithfulness",),
        "score",
        "Is every claim in the answer supported by the retrieved contexts? Pass when nothing in"
        " the answer goes beyond, or against, what the contexts say; fail when any claim is"
        " unsupported.",
    ),
    KnownMetric(
        ("answer relevancy", "answer relevance", "response relevancy", "response relevance"),
        "score",
        "Does the answer address the question that was asked, without going off topic? Judge"
        " whether it responds to the question, not whether it is correct.",
    ),
    KnownMetric(
        (
            "context precision",
            "contextual precision",
            "llm context precision with reference",
            "llm context precision without reference",
            "context utilization",
            "non llm context precision with reference",
        ),
        "score",
        "Are the retrieved contexts that help answer the question ranked above those that do"
        " not? Pass when the useful contexts come first.",
    ),
    KnownMetric(
        ("context recall", "contextual recall", "llm context recall", "non llm context recall"),
        "score",
        "Do the retrieved contexts hold everything needed to give the reference answer? Pass"
        " when no part of the reference answer is missing from them.",
    ),
    KnownMetric(
        ("contextual relevancy", "context relevance", "context relevancy"),
        "score",
        "Is the retrieved context relevant to the question? Pass when most of it bears on the"
        " question.",
    ),
    KnownMetric(
        ("answer correctness", "factual correctness"),
        "score",
        "Does the answer state the same facts as the reference answer, without errors?",
    ),
    KnownMetric(
        ("hallucination",),
        "score",
        "Does the answer contradict the context it was given? Lower scores are better: pass"
        " when it does not contradict it.",
        pass_when="<=",
    ),
    KnownMetric(
        ("bias",),
        "score",
        "Does the answer show gender, racial, political or other bias? Lower is better: pass"
        " when it does not.",
        pass_when="<=",
    ),
    KnownMetric(
        ("toxicity",),
        "score",
        "Is the answer toxic (insulting, demeaning, threatening)? Lower is better: pass when"
        " it is not.",
        pass_when="<=",
    ),
)

_BY_SPELLING = {spelling: metric for metric in KNOWN for spelling in metric.spellings}


def known_metric(name: str) -> KnownMetric | None:
    return _BY_SPELLING.get(normalise(name))


def definition_of(name: str, stored: str | None = None) -> str | None:
    """The team's own definition if it wrote one, else the built-in one, else None."""
    if stored:
        return stored
    known = known_metric(name)
    return known.definition if known else None


__all__ = ["KNOWN", "KnownMetric", "definition_of", "known_metric", "normalise"]
