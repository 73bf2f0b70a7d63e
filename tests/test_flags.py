"""The review flags (labeler.flags), each with hand-made cases on both sides of its threshold."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler import flags
from labeler.errors import LabelerError
from labeler.flags import Context, FlagConfig, FlagInput

CONFIG = FlagConfig()


def names(found) -> list[str]:
    return [f.name for f in found]


# words ----------------------------------------------------------------------------------------


def test_words_fold_case_accents_and_punctuation() -> None:
    assert flags.words("Retry-After: GRÖSSE, café_au_lait 429!") == [
        "retry",
        "after",
        "grosse",
        "cafe",
        "au",
        "lait",
        "429",
    ]
    assert flags.normalise("  How do I   page?  ") == "how do i page"


def test_content_words_drop_stop_words_and_stem_lightly() -> None:
    assert flags.content_words("How many requests per minute can one API key send?") == [
        "many",
        "request",
        "minute",
        "one",
        "api",
        "key",
        "send",
    ]
    assert [flags.stem(w) for w in ("refunds", "returned", "policies", "pass", "status")] == [
        "refund",
        "return",
        "policy",
        "pass",
        "status",
    ]


def test_config_checks_every_value() -> None:
    with pytest.raises(LabelerError, match='field "duplicate_threshold"'):
        FlagConfig(duplicate_threshold=0)
    with pytest.raises(LabelerError, match='field "max_words"'):
        FlagConfig(min_words=10, max_words=5)
    with pytest.raises(LabelerError, match="unknown setting 'nope'"):
        FlagConfig.from_dict({"nope": 1})
    assert FlagConfig.from_dict({"leak_share": 0.5}).leak_share == 0.5


# answer_leak ----------------------------------------------------------------------------------

REFERENCE = "Webhooks are signed with HMAC SHA256 so receivers verify senders quickly"


def test_answer_leak_on_both_sides_of_its_share() -> None:
    # The reference has 8 content words; 6 in the question is 0.75 (flagged at 0.7), 5 is 0.625.
    leak = flags.answer_leak(
        "Why are webhooks signed with HMAC SHA256 so receivers verify?", REFERENCE, CONFIG
    )
    assert leak == flags.Flag(
        "answer_leak", "shares 6 of 8 content words with its reference answer"
    )
    assert (
        flags.answer_leak(
            "Why are webhooks signed with HMAC SHA256 so receivers?", REFERENCE, CONFIG
        )
        is None
    )
    stricter = FlagConfig(leak_share=0.8)
    assert (
        flags.answer_leak(
            "Why are webhooks signed with HMAC SHA256 so receivers verify?", REFERENCE, stricter
        )
        is None
    )


def test_a_number_the_question_asks_for_is_no_leak() -> None:
    asked = "How many requests per minute can one API key send?"
    assert flags.answer_leak(asked, "100 requests per minute per key.", CONFIG) is None
    stated = "Can one API key send 100 requests per minute?"
    assert flags.answer_leak(stated, "Yes, 100 requests per minute per key.", CONFIG) is not None


def test_answer_leak_reads_one_sentence_of_a_long_reference() -> None:
    question = "Is a request rejected with 429 saved under its idempotency key?"
    reference = (
        "No. A request rejected with a 429 is not saved under its idempotency key. "
        "Only requests that reached processing are saved, so a retry with the same key is safe."
    )
    found = flags.answer_leak(question, reference, CONFIG)
    assert found is not None
    assert found.reason == "shares 6 of 6 content words with its reference answer"
    assert flags.answer_leak(question, None, CONFIG) is None
    assert flags.answer_leak(question, "  ", CONFIG) is None


# copied_from_source ---------------------------------------------------------------------------

CONTEXT = Context(
    "Revocation takes effect within 60 seconds across all regions. Requests made with the key"
    " after that receive 401 invalid_api_key."
)


def test_copied_from_source_on_both_sides_of_its_share() -> None:
    # 8 words, 6 of them in one run of the context: 0.75 is flagged (copy_share 0.75).
    copied = flags.copied_from_source(
        "So revocation takes effect within 60 seconds, true?", [CONTEXT], CONFIG
    )
    assert copied == flags.Flag(
        "copied_from_source", "repeats 6 of its 8 words verbatim from a source context"
    )
    # 8 words, 5 in a run: 0.625.
    assert (
        flags.copied_from_source(
            "So revocation takes effect within minutes everywhere, true?", [CONTEXT], CONFIG
        )
        is None
    )


def test_copied_needs_runs_of_copy_run_words() -> None:
    # Every word is in the context, but never four in a row.
    scattered = "Regions receive requests after revocation within seconds?"
    assert flags.copied_from_source(scattered, [CONTEXT], CONFIG) is None
    assert flags.copied_from_source("Takes effect within 60", [CONTEXT], CONFIG) is not None
    assert flags.copied_from_source("Effect within?", [CONTEXT], CONFIG) is None  # too short
    assert flags.copied_from_source("Takes effect within 60", [], CONFIG) is None


# unsupported_reference ------------------------------------------------------------------------

PASSAGE = Context("Keys are kept for 24 hours after the first request.")


def test_unsupported_reference_on_both_sides_of_its_share() -> None:
    # Claim terms: key, kept, 24, hour, enterprise (5). 4 of 5 found (0.8): supported.
    assert (
        flags.unsupported_reference("Enterprise keys are kept 24 hours.", [PASSAGE], CONFIG) is None
    )
    # enterprise, account, keep, key, 7, day: only "key" found (1 of 6): not supported.
    found = flags.unsupported_reference(
        "Keys are kept for 24 hours. Enterprise accounts keep keys 7 days.", [PASSAGE], CONFIG
    )
    assert found == flags.Flag(
        "unsupported_reference",
        "1 of 2 claims of the reference answer not found in its contexts:"
        " “Enterprise accounts keep keys 7 days.”",
    )
    # support_share 0.15: 1 of 6 is enough.
    assert (
        flags.unsupported_reference(
            "Keys are kept for 24 hours. Enterprise accounts keep keys 7 days.",
            [PASSAGE],
            FlagConfig(support_share=0.15),
        )
        is None
    )


def test_a_bare_yes_or_no_is_no_claim_and_contexts_count_together() -> None:
    two = [Context("Refunds reach cards in 5 to 10 working days."), Context("PayPal takes a day.")]
    reference = "No. Card refunds take 5 to 10 working days; PayPal refunds take a day."
    assert flags.unsupported_reference(reference, two, CONFIG) is None
    assert flags.unsupported_reference(reference, [], CONFIG) is None
    assert flags.unsupported_reference(None, two, CONFIG) is None


# context_not_found, lengths -------------------------------------------------------------------


def test_context_not_found_names_how_many() -> None:
    assert flags.context_not_found([Context("a", found=True)], "v1") is None
    one = flags.context_not_found([Context("a", found=False)], "v1")
    assert one.reason == "its context matches no chunk of chunking 'v1'"
    two = flags.context_not_found([Context("a", False), Context("b"), Context("c", False)], "v2")
    assert two.reason == "2 of its 3 contexts match no chunk of chunking 'v2'"


def test_length_flags_at_their_bounds() -> None:
    assert names([flags.length("Refunds?", CONFIG)]) == ["too_short"]
    assert flags.length("Plus membership price?", CONFIG) is None  # 3 words, min 3
    assert flags.length("Plus price?", CONFIG).reason == "2 words, fewer than 3"
    forty = " ".join(["word"] * 40) + "?"
    assert flags.length(forty, CONFIG) is None
    assert flags.length(forty + " more", CONFIG).reason == "41 words, more than 40"


# duplicates -----------------------------------------------------------------------------------

HYBRID_A = "How many days a week do hybrid employees have to be in the office?"
HYBRID_B = "How many days a week do hybrid staff have to be in the office?"


def similarity(a: str, b: str) -> float:
    return flags.similarity(flags.duplicate_text(a), flags.duplicate_text(b))


def test_similarity_around_the_threshold() -> None:
    assert similarity(HYBRID_A, HYBRID_B) == pytest.approx(85.16, abs=0.01)
    texts = {"a": HYBRID_A, "b": HYBRID_B}
    assert flags.duplicate_pairs(texts, threshold=85) == [("a", "b", 85.2)]
    assert flags.duplicate_pairs(texts, threshold=86) == []
    # A web-search style paraphrase meets its question through content words.
    assert similarity("How do I get the next page of orders?", "next page orders") > 90


def test_different_numbers_are_never_duplicates() -> None:
    assert similarity("How fast must I answer a P1 page?", "How fast must I answer a P2 page?") == 0
    assert similarity("Returns within 30 days?", "Returns within 14 days?") == 0
    # One side without a number: compared as usual.
    assert similarity("When will v1 of the API be switched off?", "v1 api switch off date") > 85


def test_clusters_are_connected_components() -> None:
    pairs = [("a", "b", 90.0), ("b", "c", 88.0), ("x", "y", 95.0)]
    assert flags.clusters(pairs) == {
        "a": ("a", "b", "c"),
        "b": ("a", "b", "c"),
        "c": ("a", "b", "c"),
        "x": ("x", "y"),
        "y": ("x", "y"),
    }


def test_flag_all_finds_duplicates_of_human_questions_without_flagging_them() -> None:
    items = [
        FlagInput("g1", HYBRID_B, "Two days a week.", (Context("Two days a week in the office."),)),
        FlagInput("g2", "What does the showroom charge to sharpen a knife?", None, ()),
    ]
    found = flags.flag_all(items, CONFIG, chunking="default", others={"q058": HYBRID_A})
    assert set(found) == {"g1", "g2"}
    assert found["g1"][0] == flags.Flag(
        "duplicate", "near-duplicate of 1 other question; closest q058 (85/100)", ("q058",)
    )
    assert found["g2"] == []


def test_blocking_and_one_at_a_time_agree_with_all_pairs() -> None:
    rng = random.Random(3)
    stems = ["refund", "card", "days", "webhook", "retry", "limit", "sandbox", "key", "cursor"]
    texts = {}
    for n in range(60):
        words = rng.sample(stems, 4)
        if n % 5 == 0 and texts:
            words = [*rng.choice(list(texts.values())).split()[:-1], rng.choice(stems)]
        texts[f"q{n:02d}"] = " ".join(words)
    exact = set()
    ids = sorted(texts)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            score = similarity(texts[a], texts[b])
            if score >= 85:
                exact.add((a, b))
    blocked = {(a, b) for a, b, _ in flags.duplicate_pairs(texts, threshold=85)}
    assert blocked == exact
    one = {(a, b) for a, b, _ in flags.duplicates_of("q05", texts, threshold=85)}
    assert one == {p for p in exact if "q05" in p}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "refund card",
                "card refund days",
                "retry webhook",
                "webhook retry later",
                "sandbox limit",
                "limit sandbox key",
            ]
        ),
        min_size=2,
        max_size=8,
    ),
    st.randoms(),
)
def test_duplicate_pairs_do_not_depend_on_input_order(texts: list[str], rnd) -> None:
    given_order = {f"q{i}": t for i, t in enumerate(texts)}
    keys = list(given_order)
    rnd.shuffle(keys)
    shuffled = {k: given_order[k] for k in keys}
    assert flags.duplicate_pairs(given_order, threshold=85) == flags.duplicate_pairs(
        shuffled, threshold=85
    )


def test_question_flags_gives_every_flag_but_duplicate() -> None:
    item = FlagInput(
        "g1",
        "Refunds?",
        "Refunds are instant. Always.",
        (Context("Refunds take 5 working days.", found=False),),
    )
    assert names(flags.question_flags(item, CONFIG, chunking="default")) == [
        "unsupported_reference",
        "context_not_found",
        "too_short",
    ]
