"""Importing Ragas test sets, on the real file in tests/data/formats and on small hand-made
ones; and the context matching (labeler.importers.contexts) they rely on."""

import hashlib
import json
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.importers import contexts as matching
from labeler.importers.contexts import ContextMatcher, normalise, similarity, strip_hop
from labeler.importers.generated import stable_id
from labeler.importers.ragas import import_ragas, read_ragas
from labeler.readers import as_texts as parse_list
from labeler.readers import iter_items
from labeler.store import Store
from tests.conftest import table_counts

FORMATS = Path(__file__).resolve().parent / "data" / "formats"
RAGAS_CSV = FORMATS / "ragas" / "testset_2.csv"


def contexts_of(line: int) -> tuple[str, ...]:
    skipped = [0]
    return next(q.contexts for q in read_ragas(RAGAS_CSV, skipped) if q.line == line)


@pytest.fixture
def corpus(store: Store) -> Store:
    """Chunks cut from the real file's contexts, each matching one way (see the asserts)."""
    line2 = contexts_of(2)[0]
    line3 = contexts_of(3)[0]
    line4 = contexts_of(4)[0]
    line5 = contexts_of(5)[0]
    line7 = contexts_of(7)[0]
    edited = (
        line4.replace("Quality assurance", "Quality control")
        .replace("objectively", "fairly")
        .replace("feedback loops", "feedback cycles")
    )
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default",
        [
            {"id": "intro", "text": line2},  # the same text: exact
            {"id": "what-is-ragas", "text": line3.replace("\n\n", "\n  \n")},  # spacing: exact
            {"id": "purposes", "text": edited},  # a few words changed: fuzzy
            {"id": "testdata-a", "text": line5[:513]},  # the context spans two of our chunks
            {"id": "testdata-b", "text": line5[513:]},
            {"id": "synthetic", "text": strip_hop(line7)},  # a <1-hop> context: exact
            {"id": "heading", "text": "## What is Ragas?"},  # inside contexts, but too short
            {"id": "webhooks", "text": "Webhooks are signed with HMAC SHA-256."},
        ],
    )
    return store


def test_the_real_ragas_csv_reads_with_its_quirks() -> None:
    skipped = [0]
    questions = list(read_ragas(RAGAS_CSV, skipped))
    assert [q.line for q in questions] == list(range(2, 12))
    assert skipped == [0]
    first = questions[0]
    assert first.text.startswith("How are Large Language Models integrated into modern")
    assert first.reference.startswith("Large Language Models (LLMs) are becoming fundamental")
    assert first.generator == "ragas"
    assert first.synthesizer == "single_hop_specifc_query_synthesizer"  # Ragas' own spelling
    # a Python-literal list whose text holds real newlines and both kinds of quotes
    assert first.contexts[0].startswith('---\ntitle: "Part 1: Introduction to Ragas')
    assert [len(q.contexts) for q in questions] == [1, 1, 1, 1, 1, 2, 3, 2, 2, 2]
    multi = questions[6]
    assert multi.synthesizer == "multi_hop_abstract_query_synthesizer"
    assert [c[:8] for c in multi.contexts] == ["<1-hop>\n", "<2-hop>\n", "<3-hop>\n"]
    digest = hashlib.sha1(first.text.encode()).hexdigest()[:10]
    assert first.id == f"ragas-{digest}"


def test_importing_the_real_file(corpus: Store) -> None:
    result = import_ragas(corpus, RAGAS_CSV)
    assert (result.report.added, result.report.updated, result.report.unchanged) == (10, 0, 0)
    # 16 contexts: lines 2 and 3 exact, line 3's context again as line 10's first hop, line 7's
    # first hop exact once its prefix is gone; lines 4 and 5 fuzzy; the other 10 unmatched.
    assert (result.contexts, result.by_id, result.exact, result.fuzzy) == (16, 0, 4, 2)
    assert result.unmatched_total == 10
    by_line = {q.line: q.id for q in read_ragas(RAGAS_CSV, [0])}
    # unmatched: line 6's context, line 7's second hop, line 8's three hops, line 9's two,
    # line 10's second hop and line 11's two
    assert [u.line for u in result.unmatched] == [6, 7, 8, 8, 8, 9, 9, 10, 11, 11]
    assert result.unmatched[1].question_id == by_line[7]
    assert result.unmatched[1].preview(20) == '## The Origin of "D…'
    sources = {
        q.id: q.source_chunk_ids
        for q in map(corpus.questions.get, corpus.questions.ids())
        if q.source_chunk_ids
    }
    assert sources == {
        by_line[2]: ("intro",),
        by_line[3]: ("what-is-ragas",),
        by_line[4]: ("purposes",),
        by_line[5]: ("testdata-a", "testdata-b"),
        by_line[7]: ("synthetic",),
        by_line[10]: ("what-is-ragas",),
    }
    question = corpus.questions.get(by_line[5])
    assert (question.origin, question.review_status) == ("generated", "pending")
    assert question.reference_answer.startswith("LangSmith is listed as one of")
    pool = corpus.pools.sources(by_line[5], "default")
    assert sorted(c for c, source, _ in pool if source == "added:suggested") == [
        "testdata-a",
        "testdata-b",
    ]
    assert result.suggested == 7


def test_importing_again_changes_nothing(corpus: Store) -> None:
    import_ragas(corpus, RAGAS_CSV)
    before = table_counts(corpus)
    again = import_ragas(corpus, RAGAS_CSV)
    assert (again.report.added, again.report.updated, again.report.unchanged) == (0, 0, 10)
    assert again.summary().startswith("ragas: nothing changed (10 already present); 16 contexts")
    assert table_counts(corpus) == before


def test_a_reviewed_question_is_left_as_the_reviewer_left_it(corpus: Store, tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"user_input": "Q?", "reference": "A."}) + "\n", encoding="utf-8")
    import_ragas(corpus, path)
    qid = stable_id("ragas", "Q?")
    corpus.questions.upsert([{"id": qid, "text": "Q, edited?", "review_status": "accepted"}])
    path.write_text(json.dumps({"user_input": "Q?", "reference": "B."}) + "\n", encoding="utf-8")
    result = import_ragas(corpus, path)
    assert (result.reviewed, result.report.skipped, result.report.updated) == (1, 1, 0)
    question = corpus.questions.get(qid)
    assert (question.text, question.reference_answer) == ("Q, edited?", "A.")


def test_a_pending_question_follows_the_file(corpus: Store, tmp_path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"user_input": "Q?", "reference": "A."}) + "\n", encoding="utf-8")
    import_ragas(corpus, path, tags=("synthetic",))
    path.write_text(json.dumps({"user_input": "Q?", "reference": "B."}) + "\n", encoding="utf-8")
    result = import_ragas(corpus, path, tags=("other",))
    assert result.report.updated == 1
    question = corpus.questions.get(stable_id("ragas", "Q?"))
    assert (question.reference_answer, question.tags) == ("B.", ("synthetic",))


def test_the_legacy_format_question_ground_truth_contexts(corpus: Store, tmp_path) -> None:
    rows = [
        {
            "question": "Why sign webhooks?",
            "contexts": ["Webhooks are signed with HMAC SHA-256."],
            "ground_truth": "To verify the sender.",
            "evolution_type": "simple",
            "metadata": [{"source": "hooks.md"}],
            "episode_done": True,
        }
    ]
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    result = import_ragas(corpus, path)
    assert (result.report.added, result.exact) == (1, 1)
    question = corpus.questions.get(stable_id("ragas", "Why sign webhooks?"))
    assert (question.generator, question.reference_answer, question.source_chunk_ids) == (
        "ragas",
        "To verify the sender.",
        ("webhooks",),
    )
    assert (
        corpus.reviews.generation(question.id)["synthesizer"] == "simple"
    )  # v0.1's evolution_type


def test_ids_and_reference_context_ids_are_used_when_given(corpus: Store, tmp_path) -> None:
    row = {
        "id": "gen-7",
        "user_input": "How are webhooks signed?",
        "reference_contexts": ["(a paraphrase no matcher would find)"],
        "reference_context_ids": ["webhooks"],
        "synthesizer_name": "single_hop_specific_query_synthesizer",
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = import_ragas(corpus, path)
    assert (result.by_id, result.unmatched_total) == (1, 0)
    assert corpus.questions.get("gen-7").source_chunk_ids == ("webhooks",)


def test_an_annotated_testset_and_a_multi_turn_sample(corpus: Store, tmp_path) -> None:
    rows = [
        {
            "eval_sample": {"user_input": "Signed how?", "reference": "HMAC."},
            "synthesizer_name": "single_hop_specific_query_synthesizer",
            "approval_status": "approved",
        },
        {
            "user_input": [{"content": "hi", "type": "human"}],
            "synthesizer_name": "multi_turn",
        },
    ]
    path = tmp_path / "annotated.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    result = import_ragas(corpus, path)
    # The multi-turn sample is a conversation of one user turn (tests/test_importers_ragas
    # _turns.py has the rest).
    assert (result.report.added, result.multi_turn) == (2, 0)
    conversation = stable_id("ragas-conversation", '[["user", "hi"]]')
    turn = corpus.questions.get(f"{conversation}::1")
    assert (turn.text, turn.turn.number, turn.turn.history) == ("hi", 1, ())
    question = corpus.questions.get(stable_id("ragas", "Signed how?"))
    assert question.generator == "ragas"
    assert (
        corpus.reviews.generation(question.id)["synthesizer"]
        == "single_hop_specific_query_synthesizer"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[\n  {"user_input": "Fine?"},\n  {"reference": "no question"}\n]',
            r'bad\.json:3: field "user_input": no question',
        ),
        (
            '[{"user_input": "A?", "reference_contexts": "[\'unclosed"}]',
            r'bad\.json:1: field "reference_contexts": expected a list',
        ),
        ('[{"user_input": "A?", "reference_contexts": [1, {"x": 2}]}]', "expected a list of texts"),
        ('[{"user_input": "A?"}, 3]', r"bad\.json:1: expected a JSON object, got a number"),
        ('[{"user_input": "A?"}', "the list opened on line 1 is not closed"),
        (
            '[{"id": "x", "user_input": "A?"}, {"id": "x", "user_input": "B?"}]',
            "'x' is also on line 1, with another question",
        ),
    ],
)
def test_bad_input_names_the_line_and_writes_nothing(
    corpus: Store, tmp_path, text: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    before = table_counts(corpus)
    with pytest.raises(LabelerError, match=message):
        import_ragas(corpus, path)
    assert table_counts(corpus) == before


def test_an_unknown_file_type(corpus: Store, tmp_path) -> None:
    path = tmp_path / "t.parquet"
    path.write_bytes(b"PAR1")
    with pytest.raises(
        LabelerError, match=r"expected \.jsonl, \.ndjson, \.json, \.csv, \.tsv or \.tab"
    ):
        import_ragas(corpus, path)


# matching ---------------------------------------------------------------------------------


def test_hop_prefixes_and_normalising() -> None:
    assert strip_hop("<12-hop>\n\nText <1-hop> stays") == "Text <1-hop> stays"
    assert strip_hop("No prefix") == "No prefix"
    assert normalise("  A\n\tB   c ") == "a b c"


def test_short_texts_are_compared_whole_long_ones_aligned() -> None:
    long = "the rate limit is one hundred requests per minute for every api key " * 3
    assert similarity(normalise("Geography"), normalise("Geography of the world " * 10)) < 90
    assert similarity(long[:100], long) == 100  # a long piece of a longer text
    assert similarity("geography", "geography") == 100


def test_the_full_text_shortlist_finds_the_same_matches(corpus: Store, monkeypatch) -> None:
    monkeypatch.setattr(matching, "SCORE_ALL_UP_TO", 0)
    matcher = ContextMatcher(corpus, "default")
    line5 = contexts_of(5)[0]
    assert matcher.match(line5).chunk_ids == ("testdata-a", "testdata-b")
    edited = matcher.match(contexts_of(4)[0])
    assert (edited.how, edited.chunk_ids) == ("fuzzy", ("purposes",))
    assert matcher.match("Nothing like any chunk at all, about gardening.").how == "none"


def test_the_word_index_keeps_the_chunks_the_set_test_keeps(corpus: Store) -> None:
    """The small-chunking path counts shared words over the words' chunk lists (#19 item 11);
    it must keep exactly the chunks ``shared_words`` keeps, context by context."""
    matcher = ContextMatcher(corpus, "default")
    small = matcher._small()
    assert small is not None
    texts = [*contexts_of(4), *contexts_of(5), "webhooks are signed", "a", "", "ragas ragas"]
    for text in texts:
        query = matching.words(normalise(text))
        expected = [
            i
            for i, body in enumerate(small.bodies)
            if matching.shared_words(query, matching.words(body)) >= matching.MIN_SHARED_WORDS
        ]
        assert small.sharing(query).tolist() == expected, text


def test_a_context_repeated_in_a_cell_is_matched_and_kept_once(corpus: Store, tmp_path) -> None:
    """#19 item 11: 16,000 copies of one context took 10 s, matched one by one; a question's
    repeated context is one passage."""
    cell = repr(["Webhooks are signed with HMAC SHA-256."] * 1000 + ["Unknown passage."])
    path = tmp_path / "r.csv"
    path.write_text(f'user_input,reference_contexts\nHow?,"{cell}"\n', encoding="utf-8")
    result = import_ragas(corpus, path)
    assert result.summary() == (
        "ragas: 1 added, 0 updated, 0 unchanged; 2 contexts: 0 by id, 1 exact, 0 fuzzy,"
        " 1 unmatched; 999 repeated contexts of a question merged"
    )
    assert result.as_dict()["contexts"]["repeated_merged"] == 999
    question = stable_id("ragas", "How?")
    assert [c["text"] for c in corpus.reviews.question_contexts(question)] == [
        "Webhooks are signed with HMAC SHA-256.",
        "Unknown passage.",
    ]


def test_unknown_ids_fall_back_to_the_text(corpus: Store) -> None:
    matcher = ContextMatcher(corpus, "default")
    found = matcher.match("Webhooks are signed with HMAC SHA-256.", ids=["gone"])
    assert (found.how, found.chunk_ids) == ("exact", ("webhooks",))
    assert matcher.match("   ").how == "none"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('["a", "b"]', ["a", "b"]),
        ("['it''s', \"x\"]", ["its", "x"]),
        ("['line\\none']", ["line\none"]),
        ("plain text", ["plain text"]),
        ("", []),
        (None, []),
    ],
)
def test_list_cells(value, expected) -> None:
    assert parse_list(value, path="f.csv", line=1, field="contexts") == expected


@pytest.mark.parametrize("value", [["a", 1], "['a', {'a': 1}]", [None]])
def test_a_context_that_is_not_text_is_refused(value) -> None:
    """#8 item 4: a number or an object in a list of contexts is not a context."""
    with pytest.raises(LabelerError, match=r'f.csv:1: field "contexts": expected a list of texts'):
        parse_list(value, path="f.csv", line=1, field="contexts")


def test_separated_cells() -> None:
    assert parse_list("a|b||c", path="f.csv", line=1, field="context", separator="|") == [
        "a",
        "b",
        "c",
    ]


def test_a_json_object_holding_the_list_keeps_line_numbers(tmp_path) -> None:
    path = tmp_path / "wrapped.json"
    path.write_text(
        '{"version": 1,\n "samples": [\n  {"user_input": "A?"},\n  {"user_input": "B?"}\n]}'
    )
    assert [(line, r["user_input"]) for line, r in iter_items(path, list_keys=("samples",))] == [
        (3, "A?"),
        (4, "B?"),
    ]


# multi-turn samples ---------------------------------------------------------------------------

# Written by Ragas 0.4.3's own EvaluationDataset.to_jsonl / to_csv (tests/data/formats/
# write_conversations.py): one conversation with a tool call, three user turns.
MULTI_JSONL = FORMATS / "ragas" / "multi_turn.jsonl"
MULTI_CSV = FORMATS / "ragas" / "multi_turn.csv"


def test_a_multi_turn_sample_gives_one_question_per_user_turn(loaded: Store) -> None:
    result = import_ragas(loaded, MULTI_JSONL)
    assert (result.report.added, result.multi_turn) == (3, 0)
    messages = json.loads(MULTI_JSONL.read_text(encoding="utf-8"))["user_input"]
    conversation = stable_id(
        "ragas-conversation",
        json.dumps(
            [
                [{"human": "user", "ai": "assistant"}.get(m["type"], m["type"]), m["content"]]
                for m in messages
            ],
            ensure_ascii=False,
        ),
    )
    assert loaded.conversations.turns(conversation) == [
        (1, f"{conversation}::1"),
        (2, f"{conversation}::2"),
        (3, f"{conversation}::3"),
    ]
    second = loaded.questions.get(f"{conversation}::2")
    assert second.text == "And what happens to the requests over that?"
    assert [(m.role, m.text[:20]) for m in second.turn.history] == [
        ("user", "How many requests ma"),
        ("assistant", "Let me look that up."),
        ("tool", "Each API key may sen"),
        ("assistant", "100 requests per min"),
    ]
    # The sample's reference is its last user turn's reference answer.
    answers = [loaded.questions.get(f"{conversation}::{n}").reference_answer for n in (1, 2, 3)]
    assert answers == [None, None, "As long as the Retry-After header says."]
    assert (second.origin, second.review_status, second.generator) == (
        "generated",
        "pending",
        "ragas",
    )


def test_the_csv_ragas_writes_gives_the_same_conversation(loaded: Store, tmp_path: Path) -> None:
    skipped = [0]
    from_jsonl = list(read_ragas(MULTI_JSONL, skipped))
    from_csv = list(read_ragas(MULTI_CSV, skipped))
    assert [(q.id, q.text, q.turn, q.reference) for q in from_csv] == [
        (q.id, q.text, q.turn, q.reference) for q in from_jsonl
    ]
    import_ragas(loaded, MULTI_JSONL)
    again = import_ragas(loaded, MULTI_CSV)
    assert (again.report.added, again.report.updated, again.report.unchanged) == (0, 0, 3)


def test_a_multi_turn_sample_without_a_user_message_is_skipped(
    loaded: Store, tmp_path: Path
) -> None:
    path = tmp_path / "s.jsonl"
    rows = [
        {"user_input": [{"content": "Hello, how can I help?", "type": "ai"}]},
        {"user_input": "What does error 404 mean?", "reference_contexts": []},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = import_ragas(loaded, path)
    assert (result.report.added, result.multi_turn) == (1, 1)
    assert "1 conversations without a user turn skipped" in result.summary()


def test_a_bad_message_names_its_place(loaded: Store, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    sample = {"user_input": [{"content": "hi", "type": "human"}, {"content": "x", "type": "bot"}]}
    path.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    with pytest.raises(LabelerError) as error:
        import_ragas(loaded, path)
    assert str(error.value).startswith(f'{path}:1: field "user_input[1].type": expected one of')
