"""``labeler judge export --to ragas-annotated``: the spot-check as Ragas reads it."""

import json

from labeler.grading import labeling
from labeler.judge.export import ragas_annotated, write_json
from labeler.judge.importing import import_judgements
from labeler.store import Store
from tests.conftest import DATA

RAGAS_ANNOTATED = DATA / "formats" / "ragas" / "annotated_data.json"


def snapshot(store: Store, metric: str) -> list[tuple]:
    return sorted(
        (k, r, kind, v, p)
        for k, r, kind, v, p, _ in store.ratings.metric_ratings(metric, "default")
    )


def test_round_trip_of_ragas_own_file(store: Store, tmp_path) -> None:
    import_judgements(store, RAGAS_ANNOTATED)
    data = ragas_annotated(store)
    samples = data["helpfulness"]
    assert len(samples) == 21
    original = json.loads(RAGAS_ANNOTATED.read_text())["helpfulness"]
    assert sum(s["is_accepted"] for s in samples) == sum(s["is_accepted"] for s in original)
    path = write_json(data, tmp_path / "out" / "aligned.json")
    with Store(tmp_path / "fresh.db") as fresh:
        import_judgements(fresh, path)
        assert snapshot(fresh, "helpfulness") == snapshot(store, "helpfulness")


def test_relevance_exports_question_and_chunk(loaded: Store, tmp_path) -> None:
    labeling.grade(loaded, "q1", "rate-limits", "ana", 2)
    path = tmp_path / "j.jsonl"
    path.write_text(
        json.dumps(
            {
                "item": "x",
                "metric": "relevance",
                "rater": "J",
                "rater_kind": "model",
                "verdict": 1,
                "question": "q1",
                "chunk_id": "rate-limits",
                "rationale": "partly",
            }
        )
        + "\n"
    )
    import_judgements(loaded, path)
    [sample] = ragas_annotated(loaded)["relevance"]
    assert sample["metric_input"]["user_input"] == "How should a client retry after a 429 response?"
    assert sample["metric_input"]["retrieved_contexts"][0].startswith("Each API key")
    assert (sample["metric_output"], sample["is_accepted"], sample["target"]) == (1, False, 2)
    edited = sample["prompts"]["labeler_judge"]["edited_output"]
    assert edited["verdict"] == 2
