"""Measure: which words the grading page marks on the demo, before and after issue #23's
weighting by rarity.

For every question in the demo's grading queue, its candidate chunks (the pool the grading page
shows) are marked as the page marks them: before, with every word of the question (stop words
aside); after, with ``Search.highlight_terms`` (words in at most HIGHLIGHT_MAX_SHARE of the
chunks; the rarest one when none is). Printed: the marks in all, the words marked most often
each way, with the share of the chunks that hold them, and the words no longer marked.

Usage::

    python tests/benchmarks/bench_highlight.py
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler.demo import DEMO_DIR, load_demo  # noqa: E402
from labeler.grading.candidates import pool  # noqa: E402
from labeler.store import Store, match_spans  # noqa: E402
from labeler.store.search import HIGHLIGHT_MAX_SHARE  # noqa: E402

TOP = 15
NAMED = ("one", "per", "must", "many")  # the words the issue saw lit up


def marked_words(texts: list[str], query: str) -> Counter:
    found: Counter = Counter()
    for text, spans in zip(texts, match_spans(texts, query), strict=True):
        found.update(text[start:end].lower() for start, end in spans)
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "demo.db") as store:
        load_demo(store, DEMO_DIR)
        chunking = store.corpus.current_chunking()
        total = int(store.scalar("SELECT count(*) FROM chunks"))
        before: Counter = Counter()
        after: Counter = Counter()
        for question_id in store.questions.accepted_ids():
            question = store.questions.get(question_id)
            ids = [e.chunk_id for e in pool(store, question, chunking)]
            texts = [c.text for c in store.corpus.get_chunks(chunking, ids).values()]
            before += marked_words(texts, question.text)
            after += marked_words(texts, " ".join(store.search.highlight_terms(question.text)))

        def share(word: str) -> str:
            return f"{store.search._count_upto(word, total) / total:.1%}"

        print(f"demo: {len(store.questions.accepted_ids())} questions, {total} chunks indexed;")
        print(f"cut-off: words in more than {HIGHLIGHT_MAX_SHARE:.0%} of the chunks unmarked")
        print(f"marks in all: before {sum(before.values())}, after {sum(after.values())}")
        for name, counter in (("before", before), ("after", after)):
            words = ", ".join(f"{w} {n} ({share(w)})" for w, n in counter.most_common(TOP))
            print(f"most marked {name}: {words}")
        dropped = [w for w, _ in before.most_common() if w not in after][:TOP]
        print("no longer marked: " + ", ".join(f"{w} ({share(w)})" for w in dropped))
        print(
            "the issue's words, marks before -> after: "
            + ", ".join(f"{w} {before[w]} -> {after[w]} ({share(w)})" for w in NAMED)
        )


if __name__ == "__main__":
    main()
