"""Flags on generated questions: cheap checks that point a reviewer at the usual defects of
LLM-generated test questions. Advisory only: a flag never decides, it orders the queue and
explains itself in one line ("shares 9 of 11 content words with its reference answer").

Plain data in, plain data out (no store, no Streamlit), so the flags can be measured on a
labelled set (tests/benchmarks/flag_quality.py, figures in docs/review.md) and driven by the
review core (labeler.review) over the database.

The flags:

- ``duplicate``: a near-duplicate of another question, generated or human. Texts are
  normalised (lower-cased words, punctuation dropped), and scored with rapidfuzz's
  ``token_sort_ratio`` (0-100). Pairs are scored only among candidates found by blocking:
  a question is compared with the questions that contain one of its ``BLOCK_KEYS`` rarest
  content words, never with all others. Pairs scoring ``duplicate_threshold`` or more are
  joined into clusters (connected components).
- ``answer_leak``: the question already states its answer: ``leak_share`` or more of the
  content words of its reference answer (of one sentence of it, for long answers) appear in
  the question.
- ``copied_from_source``: ``copy_share`` or more of the question's words repeat a source
  context verbatim, in runs of at least ``copy_run`` words: a lexical retriever finds such a
  question trivially and flatters its scores.
- ``unsupported_reference``: sentences of the reference answer that no context supports,
  by ``labeler.faithfulness`` (a sentence is supported when ``support_share`` of its terms
  are in one context).
- ``context_not_found``: a context that matched no chunk of the current chunking.
- ``too_short`` / ``too_long``: fewer than ``min_words`` or more than ``max_words`` words.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields

from labeler.errors import LabelerError
from labeler.faithfulness import lexical_faithfulness

FLAG_NAMES = (
    "duplicate",
    "answer_leak",
    "copied_from_source",
    "unsupported_reference",
    "context_not_found",
    "too_short",
    "too_long",
)
FLAG_TITLES = {
    "duplicate": "Duplicate",
    "answer_leak": "Leaks its answer",
    "copied_from_source": "Copied from its source",
    "unsupported_reference": "Unsupported reference",
    "context_not_found": "Context not found",
    "too_short": "Too short",
    "too_long": "Too long",
}

# How many of a question's rarest content words find its duplicate candidates.
BLOCK_KEYS = 2

# Function words, question words and the filler of generated questions: what carries no
# content for "does the question state its answer" and for finding duplicate candidates.
STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves may might must shall us per via vs etc s t according context
    tell explain describe please give list know want wanna like""".split()
)

_WORD = re.compile(r"[^\W_]+")
_COMBINING = re.compile(r"[\u0300-\u036f]")


def words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits, accents folded: "Retry-After" is two words,
    "Größe" is "große"."""
    lowered = text.lower()
    if not lowered.isascii():
        lowered = _COMBINING.sub("", unicodedata.normalize("NFKD", lowered))
    return _WORD.findall(lowered)


def normalise(text: str) -> str:
    """The text as its words joined by single spaces: what duplicate scoring compares."""
    return " ".join(words(text))


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light stemmer, enough for "refunds" to meet "refund" and "returned" "return"."""
    if len(word) <= 4 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    """Stems of the words that are not stop words, in order of appearance, each once."""
    return list(dict.fromkeys(stem(w) for w in words(text) if w not in STOP_WORDS))


# configuration --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FlagConfig:
    """The thresholds of the flags; defaults chosen on the labelled set (docs/review.md)."""

    duplicate_threshold: float = 85.0
    leak_share: float = 0.7
    copy_share: float = 0.75
    copy_run: int = 4
    support_share: float = 0.6
    min_words: int = 3
    max_words: int = 40

    def __post_init__(self) -> None:
        checks = {
            "duplicate_threshold": (0 < self.duplicate_threshold <= 100, "a score in (0, 100]"),
            "leak_share": (0 < self.leak_share <= 1, "a share in (0, 1]"),
            "copy_share": (0 < self.copy_share <= 1, "a share in (0, 1]"),
            "copy_run": (isinstance(self.copy_run, int) and self.copy_run >= 2, "2 or more"),
            "support_share": (0 < self.support_share <= 1, "a share in (0, 1]"),
            "min_words": (isinstance(self.min_words, int) and self.min_words >= 0, "0 or more"),
            "max_words": (
                isinstance(self.max_words, int) and self.max_words > self.min_words,
                "more than min_words",
            ),
        }
        for name, (ok, expected) in checks.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not ok:
                msg = f"expected {expected}, got {value!r}"
                raise LabelerError(msg, field=name)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Mapping) -> FlagConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            msg = f"unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}"
            raise LabelerError(msg, field=unknown[0])
        return cls(**dict(values))


# the flags ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Flag:
    """One flag on one question: its name, a short human reason, and related question ids."""

    name: str
    reason: str
    related: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"name": self.name, "reason": self.reason, "related": list(self.related)}


@dataclass(frozen=True, slots=True)
class Context:
    """A context a question was generated from, and whether it matched a chunk."""

    text: str
    found: bool = True


@dataclass(frozen=True, slots=True)
class FlagInput:
    id: str
    text: str
    reference: str | None = None
    contexts: tuple[Context, ...] = field(default=())


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# Words that only confirm ("Yes, ...", "Correct: ...") and say nothing of the answer itself.
CONFIRMATIONS = frozenset("yes no correct right true indeed exactly".split())
NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve fifteen twenty
    thirty forty fifty sixty hundred thousand million first second third once twice""".split()
)


_DIGIT = re.compile(r"\d")


def _is_number(word: str) -> bool:
    return word in NUMBER_WORDS or _DIGIT.search(word) is not None


def answer_leak(question: str, reference: str | None, config: FlagConfig) -> Flag | None:
    """The question states its answer: ``leak_share`` or more of the content words of the
    reference answer, or of one of its sentences, are in the question, every number among them
    included. A number missing from the question is what the question asks for ("How many
    requests per minute...?" against "100 requests per minute"), so that is no leak."""
    if not reference or not reference.strip():
        return None
    asked = set(content_words(question))
    best: tuple[float, int, int] | None = None
    parts = [reference, *_sentences(reference)]
    for part in parts:
        answer = [w for w in content_words(part) if w not in CONFIRMATIONS]
        if not answer or (part is not reference and len(answer) < 3):
            continue
        shared = sum(1 for w in answer if w in asked)
        if shared / len(answer) < config.leak_share:
            continue
        if shared < len(answer) and any(_is_number(w) for w in answer if w not in asked):
            continue
        candidate = (shared / len(answer), shared, len(answer))
        if best is None or candidate > best:
            best = candidate
    if best is None:
        return None
    _, shared, total = best
    return Flag(
        "answer_leak",
        f"shares {shared} of {_plural(total, 'content word')} with its reference answer",
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n\s*")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def copied_from_source(
    question: str, contexts: Sequence[Context], config: FlagConfig
) -> Flag | None:
    """The question repeats a context verbatim: the share of its words that lie in runs of
    ``copy_run`` or more words found, in the same order, in one context."""
    asked = words(question)
    run = config.copy_run
    if len(asked) < run:
        return None
    grams = [" " + " ".join(asked[i : i + run]) + " " for i in range(len(asked) - run + 1)]
    best = 0
    for context in contexts:
        flat = _read(context.text)[0]
        covered = [False] * len(asked)
        for i, gram in enumerate(grams):
            if gram in flat:
                covered[i : i + run] = [True] * run
        best = max(best, sum(covered))
    if not best or best / len(asked) < config.copy_share:
        return None
    return Flag(
        "copied_from_source",
        f"repeats {best} of its {len(asked)} words verbatim from a source context",
    )


# Questions generated from one corpus share their contexts (several per chunk): a context is
# read once, for every question that has it.
@functools.lru_cache(maxsize=8192)
def _read(text: str) -> tuple[str, str]:
    """A context as " its words joined " (for finding runs) and as its distinct stemmed words
    (all that lexical faithfulness looks at in a passage)."""
    found = words(text)
    return " " + " ".join(found) + " ", " ".join({stem(w): None for w in found})


_CLAUSE_END = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")


def _claims(text: str) -> list[tuple[str, str]]:
    """The reference answer's claims: its sentences, cut again at semicolons (a generated
    answer joins one fact per context with them), each with the content words that
    ``lexical_faithfulness`` compares (stemmed; stop words and "Yes"/"No" left out, so a bare
    "No." is no claim and "refunds" meets "refund")."""
    claims = []
    for clause in _CLAUSE_END.split(text.strip()):
        terms = [stem(w) for w in words(clause) if w not in STOP_WORDS and w not in CONFIRMATIONS]
        if terms:
            claims.append((clause.strip(), " ".join(terms)))
    return claims


def unsupported_reference(
    reference: str | None, contexts: Sequence[Context], config: FlagConfig
) -> Flag | None:
    """Claims of the reference answer that its contexts do not support, by
    ``labeler.faithfulness.lexical_faithfulness`` (a claim is supported when ``support_share``
    of its terms are in the contexts, which the generator saw together), over content words
    stemmed alike on both sides."""
    if not reference or not contexts:
        return None
    claims = _claims(reference)
    if not claims:
        return None
    # The generator saw its contexts together, so a claim may join facts from two of them.
    passage = " ".join(_read(c.text)[1] for c in contexts)
    result = lexical_faithfulness(
        "\n".join(terms for _, terms in claims), passage, threshold=config.support_share
    )
    missing = [
        claims[i][0] for i, verdict in enumerate(result.sentences) if verdict.supported is False
    ]
    if not missing:
        return None
    quote = " ".join(missing[0].split())
    quote = quote if len(quote) <= 90 else quote[:89] + "…"
    return Flag(
        "unsupported_reference",
        f"{len(missing)} of {_plural(len(claims), 'claim')} of the reference answer"
        f" not found in its contexts: “{quote}”",
    )


def context_not_found(contexts: Sequence[Context], chunking: str) -> Flag | None:
    lost = sum(1 for c in contexts if not c.found)
    if not lost:
        return None
    what = "its context" if len(contexts) == 1 else f"{lost} of its {len(contexts)} contexts"
    verb = "matches" if lost == 1 and len(contexts) == 1 else "match" if lost > 1 else "matches"
    return Flag("context_not_found", f"{what} {verb} no chunk of chunking {chunking!r}")


def length(question: str, config: FlagConfig) -> Flag | None:
    count = len(words(question))
    if count < config.min_words:
        return Flag("too_short", f"{_plural(count, 'word')}, fewer than {config.min_words}")
    if count > config.max_words:
        return Flag("too_long", f"{_plural(count, 'word')}, more than {config.max_words}")
    return None


def question_flags(item: FlagInput, config: FlagConfig, *, chunking: str) -> list[Flag]:
    """Every flag of one question except ``duplicate`` (which needs the other questions)."""
    found = [
        answer_leak(item.text, item.reference, config),
        copied_from_source(item.text, item.contexts, config),
        unsupported_reference(item.reference, item.contexts, config),
        context_not_found(item.contexts, chunking),
        length(item.text, config),
    ]
    return [f for f in found if f is not None]


# duplicates -----------------------------------------------------------------------------------


def duplicate_text(text: str) -> str:
    """What duplicate scoring compares: the question's content words (stemmed, stop words and
    repeats dropped), so "How do I get the next page of orders?" and "next page orders" meet."""
    return " ".join(content_words(text))


def _numbers(text: str) -> frozenset[str]:
    return frozenset(w for w in text.split() if _DIGIT.search(w))


def similarity(a: str, b: str) -> float:
    """0-100 between two ``duplicate_text``s: the mean of rapidfuzz's token_sort_ratio (the
    whole word sets compared, order ignored) and token_set_ratio (one set inside the other
    scores high), and 0 when both hold numbers and not the same ones ("P1" is not "P2",
    "30 days" is not "14 days")."""
    from rapidfuzz import fuzz

    numbers_a, numbers_b = _numbers(a), _numbers(b)
    if numbers_a and numbers_b and numbers_a != numbers_b:
        return 0.0
    return (fuzz.token_sort_ratio(a, b) + fuzz.token_set_ratio(a, b)) / 2


def _scored(query: str, candidates: list[str], threshold: float) -> list[float | None]:
    """``similarity`` of the query with each candidate, None below the threshold; in bulk.

    token_set_ratio is never below token_sort_ratio, so a mean at or above the threshold needs
    token_set_ratio at or above it: one vectorised pass prunes, the second scores the rest.
    """
    from rapidfuzz import fuzz, process

    sets = process.cdist([query], candidates, scorer=fuzz.token_set_ratio, score_cutoff=threshold)[
        0
    ]
    out: list[float | None] = [None] * len(candidates)
    for j in sets.nonzero()[0]:
        score = similarity(query, candidates[j])
        if score >= threshold:
            out[j] = score
    return out


def duplicate_pairs(
    texts: Mapping[str, str], *, threshold: float, block_keys: int = BLOCK_KEYS
) -> list[tuple[str, str, float]]:
    """Near-duplicate pairs ``(a, b, score)`` with ``a < b``, scored among blocked candidates.

    Each question's candidates are the questions holding one of its ``block_keys`` rarest
    content words (rarest over all ``texts``); near-duplicates share most content words, their
    rare ones in particular, so this finds what scoring all pairs would, at a fraction of the
    cost (measured in docs/review.md). The work is grouped by key word: the questions that
    chose a word are scored against every question holding it in one vectorised call.
    """
    import numpy as np
    from rapidfuzz import fuzz, process

    ids = list(texts)
    flat = np.array([duplicate_text(texts[i]) for i in ids], dtype=object)
    tokens = [set(t.split()) for t in flat]
    postings: dict[str, list[int]] = defaultdict(list)
    for index, vocabulary in enumerate(tokens):
        for token in vocabulary:
            postings[token].append(index)
    chosen: dict[str, list[int]] = defaultdict(list)
    for index, vocabulary in enumerate(tokens):
        for key in sorted(vocabulary, key=lambda t: (len(postings[t]), t))[:block_keys]:
            chosen[key].append(index)
    found: dict[tuple[int, int], float] = {}
    for key, queries in chosen.items():
        holders = postings[key]
        if len(holders) < 2:
            continue
        # token_set_ratio is never below the mean ``similarity`` takes, so it prunes exactly.
        scores = process.cdist(
            flat[queries],
            flat[holders],
            scorer=fuzz.token_set_ratio,
            score_cutoff=threshold,
            dtype=np.uint8,
        )
        for row, column in zip(*scores.nonzero(), strict=True):
            i, j = queries[row], holders[column]
            pair = (i, j) if i < j else (j, i)
            if i == j or pair in found:
                continue
            score = similarity(flat[i], flat[j])
            if score >= threshold:
                found[pair] = score
    return sorted((*sorted((ids[i], ids[j])), round(score, 1)) for (i, j), score in found.items())


def duplicates_of(
    question_id: str, texts: Mapping[str, str], *, threshold: float
) -> list[tuple[str, str, float]]:
    """The near-duplicate pairs of one question against every other text: one question at a
    time, comparing with all is cheap (rapidfuzz scores 50,000 texts in milliseconds)."""
    others = [i for i in texts if i != question_id]
    scores = _scored(
        duplicate_text(texts[question_id]), [duplicate_text(texts[i]) for i in others], threshold
    )
    return sorted(
        (*sorted((question_id, other)), round(score, 1))
        for other, score in zip(others, scores, strict=True)
        if score is not None
    )


def clusters(pairs: Iterable[tuple[str, str, float]]) -> dict[str, tuple[str, ...]]:
    """Connected components of the pairs: each member mapped to its cluster, sorted by id."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[str, list[str]] = defaultdict(list)
    for x in list(parent):
        members[root(x)].append(x)
    return {x: tuple(sorted(group)) for group in members.values() for x in group}


def duplicate_flag(question_id: str, cluster: Sequence[str], scores: Mapping[str, float]) -> Flag:
    """The flag of one member of a cluster; ``scores`` are its own pairs' scores."""
    others = tuple(c for c in cluster if c != question_id)
    if scores:
        best = max(scores.values())
        closest = f"; closest {max(scores, key=scores.__getitem__)} ({best:.0f}/100)"
    else:
        closest = ""
    return Flag(
        "duplicate",
        f"near-duplicate of {_plural(len(others), 'other question')}{closest}",
        others,
    )


def flag_all(
    items: Sequence[FlagInput],
    config: FlagConfig,
    *,
    chunking: str,
    others: Mapping[str, str] | None = None,
) -> dict[str, list[Flag]]:
    """Every flag of every item; ``others`` are more questions (human ones) to find
    duplicates among, which get no flags themselves."""
    flags = {item.id: question_flags(item, config, chunking=chunking) for item in items}
    texts = {**(others or {}), **{item.id: item.text for item in items}}
    pairs = duplicate_pairs(texts, threshold=config.duplicate_threshold)
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for a, b, score in pairs:
        scores[a][b] = score
        scores[b][a] = score
    for question_id, cluster in clusters(pairs).items():
        if question_id in flags:
            flags[question_id].insert(0, duplicate_flag(question_id, cluster, scores[question_id]))
    return flags


__all__ = [
    "BLOCK_KEYS",
    "FLAG_NAMES",
    "FLAG_TITLES",
    "STOP_WORDS",
    "Context",
    "Flag",
    "FlagConfig",
    "FlagInput",
    "answer_leak",
    "clusters",
    "content_words",
    "context_not_found",
    "copied_from_source",
    "duplicate_flag",
    "duplicate_pairs",
    "duplicate_text",
    "duplicates_of",
    "flag_all",
    "length",
    "normalise",
    "question_flags",
    "similarity",
    "stem",
    "unsupported_reference",
    "words",
]
