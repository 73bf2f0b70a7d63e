"""Ragas annotated judge decisions: ``{metric: [sample, ...]}``, as Ragas' app exports them for
aligning a metric with people (``MetricAnnotation``).

Each sample is an item (its ``metric_input``: ``user_input``, ``response``,
``retrieved_contexts``) with two ratings:

- the judge's: ``metric_output``, with the reason of its prompt's ``prompt_output`` (when the
  metric has one prompt); rater ``--judge``, default ``ragas``. The sample's ``prompts`` are
  kept, so ``labeler judge export --to ragas-annotated`` gives them back;
- the person's, as Ragas itself reads it when it aligns a metric: ``target`` when given; else
  ``metric_output`` when ``is_accepted`` (they accepted the judge's verdict), its opposite for a
  rejected verdict on a binary metric; a rejected verdict on a score metric says only that the
  score was wrong, so it is skipped and counted. The reason of an ``edited_output`` (their own
  wording) is their rationale. Rater ``--reviewer``, default ``ragas-annotator``.

A metric whose outputs are all 0 or 1 is binary; otherwise it is a score. The same input may
be annotated more than once under one metric (Ragas' own sample file does it): each repeat is
an item of its own, its key the first's plus ``#2``, ``#3``..., so nothing is lost and a second
import finds the same items.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.judge.records import Item, JudgeFile, MetricHint, Rating, ReadOptions, answer_key
from labeler.readers import as_bool, as_score, as_texts, iter_items, json_file

DEFAULT_JUDGE = "ragas"
DEFAULT_REVIEWER = "ragas-annotator"


def looks_annotated(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(s, dict) and "metric_output" in s for s in value)
    )


def _reason(output: object) -> str | None:
    if isinstance(output, dict) and isinstance(output.get("reason"), str):
        return output["reason"].strip() or None
    return None


def _rows(path: Path, document: dict, options: ReadOptions, result: JudgeFile) -> Iterator[Rating]:
    judge = options.judge or DEFAULT_JUDGE
    person = options.reviewer or DEFAULT_REVIEWER
    for metric, samples in document.items():
        repeats: dict[str, int] = {}
        outputs = [s.get("metric_output") for s in samples if isinstance(s, dict)]
        binary = all(o in (0, 1) for o in outputs)
        result.hints[metric] = MetricHint(scale="binary" if binary else "score")
        for line, sample in iter_items(path, list_keys=(metric,)):
            inputs = sample.get("metric_input")
            if not isinstance(inputs, dict):
                msg = "expected an object"
                raise LabelerError(msg, path=path, line=line, field="metric_input")
            question = inputs.get("user_input")
            if not isinstance(question, str):
                result.skip("samples without a single-turn user_input")
                continue
            answer = inputs.get("response")
            answer = answer if isinstance(answer, str) else None
            contexts = inputs.get("retrieved_contexts")
            contexts = (
                None
                if contexts is None
                else tuple(as_texts(contexts, path=path, line=line, field="retrieved_contexts"))
            )
            key = answer_key(question, answer, contexts)
            repeats[key] = repeats.get(key, 0) + 1
            if repeats[key] > 1:
                key = f"{key}#{repeats[key]}"
            item = Item(key, question, answer, contexts)
            output = as_score(
                sample.get("metric_output"), path=path, line=line, field="metric_output"
            )
            prompts = sample.get("prompts") or {}
            if not isinstance(prompts, dict):
                msg = "expected an object of prompts"
                raise LabelerError(msg, path=path, line=line, field="prompts")
            single = next(iter(prompts.values())) if len(prompts) == 1 else None
            single = single if isinstance(single, dict) else None
            yield Rating(
                line=line,
                item=item,
                metric=metric,
                rater=judge,
                kind="model",
                value=output,
                rationale=_reason(single.get("prompt_output")) if single else None,
                extra={"metric_input": inputs, "prompts": prompts},
            )
            if sample.get("is_accepted") is None:
                raise LabelerError("missing", path=path, line=line, field="is_accepted")
            accepted = as_bool(sample["is_accepted"], path=path, line=line, field="is_accepted")
            target = sample.get("target")
            if target is not None:
                verdict = as_score(target, path=path, line=line, field="target")
            elif accepted:
                verdict = output
            elif binary:
                verdict = 1.0 - output
            else:
                result.skip("rejected scores without a target (the right score is unknown)")
                continue
            yield Rating(
                line=line,
                item=item,
                metric=metric,
                rater=person,
                kind="human",
                value=verdict,
                rationale=_reason(single.get("edited_output")) if single else None,
            )


def read(path: Path, options: ReadOptions) -> JudgeFile:
    document = json_file(path)
    if not isinstance(document, dict) or not all(looks_annotated(v) for v in document.values()):
        msg = "expected an object of metric names, each a list of annotated samples"
        raise LabelerError(msg, path=path, line=1)
    result = JudgeFile(rows=iter(()))
    result.rows = _rows(path, document, options, result)
    return result


__all__ = ["DEFAULT_JUDGE", "DEFAULT_REVIEWER", "looks_annotated", "read"]
