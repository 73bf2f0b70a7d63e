"""Benchmark: the pooling search against exact BM25 on real text (Debian's documentation).

Prints issue #13's table for a real corpus at several sizes: recall@10 and nDCG@10 of the
pooling search and of exact BM25 (FTS5's plain ranking over every word of the question),
their top-10 overlap, and the time per question of each (wall and CPU).

The corpus (kept outside the repository; nothing here reaches the network):

    mkdir -p /work/bench-data/debian-docs/debs && cd /work/bench-data/debian-docs/debs
    apt-get download linux-doc-6.1 python3.11-doc postgresql-doc-15 perl-doc \\
        debian-reference-en dict-gcide manpages manpages-dev bash-doc
    mkdir -p ../root && for f in *.deb; do dpkg-deb -x "$f" ../root; done
    python tests/benchmarks/bench_pooling_real.py --source /work/bench-data/debian-docs/root

Text is taken from the HTML manuals (Python, PostgreSQL, the Debian Reference), the kernel's
Documentation tree (its source text, not its HTML rendering of the same), Perl's POD, the man
pages and the GNU Collaborative International Dictionary of English; markup is stripped.
Chunks are windows of three sentences moving one sentence at a time (as overlapping chunkings
do), so each sentence is in up to three chunks.

Questions are made from the text, as a user who read one passage would ask about it: a chunk
is drawn at random, and the question takes 3-8 words of its middle sentence, in order (stop
words and short words left out), after an opener ("how does", "what is"...). The chunk whose
middle sentence it is answers it (grade 2); the two other windows holding that sentence help
(grade 1). Questions are drawn from the smallest size's chunks, so every size has them all;
a bigger size adds documents around them.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import math
import os
import random
import re
import resource
import statistics
import sys
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from labeler.importers import import_chunks  # noqa: E402
from labeler.store import Store  # noqa: E402
from labeler.store.search import STOP_WORDS  # noqa: E402

OPENERS = ("how does", "what is", "why is", "when does", "which", "how to", "what are")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])|\n\s*\n")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
MAX_WORDS = 120


# the corpus ---------------------------------------------------------------------------------


class _Text(HTMLParser):
    """The visible text of an HTML page, one block per paragraph-like element."""

    BLOCKS = frozenset("p div li dt dd h1 h2 h3 h4 h5 h6 pre tr br table section".split())

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in ("script", "style", "nav"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "nav") and self.skip:
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def _html_text(raw: str) -> str:
    parser = _Text()
    parser.feed(raw)
    return "".join(parser.parts)


def _man_text(raw: str) -> str:
    lines = []
    for line in raw.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        if line.startswith("."):
            words = line.split(maxsplit=1)
            line = words[1] if len(words) > 1 and words[0] in (".SH", ".SS", ".B", ".I") else ""
        lines.append(re.sub(r"\\f[BIRP]|\\[-(e&]|\\\(..", "", line))
    return "\n".join(lines)


def _pod_text(raw: str) -> str:
    text = re.sub(r"^=(\w+)\s*", "", raw, flags=re.MULTILINE)
    return re.sub(r"[A-Z]<+([^<>]*)>+", r"\1", text)


def _gunzip(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def documents(source: Path) -> Iterator[tuple[str, str, str]]:
    """(doc id, title, text) for every document of the extracted packages."""
    share = source / "usr" / "share"
    for path in sorted(share.rglob("*")):
        if not path.is_file():
            continue
        name = path.name
        rel = str(path.relative_to(source))
        try:
            if name.endswith(".html") and "linux-doc" not in rel:  # the kernel's: raw below
                text = _html_text(path.read_text(encoding="utf-8", errors="replace"))
            elif "/man/" in rel and name.endswith(".gz"):
                text = _man_text(_gunzip(path))
            elif "linux-doc" in rel and "/Documentation/" in rel and name.endswith(".gz"):
                text = _gunzip(path)
            elif name.endswith(".pod"):
                text = _pod_text(path.read_text(encoding="utf-8", errors="replace"))
            elif name == "gcide.dict.dz":
                yield from _dictionary(_gunzip(path), rel)
                continue
            else:
                continue
        except (OSError, EOFError, ValueError):
            continue
        title = re.sub(r"\.(gz|html|pod|txt|rst)$", "", name)
        yield rel, title, html.unescape(text)


def _dictionary(raw: str, rel: str) -> Iterator[tuple[str, str, str]]:
    """GCIDE's entries, fifty to a document."""
    entries = [e for e in re.split(r"\n(?=\S)", raw) if len(e.split()) > 3]
    for start in range(0, len(entries), 50):
        block = entries[start : start + 50]
        yield f"{rel}#{start // 50}", block[0].split("\n", 1)[0][:60], "\n\n".join(block)


def sentences(text: str) -> list[str]:
    found = []
    for part in SENTENCE.split(text):
        words = part.split()
        while len(words) > 40:  # a run-on block (a table, a code listing): cut it
            found.append(" ".join(words[:40]))
            words = words[40:]
        if len(words) >= 3:
            found.append(" ".join(words))
    return found


def build_corpus(source: Path, out: Path) -> int:
    """Write chunks.jsonl: windows of three sentences, one sentence apart, per document."""
    count = 0
    with out.open("w", encoding="utf-8") as f:
        for doc_id, title, text in documents(source):
            said = sentences(text)
            for at in range(len(said)):
                window = said[max(0, at - 1) : at + 2]
                body = " ".join(window)
                words = body.split()
                if len(words) > MAX_WORDS:
                    body = " ".join(words[:MAX_WORDS])
                record = {
                    "id": f"{doc_id}@{at}",
                    "doc_id": doc_id,
                    "title": title,
                    "text": body,
                    "middle": said[at],
                }
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
    return count


def subsets(corpus: Path, sizes: list[int], seed: int, workdir: Path) -> dict[int, Path]:
    """Nested corpora of whole documents, in one seeded random order of the documents."""
    by_doc: dict[str, list[str]] = {}
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)["doc_id"]
            by_doc.setdefault(doc, []).append(line)
    order = sorted(by_doc)
    random.Random(seed).shuffle(order)
    files = {}
    for size in sizes:
        path = workdir / f"chunks_{size}.jsonl"
        files[size] = path
        if path.exists():
            continue
        taken = 0
        with path.open("w", encoding="utf-8") as out:
            for doc in order:
                if taken >= size:
                    break
                for line in by_doc[doc]:
                    record = json.loads(line)
                    record.pop("middle")
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                taken += len(by_doc[doc])
    return files


def make_questions(corpus: Path, smallest: Path, count: int, seed: int) -> list[dict]:
    """Questions from random chunks of the smallest corpus, with their graded answers."""
    ids = {json.loads(line)["id"] for line in smallest.open(encoding="utf-8")}
    middles: dict[str, str] = {}
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record["id"] in ids:
                middles[record["id"]] = record["middle"]
    rng = random.Random(seed)
    questions = []
    for chunk_id in rng.sample(sorted(middles), len(middles)):
        words = [
            w.lower()
            for w in WORD.findall(middles[chunk_id])
            if len(w) > 2 and w.lower() not in STOP_WORDS
        ]
        if len(set(words)) < 4:
            continue
        start = rng.randint(0, max(0, len(words) - 8))
        picked = words[start : start + rng.randint(3, 8)]
        doc, at = chunk_id.rsplit("@", 1)
        relevant = {chunk_id: 2}
        for near in (int(at) - 1, int(at) + 1):
            if f"{doc}@{near}" in ids:
                relevant[f"{doc}@{near}"] = 1
        text = f"{rng.choice(OPENERS)} {' '.join(picked)}?"
        questions.append({"id": f"r{len(questions):04d}", "text": text, "relevant": relevant})
        if len(questions) == count:
            break
    return questions


# measuring ----------------------------------------------------------------------------------


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def ndcg10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(c, 0) / math.log2(i + 2) for i, c in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def recall10(ranked: list[str], relevant: dict[str, int]) -> float:
    return len(set(ranked[:10]) & set(relevant)) / len(relevant)


def measure(db: Path, questions: list[dict]) -> dict[str, float]:
    with Store(db) as store:
        chunking = store.corpus.current_chunking()
        figures: dict[str, list[float]] = {k: [] for k in ("rp", "re", "np", "ne", "ov", "same")}
        times: dict[str, list[float]] = {"pooled": [], "exact": []}
        cpu = {"pooled": 0.0, "exact": 0.0}
        for q in questions:
            results = {}
            for name, search in (
                ("exact", store.search.exact_search),
                ("pooled", store.search.pool_search),
            ):
                c0, t0 = cpu_seconds(), time.perf_counter()
                results[name] = search(chunking, q["text"], limit=10)
                times[name].append(time.perf_counter() - t0)
                cpu[name] += cpu_seconds() - c0
            pooled = [h.chunk_id for h in results["pooled"]]
            exact = [h.chunk_id for h in results["exact"]]
            figures["rp"].append(recall10(pooled, q["relevant"]))
            figures["re"].append(recall10(exact, q["relevant"]))
            figures["np"].append(ndcg10(pooled, q["relevant"]))
            figures["ne"].append(ndcg10(exact, q["relevant"]))
            figures["ov"].append(len(set(pooled) & set(exact)) / max(len(exact), 1))
            figures["same"].append(float(results["pooled"] == results["exact"]))
        n = len(questions)
        out = {k: statistics.mean(v) for k, v in figures.items()}
        for name in times:
            ms = sorted(t * 1000 for t in times[name])
            out[f"{name}_ms"] = statistics.mean(ms)
            out[f"{name}_p95"] = ms[max(0, math.ceil(0.95 * n) - 1)]
            out[f"{name}_cpu_ms"] = cpu[name] / n * 1000
        return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=Path("/work/bench-data/debian-docs/root"))
    parser.add_argument("--workdir", type=Path, default=Path("/work/bench-data/debian-docs/work"))
    parser.add_argument("--sizes", default="20000,200000,1000000")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(
        f"bench_pooling_real: sizes {sizes}, {args.questions} questions, seed {args.seed};"
        f" {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.2f}"
    )
    corpus = args.workdir / "chunks_all.jsonl"
    if not corpus.exists():
        started = time.perf_counter()
        total = build_corpus(args.source, corpus)
        print(
            f"corpus: {total:,} chunks from {args.source} in {time.perf_counter() - started:.0f} s"
        )
    else:
        total = sum(1 for _ in corpus.open(encoding="utf-8"))
        print(f"corpus: reusing {corpus} ({total:,} chunks)")
    sizes = [s for s in sizes if s <= total] or [total]
    files = subsets(corpus, sizes, args.seed, args.workdir)
    questions = make_questions(corpus, files[sizes[0]], args.questions, args.seed)
    print(f"questions: {len(questions)}, e.g. {questions[0]['text']!r}")
    rows = []
    for size in sizes:
        db = args.workdir / f"real_{size}.db"
        if not db.exists():
            started, c0 = time.perf_counter(), cpu_seconds()
            with Store(db) as store:
                report = import_chunks(store, files[size])
            print(
                f"  import {size:,}: {time.perf_counter() - started:.0f} s"
                f" (cpu {cpu_seconds() - c0:.0f} s) {report.summary()}"
            )
        with Store(db) as store:
            chunks = store.corpus.count_chunks()
        load = os.getloadavg()[0]
        figures = measure(db, questions)
        rows.append((chunks, figures, load))
        print(f"  measured {chunks:,} chunks (load average {load:.2f})")
    print(
        "\n| chunks | recall@10 pooled / exact | nDCG@10 pooled / exact | top-10 overlap"
        " | identical | ms per question pooled / exact (p95) | CPU ms pooled / exact | load |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for chunks, f, load in rows:
        print(
            f"| {chunks:,} | {f['rp']:.3f} / {f['re']:.3f} | {f['np']:.3f} / {f['ne']:.3f}"
            f" | {f['ov']:.2f} | {f['same']:.2f} | {f['pooled_ms']:.0f} / {f['exact_ms']:.0f}"
            f" ({f['pooled_p95']:.0f} / {f['exact_p95']:.0f}) | {f['pooled_cpu_ms']:.0f} /"
            f" {f['exact_cpu_ms']:.0f} | {load:.2f} |"
        )


if __name__ == "__main__":
    main()
