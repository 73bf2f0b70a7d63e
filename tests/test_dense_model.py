"""The embedding model: how chunks become passages and keys, the registry, the install hint,
and the shipped model itself (the ``embed`` extra: skipped without it, except in CI)."""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

import numpy as np
import pytest

from labeler.dense import model as dense_model
from labeler.dense.model import (
    DEFAULT_MODEL,
    INSTALL_HINT,
    MODELS,
    ModelSpec,
    load_embedder,
    model_spec,
    passage_key,
    passage_text,
)
from labeler.errors import LabelerError
from tests.conftest import DATA


def test_a_passage_is_the_title_then_the_text() -> None:
    assert passage_text("Rate limits", "100 per minute.") == "Rate limits\n100 per minute."
    assert passage_text(None, "100 per minute.") == "100 per minute."
    assert passage_text("", "x") == "x"


def test_the_key_is_the_first_16_bytes_of_the_passages_sha256() -> None:
    expected = hashlib.sha256(b"Rate limits\n100 per minute.").digest()[:16]
    assert passage_key("Rate limits", "100 per minute.") == expected
    assert passage_key("Other title", "100 per minute.") != expected


def test_the_default_model_is_registered() -> None:
    spec = model_spec()
    assert spec is MODELS[DEFAULT_MODEL]
    assert spec.dim == 384


def test_an_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(LabelerError, match=f"unknown embedding model 'nope' .*{DEFAULT_MODEL}"):
        model_spec("nope")


def test_a_missing_extra_says_how_to_install_it(monkeypatch) -> None:
    absent = ModelSpec(
        "absent", "labeler-no-such-distribution", ("no_such",), "absent-extra", 8, "-", dict
    )
    monkeypatch.setitem(dense_model.MODELS, "absent", absent)
    with pytest.raises(LabelerError) as caught:
        load_embedder("absent")
    assert str(caught.value).endswith("is not installed: pip install 'labeler[absent-extra]'")
    assert INSTALL_HINT == "pip install 'labeler[embed]'"


# the shipped model --------------------------------------------------------------------------


def need_extra(name: str) -> None:
    """Skip without the model's extra (``embed``, ``embed-multilingual``), except in CI (``CI``
    set), where the README's test command installs them and a missing model must fail, as the
    interop tests do."""
    for module in MODELS[name].modules:
        if os.environ.get("CI"):
            importlib.import_module(module)
        else:
            pytest.importorskip(module, reason="the embed extra is not installed")


@pytest.mark.embed
@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_shipped_model_embeds_offline_and_finds_the_answer(
    name: str, tmp_path: Path, monkeypatch
) -> None:
    need_extra(name)
    import socket

    from labeler.dense.index import read_vectors, update_index
    from labeler.dense.search import chunk_vectors, dense_search

    def refuse(self, address, *args, **kwargs):
        raise OSError(f"network access attempted: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    embedder = load_embedder(name)
    assert embedder.key.startswith(f"{name}@")
    chunks = {
        "retry": ("Rate limits", "Extra requests return status 429; wait and retry later."),
        "paging": ("Pagination", "Use the next_cursor field to get the next page of orders."),
        "hooks": ("Webhooks", "Webhooks are signed with HMAC SHA-256."),
    }
    keyed = {cid: passage_key(*chunk) for cid, chunk in chunks.items()}
    path = tmp_path / "p.vectors"
    texts = [(keyed[c], passage_text(*chunk)) for c, chunk in chunks.items()]
    assert update_index(path, embedder, texts) == 3
    assert update_index(path, embedder, texts) == 0
    joined = chunk_vectors(read_vectors(path), list(keyed.items()))
    question = embedder.embed_queries(["How do I fetch the following page of results?"])
    assert np.linalg.norm(question) == pytest.approx(1.0, abs=1e-3)
    hits = dense_search(joined, question, limit=3)
    assert hits[0].chunk_id == "paging"


@pytest.mark.embed
@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_shipped_model_finds_medquad_answers_among_their_siblings(name: str) -> None:
    """19 MedQuAD answers from 4 documents (tests/data/medquad, CC BY 4.0), 5 questions: every
    answer of a document has the document's title, so only the text tells the question's
    answer from its siblings. Each model ranks it in its top 3 for every question (measured
    when the models were chosen: all-MiniLM-L6-v2-int8 first for 4 of the 5, e5 for 3)."""
    need_extra(name)
    import json

    from labeler.dense.neighbours import top_k

    folder = DATA / "medquad"
    chunks = [json.loads(line) for line in (folder / "chunks.jsonl").read_text().splitlines()]
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    answer = {}
    for line in (folder / "qrels.trec").read_text().splitlines():
        qid, _, cid, _ = line.split()
        answer[qid] = cid
    embedder = load_embedder(name)
    matrix = embedder.embed_passages([passage_text(c["title"], c["text"]) for c in chunks])
    asked = embedder.embed_queries([q["question"] for q in questions])
    found = top_k(matrix, asked, 3).rows
    for question, rows in zip(questions, found, strict=True):
        assert answer[question["id"]] in [chunks[r]["id"] for r in rows], question["question"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_models_extra_installs_its_weights(name: str) -> None:
    """The registry and pyproject.toml's extras agree: the model's extra lists the package of
    its weights, pinned, so another release (another index key) is a deliberate change."""
    import tomllib

    from tests.conftest import REPO

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    spec = MODELS[name]
    assert any(req.startswith(f"{spec.distribution}==") for req in extras[spec.extra])
