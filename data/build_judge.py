"""The judge part of the demo: data/demo/judge/, built from data/demo_source/judge.py.

Called once from build_demo.py's build(), with what it already computed (questions, ground
truth, runs, chunks); standard library only and deterministic, like the rest of the demo.

Writes:
- relevance.jsonl: the judge's relevance grades in the long format (one row per question and
  chunk of the pools it rated), each with a rationale;
- faithfulness_deepeval.json: a DeepEval test run of 24 answers judged for Faithfulness;
- faithfulness_reviews.jsonl: maria's and tom's pass/fail verdicts on those answers, in the
  long format (no item id: the answer itself names the item, as in the DeepEval file);
- notes.jsonl: maria's and tom's notes on the chunks they graded differently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

FIRST_SENTENCE = re.compile(r"^(.{20,200}?[.!?])(\s|$)", re.S)


def _sentence(text: str) -> str:
    """The chunk's first sentence after its headings, shortened for a rationale."""
    body = " ".join(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )
    body = body.lstrip("- ")
    match = FIRST_SENTENCE.match(body)
    sentence = match.group(1) if match else body[:180]
    return sentence if len(sentence) <= 200 else sentence[:197] + "..."


def _section(chunk: dict) -> str:
    return chunk.get("title") or chunk["doc_id"]


def rationale(grade: int, chunk: dict) -> str:
    if grade == 2:
        return f'**Relevant (2).** The passage answers the question: "{_sentence(chunk["text"])}"'
    if grade == 1:
        return (
            "**Partly relevant (1).** It helps with part of the question:"
            f' "{_sentence(chunk["text"])}"'
        )
    return (
        f"**Not relevant (0).** The passage is about {_section(chunk)}, which is not what the"
        " question asks."
    )


def _pool(qid: str, runs: dict, truth: dict, depth: int) -> set[str]:
    pool: set[str] = set()
    for run in runs.values():
        pool.update(c for c, _ in run[qid][:depth])
    pool.update(truth[qid])
    return pool


def build_judge(
    out: Path,
    *,
    source: ModuleType,
    questions: list[dict],
    truth: dict,
    runs: dict,
    chunks: list[dict],
    documents: dict,
    chunks_by_doc: dict,
    label_plan: dict,
    resolve_quote: Callable,
    chunk_sort_key: Callable,
    pool_depth: int,
    write_text: Callable,
    error: type[Exception],
) -> dict:
    """Write data/demo/judge/ and return figures for the summary."""
    by_id = {c["id"]: c for c in chunks}
    texts = {q["id"]: q["question"] for q in questions}
    judged = sorted(set(label_plan) | set(source.EXTRA_RELEVANCE_QUESTIONS))
    pools = {qid: _pool(qid, runs, truth, pool_depth) for qid in judged}
    mistakes: dict[tuple[str, str], tuple[int, str]] = {}
    for qid, doc, quote, grade, text in source.RELEVANCE_MISTAKES:
        if qid not in pools:
            raise error(f"judge.py: the judge did not rate {qid}")
        for chunk_id in resolve_quote(
            documents[doc]["text"], chunks_by_doc[doc], doc, quote, f"judge.py {qid}"
        ):
            if chunk_id not in pools[qid]:
                raise error(f"judge.py: {chunk_id} is not in the pool of {qid}")
            if truth[qid].get(chunk_id, 0) == grade:
                raise error(f"judge.py: {chunk_id} already has grade {grade} for {qid}")
            mistakes[qid, chunk_id] = (grade, text)
    rows = []
    for qid in judged:
        for chunk_id in sorted(pools[qid], key=chunk_sort_key):
            grade = truth[qid].get(chunk_id, 0)
            text = rationale(grade, by_id[chunk_id])
            grade, text = mistakes.get((qid, chunk_id), (grade, text))
            rows.append(
                {
                    "item": f"{qid}/{chunk_id}",
                    "metric": "relevance",
                    "rater": source.RELEVANCE_JUDGE,
                    "rater_kind": "model",
                    "verdict": grade,
                    "question": qid,
                    "chunk_id": chunk_id,
                    "rationale": text,
                }
            )
    write_text(out / "judge" / "relevance.jsonl", [json.dumps(r, ensure_ascii=False) for r in rows])

    cases, reviews = [], []
    threshold = source.FAITHFULNESS_THRESHOLD
    hybrid = runs["hybrid"]
    for order, entry in enumerate(source.ANSWERS):
        qid = entry["question"]
        relevant = sorted(truth[qid], key=lambda c: (-truth[qid][c], chunk_sort_key(c)))
        contexts = list(relevant[:3])
        for chunk_id, _ in hybrid[qid]:
            if len(contexts) >= 3:
                break
            if chunk_id not in contexts:
                contexts.append(chunk_id)
        context_texts = [by_id[c]["text"] for c in contexts]
        success = entry["score"] >= threshold
        cases.append(
            {
                "name": f"test_case_{order}",
                "input": texts[qid],
                "actualOutput": entry["answer"],
                "retrievalContext": context_texts,
                "success": success,
                "metricsData": [
                    {
                        "name": "Faithfulness",
                        "threshold": threshold,
                        "success": success,
                        "score": entry["score"],
                        "reason": entry["reason"],
                        "strictMode": False,
                        "evaluationModel": source.FAITHFULNESS_JUDGE,
                        "evaluationCost": 0.0,
                    }
                ],
                "runDuration": 0.0,
                "evaluationCost": 0.0,
                "order": order,
            }
        )
        for reviewer, verdict in sorted(entry["reviews"].items()):
            reviews.append(
                {
                    "metric": "Faithfulness",
                    "rater": reviewer,
                    "rater_kind": "human",
                    "verdict": "pass" if verdict else "fail",
                    "question": texts[qid],
                    "answer": entry["answer"],
                    "contexts": context_texts,
                }
            )
    scores = [c["metricsData"][0]["score"] for c in cases]
    passes = sum(c["success"] for c in cases)
    run = {
        "testCases": cases,
        "conversationalTestCases": [],
        "metricsScores": [
            {
                "metric": "Faithfulness",
                "scores": scores,
                "passes": passes,
                "fails": len(cases) - passes,
                "errors": 0,
            }
        ],
        "testPassed": passes,
        "testFailed": len(cases) - passes,
        "runDuration": 0.0,
        "evaluationCost": 0.0,
    }
    write_text(
        out / "judge" / "faithfulness_deepeval.json",
        json.dumps(run, ensure_ascii=False, indent=2).splitlines(),
    )
    write_text(
        out / "judge" / "faithfulness_reviews.jsonl",
        [json.dumps(r, ensure_ascii=False) for r in reviews],
    )
    notes = []
    for qid, doc, quote, reviewer, note in source.REVIEWER_NOTES:
        for chunk_id in resolve_quote(
            documents[doc]["text"], chunks_by_doc[doc], doc, quote, f"judge.py notes {qid}"
        ):
            if reviewer not in label_plan.get(qid, ()):
                raise error(f"judge.py: {reviewer} does not grade {qid}")
            notes.append(
                {"question": qid, "chunk_id": chunk_id, "reviewer": reviewer, "note": note}
            )
    write_text(out / "judge" / "notes.jsonl", [json.dumps(n, ensure_ascii=False) for n in notes])
    return {
        "relevance_rows": len(rows),
        "relevance_questions": len(judged),
        "relevance_mistakes": len(mistakes),
        "answers": len(cases),
        "reviews": len(reviews),
    }


__all__ = ["build_judge", "rationale"]
