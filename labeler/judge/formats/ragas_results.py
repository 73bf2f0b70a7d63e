"""Ragas evaluation results: one evaluated sample per row, one column per metric, as
``EvaluationResult.to_pandas()`` writes them (CSV, JSONL or a JSON array).

The sample's fields (``user_input``, ``response``, ``retrieved_contexts``, ``reference``, ...;
the older ``question``, ``answer``, ``contexts``, ``ground_truth``) describe the item; every other
column whose first filled value is a number is a metric (``faithfulness``,
``answer_relevancy``, ``context_precision``, ...), judged by the rater ``--judge`` (default
``ragas``). Ragas' metrics are scores from 0 to 1. A column named after a metric the tool
knows (``labeler.judge.metrics``), or one already stored, is a metric whatever it holds: one
value outside its scale (a faithfulness of 1.02) refuses the file, naming the line, the column
and the value. Any other numeric column with a value outside 0 to 1 (a ``response_time`` a
team added) is not a metric, and is left out and reported, unless ``--metric-scale`` declares
it. An empty or NaN score (Ragas writes NaN when a metric failed) is skipped and counted; any
other value in a metric column that is not a number is an error.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError, shown
from labeler.judge.metrics import known_metric
from labeler.judge.records import Item, JudgeFile, MetricHint, Rating, ReadOptions, answer_key
from labeler.readers import as_text, as_texts, first_of, iter_items

DEFAULT_JUDGE = "ragas"
QUESTION_FIELDS = ("user_input", "question")
ANSWER_FIELDS = ("response", "answer")
CONTEXT_FIELDS = ("retrieved_contexts", "contexts")
SAMPLE_FIELDS = frozenset(
    {
        *QUESTION_FIELDS,
        *ANSWER_FIELDS,
        *CONTEXT_FIELDS,
        "reference_contexts",
        "retrieved_context_ids",
        "reference_context_ids",
        "multi_responses",
        "reference",
        "rubrics",
        "rubric",
        "persona_name",
        "query_style",
        "query_length",
        "synthesizer_name",
        "ground_truth",
        "ground_truths",
        "evolution_type",
        "metadata",
        "episode_done",
        "id",
        "question_id",
        "",
        "Unnamed: 0",
        "index",
    }
)


def looks_ragas(record: dict) -> bool:
    return any(name in record for name in QUESTION_FIELDS)


def _number(value: object) -> float | None:
    """A score, NaN for an empty or failed one, None for something that is not a number."""
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "" or text.lower() == "nan":
            return math.nan
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _rows(path: Path, options: ReadOptions, result: JudgeFile) -> Iterator[Rating]:
    metrics: list[str] | None = None
    undecided: set[str] = set()
    rater = options.judge or DEFAULT_JUDGE
    for line, record in iter_items(path, list_keys=("samples", "results")):
        field, question = first_of(record, QUESTION_FIELDS)
        if field is None:
            msg = "no question (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
            raise LabelerError(msg, path=path, line=line, field="user_input")
        if isinstance(question, list):
            result.skip("multi-turn samples (no single question)")
            continue
        question = as_text(question, path=path, line=line, field=field)
        field, answer = first_of(record, ANSWER_FIELDS)
        answer = None if field is None else as_text(answer, path=path, line=line, field=field)
        field, contexts = first_of(record, CONTEXT_FIELDS)
        contexts = (
            None if field is None else tuple(as_texts(contexts, path=path, line=line, field=field))
        )
        if metrics is None:
            metrics = [name for name in record if name not in SAMPLE_FIELDS]
            undecided = set(metrics)
        item = Item(answer_key(question, answer, contexts), question, answer, contexts)
        for name in metrics:
            value = _number(record.get(name))
            if name in undecided:
                if value is None:
                    metrics = [m for m in metrics if m != name]  # a text column, not a metric
                    undecided.discard(name)
                    continue
                if not math.isnan(value):
                    undecided.discard(name)
            if value is None:
                msg = f"expected a score, got {shown(record.get(name))}"
                raise LabelerError(msg, path=path, line=line, field=name)
            if math.isnan(value):
                result.skip("empty or NaN scores")
                continue
            if name not in result.hints:
                result.hints[name] = MetricHint(scale="score")
                result.value_fields[name] = name
                if known_metric(name) is None:
                    result.tentative.add(name)
            yield Rating(line=line, item=item, metric=name, rater=rater, kind="model", value=value)


def read(path: Path, options: ReadOptions) -> JudgeFile:
    result = JudgeFile(rows=iter(()))
    result.rows = _rows(path, options, result)
    return result


__all__ = ["DEFAULT_JUDGE", "SAMPLE_FIELDS", "looks_ragas", "read"]
