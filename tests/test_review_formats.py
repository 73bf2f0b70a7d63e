"""The real Ragas and DeepEval files of tests/data/formats through import, review and export:
accepted (and edited) questions reach the test set and its Ragas and DeepEval files, rejected
and pending ones do not. Sources: see tests/data/README.md."""

import json
from pathlib import Path

import pytest

from labeler import review
from labeler.export import export_testset
from labeler.exporters.convert import convert
from labeler.importers.contexts import strip_hop
from labeler.importers.deepeval import import_deepeval, read_deepeval
from labeler.importers.ragas import import_ragas, read_ragas
from labeler.review import QueueFilter
from labeler.store import Store

FORMATS = Path(__file__).resolve().parent / "data" / "formats"
RAGAS_CSV = FORMATS / "ragas" / "testset_2.csv"
GOLDENS = FORMATS / "deepeval" / "goldens.json"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def ragas(store: Store) -> Store:
    """Chunks that are the real file's contexts (its own chunker's nodes), then the file."""
    texts = {strip_hop(c) for q in read_ragas(RAGAS_CSV, [0]) for c in q.contexts}
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default", [{"id": f"node-{n:02d}", "text": t} for n, t in enumerate(sorted(texts))]
    )
    result = import_ragas(store, RAGAS_CSV)
    assert (result.report.added, result.unmatched_total) == (10, 0)
    return store


def test_ragas_questions_keep_their_synthesizer_and_contexts(ragas: Store) -> None:
    review.ensure_flags(ragas)
    rows = review.list_questions(ragas, QueueFilter())
    assert len(rows) == 10
    assert {r["generator"] for r in rows} == {"ragas"}
    assert {r["synthesizer"] for r in rows} == {
        "single_hop_specifc_query_synthesizer",  # Ragas' own spelling, kept
        "multi_hop_abstract_query_synthesizer",
    }
    multi = next(r for r in rows if r["text"].startswith("How does Ragas support the evaluation"))
    view = review.open_for_review(ragas, multi["id"])
    assert len(view.contexts) == 3
    assert all(c.found and not c.text.startswith("<") for c in view.contexts)
    assert all(m.spans for c in view.contexts for m in c.matches)


def test_ragas_through_review_and_export(ragas: Store, tmp_path) -> None:
    review.ensure_flags(ragas)
    ids = [r["id"] for r in review.list_questions(ragas, QueueFilter())]
    keep, edit_me, drop = ids[:2], ids[2], ids[3:5]
    review.edit(
        ragas,
        edit_me,
        "maria",
        text="Which metrics does Ragas offer?",
        reference="Faithfulness, context relevancy, answer relevancy, topic adherence.",
    )
    result = review.decide_many(ragas, [*keep, edit_me], "maria", "accept", confirm_sources=True)
    assert len(result.done) == 3
    assert result.graded_sources >= 3
    review.decide_many(ragas, drop, "tom", "reject", reason="not-answerable")
    exported = export_testset(ragas, "ragas-reviewed", out=tmp_path / "exports")
    questions = read_jsonl(exported.path / "questions.jsonl")
    assert sorted(q["id"] for q in questions) == sorted([*keep, edit_me])
    edited = next(q for q in questions if q["id"] == edit_me)
    assert edited["question"] == "Which metrics does Ragas offer?"
    qrels = (exported.path / "qrels.tsv").read_text(encoding="utf-8").split("\n")
    assert all(line.split()[3] == "2" for line in qrels if line)
    files = convert(exported.path, ["ragas", "deepeval"], out=tmp_path / "converted")
    ragas_rows = read_jsonl(
        next(p for p in files if p.name.endswith(".jsonl") and "ragas" in p.name)
    )
    assert "Which metrics does Ragas offer?" in [r["user_input"] for r in ragas_rows]
    assert all(r["reference_contexts"] for r in ragas_rows)


def test_deepeval_goldens_through_review_and_export(store: Store, tmp_path) -> None:
    goldens = list(read_deepeval(GOLDENS))
    contexts = sorted({c for g in goldens for c in g.contexts})
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default", [{"id": f"topic-{n:02d}", "text": t} for n, t in enumerate(contexts)]
    )
    result = import_deepeval(store, GOLDENS)
    assert result.unmatched_total == 0
    review.ensure_flags(store)
    rows = review.list_questions(store, QueueFilter())
    assert {r["generator"] for r in rows} == {"deepeval"}
    # Its contexts are topic names ("Geography"), which support no reference answer: every
    # golden says so, with the claim quoted; "Define 'photosynthesis'" is two words.
    assert len(rows) == 14  # the file repeats one golden
    assert all("unsupported_reference" in [f["name"] for f in r["flags"]] for r in rows)
    short = [r["text"] for r in rows if "too_short" in [f["name"] for f in r["flags"]]]
    assert short == ["Define 'photosynthesis'"]
    everest = next(r["id"] for r in rows if "tallest mountain" in r["text"])
    paris = next(r["id"] for r in rows if "capital of France" in r["text"])
    review.accept(store, everest, "maria", confirm_sources=True)
    review.accept(store, paris, "maria", confirm_sources=True)
    review.reject(store, rows[-1]["id"], "maria", "unrealistic")
    exported = export_testset(store, "goldens", out=tmp_path / "exports")
    assert sorted(q["id"] for q in read_jsonl(exported.path / "questions.jsonl")) == sorted(
        [everest, paris]
    )
    files = convert(exported.path, "deepeval", out=tmp_path / "deepeval")
    written = json.loads(next(p for p in files if p.suffix == ".json").read_text())
    assert sorted(g["input"] for g in written) == [
        "What is the capital of France?",
        "What is the tallest mountain in the world?",
    ]
    assert {c for g in written for c in g["context"]} == {
        "Geography",
        "Mountains",
        "Capital Cities",
    }
