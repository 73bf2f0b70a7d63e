"""Our Ragas and DeepEval exports, loaded by Ragas and DeepEval themselves (the `interop` extra,
which the README's test command installs, so CI runs these rather than skipping them; on a
machine without the extra they skip, except in CI, where they fail).

Nothing may reach the network while they run: the libraries' telemetry and offline switches are
set, and every socket connection is refused, so a library that tried would fail the test."""

from __future__ import annotations

import importlib
import json
import os
import socket
from pathlib import Path

import pytest

from labeler.exporters.convert import convert
from tests.test_exporters_convert import talk, version  # noqa: F401 - the fixtures

pytestmark = pytest.mark.interop

OFFLINE = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "RAGAS_DO_NOT_TRACK": "true",
    "DO_NOT_TRACK": "1",
    "LANGCHAIN_TRACING_V2": "false",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TIKTOKEN_CACHE_DIR": "",
}


def need(module: str) -> None:
    """Import ``module``, or skip, except in CI (``CI`` set), where the README's test command
    installs the interop extra and a missing library must fail, as e2e does with chromium."""
    if os.environ.get("CI"):
        importlib.import_module(module)
    else:
        pytest.importorskip(module, reason="the interop extra is not installed")


@pytest.fixture
def offline(monkeypatch, tmp_path: Path):
    """Telemetry off, hubs offline, the working folder a temporary one (DeepEval writes a
    .deepeval folder there), and no socket may connect anywhere."""
    for key, value in OFFLINE.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    attempts: list[object] = []

    def refuse(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError(f"network access attempted during a test: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield attempts
    assert attempts == [], f"the library tried to reach the network: {attempts}"


def test_ragas_loads_the_jsonl(version: Path, tmp_path: Path, offline) -> None:  # noqa: F811
    need("ragas")
    import ragas
    from ragas.testset import Testset

    jsonl, _ = convert(version, "ragas", out=tmp_path / "ragas")
    dataset = ragas.EvaluationDataset.from_jsonl(str(jsonl))
    assert dataset[0].reference_context_ids == ["c-rate", "c-err"]
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert len(Testset.from_list(rows).samples) == 3


def test_deepeval_loads_the_goldens(version: Path, tmp_path: Path, offline) -> None:  # noqa: F811
    need("deepeval")
    from deepeval.dataset import EvaluationDataset, Golden

    [path] = convert(version, "deepeval", out=tmp_path / "de")
    goldens = [Golden(**g) for g in json.loads(path.read_text(encoding="utf-8"))]
    dataset = EvaluationDataset(goldens=goldens)
    assert dataset.goldens[0].additional_metadata["chunk_ids"] == ["c-rate", "c-err"]


def test_ragas_loads_the_turns_as_multi_turn_samples(talk: Path, tmp_path: Path, offline) -> None:  # noqa: F811
    need("ragas")
    import ragas
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage

    paths = {p.name: p for p in convert(talk, "ragas", out=tmp_path / "ragas")}
    dataset = ragas.EvaluationDataset.from_jsonl(str(paths["ragas_turns.jsonl"]))
    assert dataset.is_multi_turn()
    assert len(dataset) == 3
    third = dataset[2]
    assert isinstance(third, MultiTurnSample)
    assert [type(m) for m in third.user_input] == [
        HumanMessage,
        AIMessage,
        HumanMessage,
        AIMessage,
        AIMessage,
        AIMessage,
        HumanMessage,
    ]
    assert third.user_input[-1].metadata["reference_context_ids"] == ["c-err"]
    assert third.reference == "As Retry-After says."
    # The questions that stand alone load as before, on their own.
    assert not ragas.EvaluationDataset.from_jsonl(str(paths["ragas.jsonl"])).is_multi_turn()


def test_deepeval_loads_the_conversational_goldens(talk: Path, tmp_path: Path, offline) -> None:  # noqa: F811
    need("deepeval")
    from deepeval.dataset import ConversationalGolden, EvaluationDataset

    paths = {p.name: p for p in convert(talk, "deepeval", out=tmp_path / "de")}
    rows = json.loads(paths["conversational_goldens.json"].read_text(encoding="utf-8"))
    goldens = [ConversationalGolden(**g) for g in rows]
    dataset = EvaluationDataset(goldens=goldens)
    [golden] = dataset.goldens
    assert [t.role for t in golden.turns] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "assistant",
        "assistant",
        "user",
    ]
    second = golden.turns[2]
    assert second.retrieval_context[1] == "100 requests per minute; then 429."
    assert second.metadata["question_id"] == "c1::2"
