"""Import DeepEval goldens: JSON (a list, as ``save_as("json")`` writes it), JSONL, or CSV
with list columns joined by ``|`` (as ``save_as("csv")`` writes them).

Read: ``input`` (the question), ``expected_output`` (the reference answer), ``context`` (the
ground-truth contexts the golden was generated from; ``retrieval_context`` is what some system
retrieved, so it is not used), ``additional_metadata`` (``evolutions`` become part of the
generator; a ``question_id`` and ``chunk_ids``, as our own DeepEval export writes them, give
the question's id and match contexts by id). camelCase names (``expectedOutput``,
``additionalMetadata``) are accepted too.

Questions come in as generated and awaiting review, with generator ``deepeval`` (plus
``:<evolution>+...`` when the synthesizer recorded them); their contexts are matched to chunks
(see ``labeler.importers.matching``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.matching import (
    GeneratedImport,
    GeneratedQuestion,
    iter_items,
    parse_list,
    stable_id,
    write_generated,
)
from labeler.readers import as_text, check_file, first_of, require
from labeler.store import Store

ID_PREFIX = "deepeval"
CSV_SEPARATOR = "|"


def _metadata(value: object, *, path: Path, line: int) -> dict:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            try:
                value = ast.literal_eval(value.strip())
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                msg = "expected an object (as JSON or a Python literal) and could not read it"
                raise LabelerError(msg, path=path, line=line, field="additional_metadata") from None
    if not isinstance(value, dict):
        msg = f"expected an object, got {type(value).__name__}"
        raise LabelerError(msg, path=path, line=line, field="additional_metadata")
    return value


def _generator(metadata: dict) -> str:
    evolutions = metadata.get("evolutions")
    if isinstance(evolutions, str):
        evolutions = [evolutions]
    if isinstance(evolutions, list) and evolutions:
        return "deepeval:" + "+".join(str(e) for e in evolutions)
    return "deepeval"


def read_deepeval(path: Path) -> Iterator[GeneratedQuestion]:
    separator = CSV_SEPARATOR if path.suffix.lower() == ".csv" else None
    for line, record in iter_items(path, list_keys=("goldens", "test_cases")):
        text = as_text(
            require(record, "input", path=path, line=line), path=path, line=line, field="input"
        ).strip()
        field, expected = first_of(record, ("expected_output", "expectedOutput"))
        reference = as_text(expected, path=path, line=line, field=field).strip() if field else None
        contexts = parse_list(
            record.get("context"), path=path, line=line, field="context", separator=separator
        )
        _, raw_metadata = first_of(record, ("additional_metadata", "additionalMetadata"))
        metadata = _metadata(raw_metadata, path=path, line=line)
        ids = metadata.get("chunk_ids") or []
        if not isinstance(ids, list):
            ids = []
        given = metadata.get("question_id") or record.get("id")
        question_id = (
            as_text(given, path=path, line=line, field="question_id").strip()
            if given not in (None, "")
            else stable_id(ID_PREFIX, text)
        )
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=text,
            reference=reference or None,
            generator=_generator(metadata),
            contexts=tuple(contexts),
            context_ids=tuple(str(i) for i in ids),
        )


def import_deepeval(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    tags: tuple[str, ...] = (),
) -> GeneratedImport:
    """DeepEval goldens as generated questions awaiting review, contexts matched to chunks."""
    path = check_file(path)
    questions = list(read_deepeval(path))
    return write_generated(store, path, questions, kind="deepeval", chunking=chunking, tags=tags)


__all__ = ["import_deepeval", "read_deepeval"]
