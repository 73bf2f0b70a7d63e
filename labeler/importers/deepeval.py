"""Import DeepEval goldens: JSON (a list, as ``save_as("json")`` writes it), JSONL, or CSV
with list columns joined by ``|`` (as ``save_as("csv")`` writes them).

Read: ``input`` (the question), ``expected_output`` (the reference answer), ``context`` (the
ground-truth contexts the golden was generated from; ``retrieval_context`` is what some system
retrieved, so it is not used), ``additional_metadata`` (``evolutions`` become the
synthesizer; a ``question_id`` and ``chunk_ids``, as our own DeepEval export writes them, give
the question's id and match contexts by id). camelCase names (``expectedOutput``,
``additionalMetadata``) are accepted too.

Questions come in as generated and awaiting review, with generator ``deepeval``, the
evolutions the synthesizer recorded as their synthesizer (``Reasoning+Multi-context``), and
``additional_metadata`` kept for the review; their contexts are matched to chunks (see
``labeler.importers.contexts``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.generated import (
    GeneratedImport,
    GeneratedQuestion,
    stable_id,
    write_generated,
)
from labeler.readers import (
    as_id,
    as_ids,
    as_object,
    as_text,
    as_texts,
    check_file,
    first_of,
    iter_items,
    require,
)
from labeler.store import Store

ID_PREFIX = "deepeval"
GENERATOR = "deepeval"
CSV_SEPARATOR = "|"


def _synthesizer(metadata: dict) -> str | None:
    """The evolutions DeepEval's synthesizer applied, "Reasoning+Multi-context"."""
    evolutions = metadata.get("evolutions")
    if isinstance(evolutions, str):
        evolutions = [evolutions]
    if isinstance(evolutions, list) and evolutions:
        return "+".join(str(e) for e in evolutions)
    return None


def read_deepeval(path: Path) -> Iterator[GeneratedQuestion]:
    separator = CSV_SEPARATOR if path.suffix.lower() == ".csv" else None
    for line, record in iter_items(path, list_keys=("goldens", "test_cases")):
        text = as_text(
            require(record, "input", path=path, line=line), path=path, line=line, field="input"
        ).strip()
        field, expected = first_of(record, ("expected_output", "expectedOutput"))
        reference = as_text(expected, path=path, line=line, field=field).strip() if field else None
        contexts = as_texts(
            record.get("context"), path=path, line=line, field="context", separator=separator
        )
        meta_field, raw_metadata = first_of(record, ("additional_metadata", "additionalMetadata"))
        metadata = as_object(raw_metadata, path=path, line=line, field=meta_field)
        chunk_ids = metadata.get("chunk_ids")
        if chunk_ids is not None and not isinstance(chunk_ids, list):
            msg = "expected a list of chunk ids"
            raise LabelerError(msg, path=path, line=line, field=f"{meta_field}.chunk_ids")
        ids = as_ids(chunk_ids, path=path, line=line, field=f"{meta_field}.chunk_ids")
        id_field, given = (
            (f"{meta_field}.question_id", metadata["question_id"])
            if metadata.get("question_id") not in (None, "")
            else first_of(record, ("id",))
        )
        question_id = (
            as_id(given, path=path, line=line, field=id_field)
            if id_field is not None
            else stable_id(ID_PREFIX, text)
        )
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=text,
            reference=reference or None,
            generator=GENERATOR,
            contexts=tuple(contexts),
            context_ids=tuple(ids),
            synthesizer=_synthesizer(metadata),
            persona=str(metadata["persona"]) if metadata.get("persona") else None,
            metadata=metadata,
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
