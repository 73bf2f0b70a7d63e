"""How good are the review flags? Precision and recall of every flag of labeler.flags on the
labelled set tests/data/review/labelled_questions.py (204 generated questions over the demo
corpus, with the demo's 88 human questions as the existing questions), and on the ten real
Ragas questions of tests/data/formats/ragas/testset_2.csv (labelled by hand below).

It also sweeps each threshold, compares duplicate scorers, checks what blocking loses against
scoring all pairs, and prints the pairs just above and below the duplicate threshold (the
examples in docs/review.md).

Usage::

    python tests/benchmarks/flag_quality.py            # the tables
    python tests/benchmarks/flag_quality.py --sweep    # and every threshold sweep

tests/test_flags_quality.py holds the figures at the chosen thresholds so a change that loses
quality fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler import flags  # noqa: E402
from labeler.flags import Context, FlagConfig, FlagInput  # noqa: E402

DOCUMENTS = REPO / "data" / "demo_source" / "documents"
HUMAN = REPO / "data" / "demo" / "questions.jsonl"
CHUNKS = REPO / "data" / "demo" / "chunks.jsonl"
LABELLED = REPO / "tests" / "data" / "review" / "labelled_questions.py"
RAGAS = REPO / "tests" / "data" / "formats" / "ragas" / "testset_2.csv"
CHUNKING = "default"

# The ten real Ragas questions, by line of testset_2.csv, labelled by reading them with their
# contexts: a question is a leak when it states its answer, copied when it is a near-verbatim
# sentence of a context, unsupported when its reference says what the contexts do not.
RAGAS_LABELS = {
    2: {},
    3: {},
    4: {},
    5: {},  # "The context does not provide details..." says what is missing: no false claim
    6: {},
    7: {"unsupported": True},  # the link from synthetic data to Norvig's "more data" is made up
    8: {},
    9: {},
    10: {},
    11: {"unsupported": True},  # "essential for production-ready systems": another section's
}  # claim about software engineering, moved onto observability


def load_cases() -> list[dict]:
    spec = importlib.util.spec_from_file_location("labelled_questions", LABELLED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def section(doc_id: str, quote: str) -> str:
    """The section of the document (heading to next heading) that holds the quote, which must
    occur once: what a generator's Markdown splitter hands its LLM as one context."""
    text = (DOCUMENTS / f"{doc_id}.md").read_text(encoding="utf-8")
    if text.count(quote) != 1:
        msg = f"{doc_id}: quote found {text.count(quote)} times: {quote!r}"
        raise ValueError(msg)
    at = text.index(quote)
    start = text.rfind("\n## ", 0, at)
    end = text.find("\n## ", at)
    return text[start + 1 if start >= 0 else 0 : end if end >= 0 else len(text)].strip()


def context_texts(case: dict) -> list[tuple[str, bool]]:
    """(text, truly in the corpus) of each context of a case."""
    return [
        (quote, False) if doc == "!" else (section(doc, quote), True) for doc, quote in case["ctx"]
    ]


def matcher():
    """The importers' context matcher over the demo chunks, in a database in memory."""
    from labeler.importers import import_chunks
    from labeler.importers.contexts import ContextMatcher
    from labeler.store import Store

    store = Store(":memory:")
    import_chunks(store, CHUNKS, chunking=CHUNKING)
    return ContextMatcher(store, CHUNKING)


def human_questions() -> dict[str, str]:
    rows = [json.loads(line) for line in HUMAN.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r["question"] for r in rows}


def build_inputs(cases: list[dict]) -> tuple[list[FlagInput], dict[str, bool]]:
    """The flag inputs, contexts matched to chunks as an import would; and, per case, whether
    a context truly is outside the corpus."""
    match = matcher()
    items, truly_missing = [], {}
    for case in cases:
        contexts = []
        for text, _ in context_texts(case):
            found = match.match(text).how != "none"
            contexts.append(Context(text, found))
        truly_missing[case["id"]] = not all(in_corpus for _, in_corpus in context_texts(case))
        items.append(FlagInput(case["id"], case["q"], case["ref"], tuple(contexts)))
    return items, truly_missing


# measuring ------------------------------------------------------------------------------------


def prf(predicted: set, truth: set) -> dict:
    tp = len(predicted & truth)
    precision = tp / len(predicted) if predicted else 1.0
    recall = tp / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "tp": tp,
        "fp": len(predicted - truth),
        "fn": len(truth - predicted),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def true_pairs(cases: list[dict]) -> set[tuple[str, str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        if case.get("dup"):
            groups[case["dup"]].append(case["id"])
    pairs = set()
    for label, members in groups.items():
        if re.fullmatch(r"q\d{3}", label):
            members = [*members, label]
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                pairs.add(tuple(sorted((a, b))))
    return pairs


def truth_sets(cases: list[dict], truly_missing: dict[str, bool]) -> dict[str, set[str]]:
    return {
        "duplicate": {c["id"] for c in cases if c.get("dup")},
        "answer_leak": {c["id"] for c in cases if c.get("leak")},
        "copied_from_source": {c["id"] for c in cases if c.get("copy")},
        "unsupported_reference": {c["id"] for c in cases if c.get("unsupported")},
        "context_not_found": {i for i, missing in truly_missing.items() if missing},
    }


def evaluate(config: FlagConfig | None = None) -> dict:
    """Precision and recall of each flag on the labelled set, and the duplicate pairs."""
    config = config or FlagConfig()
    cases = load_cases()
    items, truly_missing = build_inputs(cases)
    humans = human_questions()
    flagged = flags.flag_all(items, config, chunking=CHUNKING, others=humans)
    truth = truth_sets(cases, truly_missing)
    results = {}
    for name in truth:
        predicted = {q for q, found in flagged.items() if any(f.name == name for f in found)}
        results[name] = prf(predicted, truth[name])
    texts = {**humans, **{i.id: i.text for i in items}}
    pairs = {
        (a, b)
        for a, b, _ in flags.duplicate_pairs(texts, threshold=config.duplicate_threshold)
        if a.startswith("g") or b.startswith("g")
    }
    results["duplicate pairs"] = prf(pairs, true_pairs(cases))
    return results


def examples_near_threshold(threshold: float, width: float = 6.0) -> list[tuple]:
    """Scored pairs within ``width`` of the threshold, with their label."""
    cases = load_cases()
    texts = {**human_questions(), **{c["id"]: c["q"] for c in cases}}
    truth = true_pairs(cases)
    flat = {i: flags.duplicate_text(t) for i, t in texts.items()}
    ids = sorted(flat)
    out = []
    for n, a in enumerate(ids):
        for b in ids[n + 1 :]:
            if not (a.startswith("g") or b.startswith("g")):
                continue
            score = flags.similarity(flat[a], flat[b])
            if abs(score - threshold) <= width:
                out.append((round(score, 1), (a, b) in truth, texts[a], texts[b], a, b))
    return sorted(out, reverse=True)


def scorer_comparison() -> list[tuple[str, float, dict, dict]]:
    """Per scorer, over all pairs (no blocking): the threshold of best F1, and the threshold
    of best recall at a precision of 0.9 or more."""
    from rapidfuzz import fuzz

    cases = load_cases()
    texts = {**human_questions(), **{c["id"]: c["q"] for c in cases}}
    truth = true_pairs(cases)
    full = {i: flags.normalise(t) for i, t in texts.items()}
    content = {i: flags.duplicate_text(t) for i, t in texts.items()}
    ids = sorted(full)
    pairs = [
        (a, b)
        for n, a in enumerate(ids)
        for b in ids[n + 1 :]
        if a.startswith("g") or b.startswith("g")
    ]
    scorers = {
        "ratio, all words": (fuzz.ratio, full),
        "token_sort_ratio, all words": (fuzz.token_sort_ratio, full),
        "token_set_ratio, all words": (fuzz.token_set_ratio, full),
        "WRatio, all words": (fuzz.WRatio, full),
        "token_sort_ratio, content words": (fuzz.token_sort_ratio, content),
        "token_set_ratio, content words": (fuzz.token_set_ratio, content),
        "labeler.flags.similarity": (flags.similarity, content),
    }
    rows = []
    for name, (scorer, source) in scorers.items():
        scored = [(scorer(source[a], source[b]), (a, b)) for a, b in pairs]
        best = precise = None
        for threshold in range(50, 101):
            result = prf({p for s, p in scored if s >= threshold}, truth)
            if best is None or result["f1"] > best[1]["f1"]:
                best = (threshold, result)
            if result["precision"] >= 0.9 and (
                precise is None or result["recall"] > precise[1]["recall"]
            ):
                precise = (threshold, result)
        rows.append((name, best, precise))
    return rows


def blocking_recall(threshold: float) -> tuple[int, int]:
    """Pairs at or above the threshold found by blocking, out of those all pairs find."""
    cases = load_cases()
    texts = {**human_questions(), **{c["id"]: c["q"] for c in cases}}
    flat = {i: flags.duplicate_text(t) for i, t in texts.items()}
    ids = sorted(flat)
    exact = {
        (a, b)
        for n, a in enumerate(ids)
        for b in ids[n + 1 :]
        if flags.similarity(flat[a], flat[b]) >= threshold
    }
    blocked = {(a, b) for a, b, _ in flags.duplicate_pairs(texts, threshold=threshold)}
    return len(blocked & exact), len(exact)


def ragas_real() -> dict:
    """Every flag on the ten real Ragas questions, against the labels above."""
    from labeler.importers.ragas import read_ragas

    config = FlagConfig()
    rows = list(read_ragas(RAGAS, [0]))
    items = [
        FlagInput(str(r.line), r.text, r.reference, tuple(Context(c) for c in r.contexts))
        for r in rows
    ]
    flagged = flags.flag_all(items, config, chunking=CHUNKING)
    report = {}
    for name, key in (
        ("answer_leak", "leak"),
        ("copied_from_source", "copy"),
        ("unsupported_reference", "unsupported"),
    ):
        predicted = {q for q, found in flagged.items() if any(f.name == name for f in found)}
        truth = {str(line) for line, labels in RAGAS_LABELS.items() if labels.get(key)}
        report[name] = prf(predicted, truth)
    report["flags"] = {q: [f.name for f in found] for q, found in flagged.items()}
    return report


def sweep(name: str, values, make) -> list[tuple]:
    rows = []
    for value in values:
        result = evaluate(make(value))
        key = (
            "duplicate pairs"
            if name == "duplicate_threshold"
            else {
                "leak_share": "answer_leak",
                "copy_share": "copied_from_source",
                "copy_run": "copied_from_source",
                "support_share": "unsupported_reference",
            }[name]
        )
        rows.append((value, result[key]))
    return rows


def table(results: dict) -> str:
    lines = [
        "| flag | true | flagged | precision | recall | F1 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results.items():
        if not isinstance(r, dict) or "precision" not in r:
            continue
        lines.append(
            f"| {name} | {r['tp'] + r['fn']} | {r['tp'] + r['fp']} | {r['precision']:.2f}"
            f" | {r['recall']:.2f} | {r['f1']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", action="store_true", help="sweep every threshold too")
    args = parser.parse_args(argv)
    config = FlagConfig()
    print(f"config: {config.as_dict()}")
    print(f"labelled set: {len(load_cases())} generated questions, 88 human ones\n")
    print(table(evaluate(config)))
    found, total = blocking_recall(config.duplicate_threshold)
    print(
        f"\nblocking: {found} of the {total} pairs scoring >= {config.duplicate_threshold}"
        " over all pairs"
    )
    print("\nreal Ragas questions (testset_2.csv):")
    real = ragas_real()
    print(table(real))
    for line, names in sorted(real["flags"].items(), key=lambda kv: int(kv[0])):
        print(f"  line {line}: {', '.join(names) or '-'}")
    print("\nduplicate scorers over all pairs: best F1; best recall at precision >= 0.9")
    for name, best, precise in scorer_comparison():
        line = f"  {name:34s} F1 {best[1]['f1']:.2f} at {best[0]:3d}"
        if precise is not None:
            line += (
                f"; R {precise[1]['recall']:.2f} (P {precise[1]['precision']:.2f}) at {precise[0]}"
            )
        print(line)
    print(f"\npairs near the duplicate threshold ({config.duplicate_threshold}):")
    for score, same, a, b, ia, ib in examples_near_threshold(config.duplicate_threshold):
        mark = "dup " if same else "diff"
        print(f"  {score:5.1f} {mark} {ia}: {a}\n             {ib}: {b}")
    if args.sweep:
        for name, values in (
            ("duplicate_threshold", range(70, 101, 2)),
            ("leak_share", [x / 20 for x in range(8, 21)]),
            ("copy_share", [x / 20 for x in range(8, 21)]),
            ("copy_run", range(2, 8)),
            ("support_share", [x / 20 for x in range(6, 21)]),
        ):
            print(f"\nsweep {name}:")
            for value, r in sweep(name, values, lambda v, n=name: replace(config, **{n: v})):
                print(
                    f"  {value!s:>6}: P {r['precision']:.2f} R {r['recall']:.2f}"
                    f" F1 {r['f1']:.2f} (tp {r['tp']}, fp {r['fp']}, fn {r['fn']})"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
