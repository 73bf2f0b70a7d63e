"""The prompts ``labeler judge run`` sends: versioned templates shipped in this package, one per
metric it can judge, or the user's own (``--prompt FILE``).

A template is plain text with placeholders in double braces (``{{question}}``,
``{{passage}}``...), filled in one pass, so a chunk that happens to contain ``{{passage}}`` is
sent as written and never filled again. Its hash (SHA-256 of the template's text) is part of
the judge's name and of every cached call's key: editing a prompt makes a new judge, never
a silent change to an old one's ratings.

The built-in relevance prompt is our own, in the spirit of the 0/1/2 prompt of Thomas, Spielman,
Craswell and Mitra ("Large language models can accurately predict searcher preferences",
2023): the scale with what each grade means, the searcher's likely intent first, the content
judged rather than shared words. Unlike theirs it asks for one JSON object with a grade and a
short reason, which ``labeler.judge.answers`` parses strictly.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from labeler.errors import LabelerError
from labeler.judge.metrics import normalise
from labeler.readers import check_file

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")


@dataclass(frozen=True, slots=True)
class PromptKind:
    """What a metric's prompt is filled with and what answer it asks for."""

    metric: str  # the metric's usual name (a stored metric may spell it otherwise)
    rates: str  # "chunk": a question's chunk; "answer": an answer with its passages
    fields: tuple[str, ...]  # the placeholders a template must hold
    grades: tuple[int, ...]  # the grades the answer may give
    scale: str  # the scale of a metric first stored by a run
    builtin: str  # the shipped template's name, which is its version


KINDS: dict[str, PromptKind] = {
    kind.metric: kind
    for kind in (
        PromptKind(
            "relevance", "chunk", ("question", "passage"), (0, 1, 2), "ordinal:0-2", "relevance-v1"
        ),
        PromptKind(
            "faithfulness",
            "answer",
            ("question", "answer", "contexts"),
            (0, 1),
            "binary",
            "faithfulness-v1",
        ),
    )
}


@dataclass(frozen=True, slots=True)
class Prompt:
    kind: PromptKind
    version: str  # the built-in template's name ("relevance-v1"), or "custom"
    text: str
    hash: str  # SHA-256 of ``text``, hex
    source: str  # "built-in" or the file it was read from

    @property
    def short_hash(self) -> str:
        return self.hash[:8]

    def render(self, values: dict[str, str]) -> str:
        """The template with every placeholder filled in one pass."""
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], self.text)


def prompt_kind(metric: str) -> PromptKind:
    """The kind of prompt of ``metric`` (``Faithfulness`` and ``faithfulness`` alike)."""
    kind = KINDS.get(normalise(metric))
    if kind is None:
        msg = f"a judge run rates {' or '.join(KINDS)}, not {metric!r}"
        raise LabelerError(msg, field="metric")
    return kind


def _prompt(kind: PromptKind, text: str, version: str, source: str) -> Prompt:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Prompt(kind, version, text, digest, source)


def builtin_prompt(metric: str) -> Prompt:
    kind = prompt_kind(metric)
    text = resources.files(__name__).joinpath(f"{kind.builtin}.txt").read_text(encoding="utf-8")
    return _prompt(kind, text, kind.builtin, "built-in")


def read_prompt(path: str | Path, metric: str) -> Prompt:
    """A user's template for ``metric``: UTF-8 text holding each of the metric's placeholders
    and no other (a misspelt one names its line)."""
    kind = prompt_kind(metric)
    path = check_file(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        msg = f"not UTF-8 text ({error.reason} at byte {error.start})"
        raise LabelerError(msg, path=path) from None
    found: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        for match in PLACEHOLDER.finditer(line):
            if match.group(1) not in kind.fields:
                msg = (
                    f"unknown placeholder {match.group(0)}: a {kind.metric} prompt has"
                    f" {', '.join('{{' + f + '}}' for f in kind.fields)}"
                )
                raise LabelerError(msg, path=path, line=number, field="prompt")
            found.add(match.group(1))
    missing = [f for f in kind.fields if f not in found]
    if missing:
        msg = f"the prompt lacks {', '.join('{{' + f + '}}' for f in missing)}"
        raise LabelerError(msg, path=path, field="prompt")
    return _prompt(kind, text, "custom", str(path))


def contexts_text(contexts: list[str] | tuple[str, ...]) -> str:
    """An answer's passages as the faithfulness prompt shows them: numbered, one per block."""
    return "\n\n".join(f"[{i}] {text}" for i, text in enumerate(contexts, start=1))


__all__ = [
    "KINDS",
    "Prompt",
    "PromptKind",
    "builtin_prompt",
    "contexts_text",
    "prompt_kind",
    "read_prompt",
]
