"""Import a Ragas test set: CSV, JSON or JSONL, as Ragas writes them.

Accepted columns: ``user_input`` (or the older ``question``), ``reference`` (or ``ground_truth``,
or the oldest ``ground_truths`` list), ``reference_contexts`` (or ``contexts``),
``reference_context_ids`` when present, ``synthesizer_name`` (or ``evolution_type``), and an
``id`` if the file has one. Lists may be JSON lists or, as in Ragas' CSVs, Python literals.
Rows of an annotated test set (``{"eval_sample": {...}, "synthesizer_name": ...}``) are read
too. Multi-turn samples (``user_input`` a list of messages) have no single question and are
skipped and counted.

Questions come in as generated and awaiting review, with generator ``ragas``, Ragas'
``synthesizer_name`` (spelling kept; the older ``evolution_type`` otherwise) as their
synthesizer, and ``persona_name``, ``query_style`` and ``query_length`` kept for the review;
their contexts are matched to chunks (see ``labeler.importers.contexts``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.generated import (
    GeneratedImport,
    GeneratedQuestion,
    stable_id,
    write_generated,
)
from labeler.readers import as_id, as_ids, as_text, as_texts, check_file, first_of, iter_items
from labeler.store import Store

QUESTION_FIELDS = ("user_input", "question")
REFERENCE_FIELDS = ("reference", "ground_truth")
CONTEXT_FIELDS = ("reference_contexts", "contexts")
ID_PREFIX = "ragas"
GENERATOR = "ragas"
# Kept with the question for the review: how Ragas generated it (v0.3.9 on).
METADATA_FIELDS = ("query_style", "query_length")


def _is_multi_turn(value: object) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, str) and value.lstrip().startswith("[{"):
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return False
        return isinstance(parsed, list) and all(isinstance(m, dict) for m in parsed)
    return False


def _flatten(record: dict) -> dict:
    sample = record.get("eval_sample")
    if isinstance(sample, dict):
        return {**sample, **{k: v for k, v in record.items() if k != "eval_sample"}}
    return record


def read_ragas(path: Path, skipped: list[int]) -> Iterator[GeneratedQuestion]:
    """The questions of a Ragas file; multi-turn samples are counted in ``skipped[0]``."""
    for line, raw in iter_items(path, list_keys=("samples", "testset")):
        record = _flatten(raw)
        field, question = first_of(record, QUESTION_FIELDS)
        if field is None:
            msg = "no question (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
            raise LabelerError(msg, path=path, line=line, field="user_input")
        if _is_multi_turn(question):
            skipped[0] += 1
            continue
        text = as_text(question, path=path, line=line, field=field).strip()
        field, reference = first_of(record, REFERENCE_FIELDS)
        if field is not None:
            reference = as_text(reference, path=path, line=line, field=field).strip()
        elif record.get("ground_truths"):
            answers = as_texts(record["ground_truths"], path=path, line=line, field="ground_truths")
            reference = answers[0].strip() if answers else None
        field, contexts = first_of(record, CONTEXT_FIELDS)
        contexts = as_texts(contexts, path=path, line=line, field=field or CONTEXT_FIELDS[0])
        ids = as_ids(
            record.get("reference_context_ids"),
            path=path,
            line=line,
            field="reference_context_ids",
        )
        id_field, given_id = first_of(record, ("id", "question_id"))
        question_id = (
            as_id(given_id, path=path, line=line, field=id_field)
            if id_field is not None
            else stable_id(ID_PREFIX, text)
        )
        where = {"path": path, "line": line}
        synthesizer_field, synthesizer = first_of(record, ("synthesizer_name", "evolution_type"))
        synthesizer = as_text(synthesizer, **where, field=synthesizer_field, optional=True)
        _, persona = first_of(record, ("persona_name",))
        persona = as_text(persona, **where, field="persona_name", optional=True)
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=text,
            reference=reference or None,
            generator=GENERATOR,
            contexts=tuple(contexts),
            context_ids=tuple(ids),
            synthesizer=synthesizer,
            persona=persona,
            metadata={k: record[k] for k in METADATA_FIELDS if record.get(k) not in (None, "")},
        )


def import_ragas(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    tags: tuple[str, ...] = (),
) -> GeneratedImport:
    """A Ragas test set as generated questions awaiting review, contexts matched to chunks."""
    path = check_file(path)
    skipped = [0]
    questions = list(read_ragas(path, skipped))
    return write_generated(
        store, path, questions, kind="ragas", chunking=chunking, tags=tags, multi_turn=skipped[0]
    )


__all__ = ["import_ragas", "read_ragas"]
