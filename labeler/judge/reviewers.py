"""``labeler agreement``: how far reviewers agree on relevance grades (0/1/2, ordinal).

The same statistics as the judge report's people's part (``labeler.agreement``): Krippendorff's
alpha (ordinal; any number of reviewers, missing grades allowed) over every (question, chunk)
two or more reviewers graded, overall and per question tag; a matrix of reviewer pairs (the
items they share and, from ``MIN_PAIR_ITEMS`` shared items, their quadratic-weighted kappa); and
the questions with the most disagreement: most disputed chunks first (chunks whose reviewers
gave different grades), then the largest mean squared grade difference between the pairs of
reviewers on its shared chunks, then by id.

**Blind grades.** Each reviewer's grade is taken as it stood before they were shown the others'
grades on that question (the grading page shows them only once every candidate is graded, and
the history records the moment, ``saw others``): a grade changed after seeing others is a
revision, kept in the history, but agreement measures how far people agree on their own. A
chunk graded only after seeing others is left out for that reviewer
(``store.labels.blind_labels``).

Only explicit grades count: an "unanswerable" mark is a verdict on the question, not a look at
each chunk, so it is not read as a 0 here (the export's consensus does read it so).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from labeler import agreement
from labeler.judge.report import MIN_PAIR_ITEMS, human_sentence
from labeler.judge.scales import RELEVANCE, RELEVANCE_SCALE
from labeler.store import Store

SCALE = RELEVANCE_SCALE
TOP_QUESTIONS = 10


@dataclass(frozen=True, slots=True)
class PairAgreement:
    a: str
    b: str
    items: int
    kappa: float | None
    agreement: float | None

    def as_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "items": self.items,
            "kappa": self.kappa,
            "agreement": self.agreement,
        }


@dataclass(frozen=True, slots=True)
class QuestionDisagreement:
    question_id: str
    text: str
    tags: tuple[str, ...]
    shared: int  # chunks graded by two or more
    disputed: int
    spread: float  # mean squared grade difference over reviewer pairs on shared chunks
    reviewers: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "question_id": self.question_id,
            "question": self.text,
            "tags": list(self.tags),
            "shared_chunks": self.shared,
            "disputed_chunks": self.disputed,
            "spread": self.spread,
            "reviewers": list(self.reviewers),
        }


@dataclass(frozen=True, slots=True)
class GroupAlpha:
    alpha: float | None
    items: int
    questions: int

    def as_dict(self) -> dict:
        return {"alpha": self.alpha, "items": self.items, "questions": self.questions}


@dataclass(frozen=True, slots=True)
class ReviewerAgreement:
    tag: str | None
    reviewers: tuple[str, ...]
    overall: GroupAlpha
    by_tag: dict[str, GroupAlpha]
    pairs: tuple[PairAgreement, ...]
    questions: tuple[QuestionDisagreement, ...]
    summary: str

    def as_dict(self) -> dict:
        return {
            "metric": RELEVANCE,
            "scale": SCALE.spec,
            "tag": self.tag,
            "reviewers": list(self.reviewers),
            "alpha": self.overall.alpha,
            "items": self.overall.items,
            "questions_shared": self.overall.questions,
            "by_tag": {t: g.as_dict() for t, g in self.by_tag.items()},
            "pairs": [p.as_dict() for p in self.pairs],
            "matrix": self.matrix(),
            "most_disagreement": [q.as_dict() for q in self.questions],
            "summary": self.summary,
        }

    def matrix(self) -> dict:
        """The pairs as square matrices over ``reviewers``: shared chunks, and weighted kappa
        (null below MIN_PAIR_ITEMS shared chunks, and on the diagonal)."""
        index = {r: i for i, r in enumerate(self.reviewers)}
        size = len(self.reviewers)
        items = [[0] * size for _ in range(size)]
        kappa: list[list[float | None]] = [[None] * size for _ in range(size)]
        for p in self.pairs:
            a, b = index[p.a], index[p.b]
            items[a][b] = items[b][a] = p.items
            kappa[a][b] = kappa[b][a] = p.kappa
        return {"reviewers": list(self.reviewers), "items": items, "kappa": kappa}


def _alpha(grades: dict[tuple[str, str], dict[str, int]]) -> GroupAlpha:
    shared = {k: v for k, v in grades.items() if len(v) >= 2}
    alpha = agreement.alpha_of(
        ((key, g) for key, given in shared.items() for g in given.values()),
        categories=SCALE.categories,
        level=SCALE.level,
    )
    return GroupAlpha(alpha, len(shared), len({q for q, _ in shared}))


def reviewer_agreement(
    store: Store,
    *,
    tag: str | None = None,
    chunking: str | None = None,
    top: int = TOP_QUESTIONS,
) -> ReviewerAgreement:
    chunking = chunking or store.corpus.current_chunking()
    with store.snapshot():
        tags = {q: tuple(t) for q, t in store.questions.tag_map().items()}
        grades: dict[tuple[str, str], dict[str, int]] = {}
        for question_id, chunk_id, reviewer, grade in store.labels.blind_labels(chunking):
            if tag is None or tag in tags.get(question_id, ()):
                grades.setdefault((question_id, chunk_id), {})[reviewer] = grade
        texts = store.questions.texts(sorted({q for q, _ in grades}))
    reviewers = tuple(sorted({r for given in grades.values() for r in given}))
    overall = _alpha(grades)
    by_tag: dict[str, GroupAlpha] = {}
    for name in sorted({t for q, _ in grades for t in tags.get(q, ())}):
        group = _alpha({k: v for k, v in grades.items() if name in tags.get(k[0], ())})
        if group.items:
            by_tag[name] = group
    pairs = []
    for a, b in combinations(reviewers, 2):
        common = sorted(k for k, given in grades.items() if a in given and b in given)
        if not common:
            continue
        first = [grades[k][a] for k in common]
        second = [grades[k][b] for k in common]
        kappa = (
            agreement.cohen_kappa(first, second, categories=SCALE.categories, weights=SCALE.weights)
            if len(common) >= MIN_PAIR_ITEMS
            else None
        )
        same = sum(x == y for x, y in zip(first, second, strict=True))
        pairs.append(PairAgreement(a, b, len(common), kappa, same / len(common)))
    per_question: dict[str, list[dict[str, int]]] = {}
    for (question_id, _), given in grades.items():
        if len(given) >= 2:
            per_question.setdefault(question_id, []).append(given)
    ranked = []
    for question_id, chunks in per_question.items():
        disputed = sum(len(set(g.values())) > 1 for g in chunks)
        differences = [(x - y) ** 2 for g in chunks for x, y in combinations(list(g.values()), 2)]
        spread = sum(differences) / len(differences) if differences else 0.0
        ranked.append(
            QuestionDisagreement(
                question_id,
                texts.get(question_id, ""),
                tags.get(question_id, ()),
                len(chunks),
                disputed,
                spread,
                tuple(sorted({r for g in chunks for r in g})),
            )
        )
    ranked.sort(key=lambda q: (-q.disputed, -q.spread, q.question_id))
    ranked = [q for q in ranked if q.disputed][:top]
    scope = f"relevance (tag {tag})" if tag else RELEVANCE
    return ReviewerAgreement(
        tag=tag,
        reviewers=reviewers,
        overall=overall,
        by_tag=by_tag,
        pairs=tuple(pairs),
        questions=tuple(ranked),
        summary=human_sentence(scope, SCALE, list(reviewers), overall.items, overall.alpha),
    )


__all__ = [
    "GroupAlpha",
    "PairAgreement",
    "QuestionDisagreement",
    "ReviewerAgreement",
    "reviewer_agreement",
]
