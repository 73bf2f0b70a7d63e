"""A DeepEval test run (the JSON DeepEval saves for a run, ``testCases[]``).

Each test case is an item (its ``input``, ``actualOutput`` and ``retrievalContext``); each entry
of the test case's own ``metricsData`` (``metricsMetadata`` in older versions) is one rating by
its ``evaluationModel``: the ``score``, DeepEval's own ``success`` as the pass/fail, the
``reason`` as the rationale. The copies of those metrics in the test case's ``trace`` (and the
span metrics there) are not read: they judge the spans, not the test case. Metrics that failed
to run (``error``, or no score) and conversational test cases are skipped and counted.

The file's ``threshold`` of a metric becomes the metric's threshold (unless ``--threshold``
states another). Which way passes is read from ``success``: a metric where every decided
score passes at or below its threshold (DeepEval's Hallucination, Bias, Toxicity) passes at
``<=``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.judge.records import Item, JudgeFile, MetricHint, Rating, ReadOptions, answer_key
from labeler.readers import as_score, first_of, iter_items, json_file

DEFAULT_JUDGE = "deepeval"


def _contexts(value: object, *, path: Path, line: int) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        msg = f"expected a list, got {type(value).__name__}"
        raise LabelerError(msg, path=path, line=line, field="retrievalContext")
    texts = []
    for entry in value:
        if isinstance(entry, dict):  # RetrievedContextData of DeepEval 4
            entry = entry.get("context")
        if not isinstance(entry, str):
            msg = "expected a list of texts"
            raise LabelerError(msg, path=path, line=line, field="retrievalContext")
        texts.append(entry)
    return tuple(texts)


class _Directions:
    """Which way each metric passes, from the scores DeepEval decided."""

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {}

    def add(self, metric: str, score: float, threshold: float, success: bool) -> None:
        fits = set()
        if (score >= threshold) == success:
            fits.add(">=")
        if (score <= threshold) == success:
            fits.add("<=")
        previous = self.seen.get(metric)
        self.seen[metric] = fits if previous is None else previous & fits

    def of(self, metric: str) -> str | None:
        fits = self.seen.get(metric, set())
        if fits == {"<="}:
            return "<="
        return ">=" if ">=" in fits else None


def _rows(path: Path, options: ReadOptions, result: JudgeFile) -> Iterator[Rating]:
    directions = _Directions()
    for line, case in iter_items(path, list_keys=("testCases", "test_cases")):
        if not isinstance(case, dict) or "input" not in case:
            msg = "expected a test case with an input"
            raise LabelerError(msg, path=path, line=line, field="testCases")
        question = case.get("input")
        if not isinstance(question, str):
            msg = f"expected text, got {type(question).__name__}"
            raise LabelerError(msg, path=path, line=line, field="input")
        _, answer = first_of(case, ("actualOutput", "actual_output"))
        if answer is not None and not isinstance(answer, str):
            msg = f"expected text, got {type(answer).__name__}"
            raise LabelerError(msg, path=path, line=line, field="actualOutput")
        _, raw_contexts = first_of(case, ("retrievalContext", "retrieval_context"))
        contexts = _contexts(raw_contexts, path=path, line=line)
        item = Item(
            key=answer_key(question, answer, contexts),
            question=question,
            answer=answer,
            contexts=contexts,
        )
        field, metrics = first_of(case, ("metricsData", "metrics_data", "metricsMetadata"))
        if metrics is None:
            result.skip("test cases without metricsData")
            continue
        if not isinstance(metrics, list):
            msg = f"expected a list, got {type(metrics).__name__}"
            raise LabelerError(msg, path=path, line=line, field=field)
        for entry in metrics:
            if not isinstance(entry, dict):
                msg = "expected a list of metric results"
                raise LabelerError(msg, path=path, line=line, field=field)
            _, name = first_of(entry, ("name", "metric"))
            if not isinstance(name, str) or not name.strip():
                raise LabelerError("missing or empty", path=path, line=line, field="name")
            if entry.get("error") or entry.get("score") is None:
                result.skip("metric results with an error or no score")
                continue
            score = as_score(entry["score"], path=path, line=line, field="score")
            threshold = entry.get("threshold")
            success = entry.get("success")
            hint = result.hints.setdefault(name, MetricHint(scale="score"))
            result.value_fields.setdefault(name.strip(), "score")
            if threshold is not None:
                threshold = as_score(threshold, path=path, line=line, field="threshold")
                if hint.threshold is None:
                    hint.threshold = threshold
                if isinstance(success, bool):
                    directions.add(name, score, threshold, success)
            reason = entry.get("reason")
            yield Rating(
                line=line,
                item=item,
                metric=name.strip(),
                rater=options.judge or entry.get("evaluationModel") or DEFAULT_JUDGE,
                kind="model",
                value=score,
                passed=success if isinstance(success, bool) else None,
                rationale=reason if isinstance(reason, str) and reason.strip() else None,
            )
    for name, hint in result.hints.items():
        hint.pass_when = directions.of(name)


def read(path: Path, options: ReadOptions) -> JudgeFile:
    document = json_file(path)
    result = JudgeFile(rows=iter(()))
    if isinstance(document, dict):
        for _ in document.get("conversationalTestCases") or ():
            result.skip("conversational test cases (no single answer to rate)")
    result.rows = _rows(path, options, result)
    return result


__all__ = ["DEFAULT_JUDGE", "read"]
