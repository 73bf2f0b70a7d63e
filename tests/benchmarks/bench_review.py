"""Benchmark: the review of generated questions at 50,000 questions.

Targets (issue #9):

- flags for 50,000 generated questions, duplicates included: under 30 s;
- ``labeler review list --format json`` over them: under 2 s;
- on the review page with 50,000 pending questions, a decision key to the next question on
  screen: p95 under 300 ms, in Chromium (Debian's, through Playwright).

Usage::

    python tests/benchmarks/bench_review.py                        # the full size (~5 min)
    python tests/benchmarks/bench_review.py --questions 5000 --keys 20   # a quick look
    python tests/benchmarks/bench_review.py --no-browser            # skip the page

The data is synthetic and made from ``--seed``: a corpus of chunks (60-120 words from a
Zipf-like vocabulary whose head is English function words), generated questions written from
one chunk each (an opener and content words of the chunk), with a reference answer cut from
the chunk (some with words the chunk lacks), a tenth of them near-duplicates of another (a word
dropped, swapped or changed), a few copied straight from their chunk, and 1,000 human
questions. They are imported as a user would (``labeler import questions``, contexts given as
chunk ids). Also measured: how many of the duplicate pairs that scoring all pairs finds,
blocking finds, on a sample (all pairs of 50,000 would take an hour).

Nothing here asserts on time: it prints the figures, CPU time beside wall time, and the load
average, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # measure this checkout's labeler
    sys.path.insert(0, str(REPO))

from labeler import flags, review  # noqa: E402
from labeler.importers import import_chunks, import_questions  # noqa: E402
from labeler.store import QueueFilter, Store  # noqa: E402

HEAD = (
    "the of and to a in is that for it as with was on be by this are or from at an which not"
    " but have has can all more one their also its if will other used when there may these"
).split()
OPENERS = (
    "how do i",
    "what is the",
    "why does the",
    "when should",
    "which",
    "how can the",
    "what happens to",
    "can i",
)
TARGETS = {"flags_s": 30.0, "list_s": 2.0, "key_p95_ms": 300.0}


def vocabulary(rng: random.Random, size: int) -> list[str]:
    onsets = ["", *"bcdfghjklmnprstvwz", "br", "ch", "dr", "fl", "gr", "pl", "st", "th", "tr"]
    vowels = [*"aeiouaeioy", "ai", "ea", "ou"]
    codas = ["", "", *"lmnrstk", "nd", "ng", "st"]
    words, seen = list(HEAD), set(HEAD)
    while len(words) < size:
        word = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
            for _ in range(rng.choice((1, 2, 2, 3)))
        )
        if len(word) > 2 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def generate(workdir: Path, *, questions: int, chunks: int, humans: int, seed: int) -> dict:
    rng = random.Random(seed)
    vocab = vocabulary(rng, 30_000)
    weights = [1.0 / (r + 2.7) for r in range(len(vocab))]
    cumulative = list(_accumulate(weights))

    def draw(k: int) -> list[str]:
        return rng.choices(vocab, cum_weights=cumulative, k=k)

    chunk_rows, chunk_words = [], []
    for n in range(chunks):
        words = draw(rng.randint(60, 120))
        chunk_words.append(words)
        sentences = [words[i : i + 15] for i in range(0, len(words), 15)]
        text = " ".join(" ".join(s).capitalize() + "." for s in sentences)
        chunk_rows.append({"id": f"c{n:06d}", "doc_id": f"d{n // 8:05d}", "text": text})
    rows, texts = [], []
    for n in range(questions):
        source = rng.randrange(chunks)
        words = chunk_words[source]
        content = [w for w in words if w not in HEAD]
        if texts and rng.random() < 0.1:  # a near-duplicate of an earlier question
            tokens = rng.choice(texts).rstrip("?").split()
            edit = rng.random()
            if edit < 0.4 and len(tokens) > 6:
                del tokens[rng.randrange(3, len(tokens))]
            elif edit < 0.7:
                i, j = rng.sample(range(3, len(tokens)), 2)
                tokens[i], tokens[j] = tokens[j], tokens[i]
            else:
                tokens[rng.randrange(3, len(tokens))] = rng.choice(content or words)
            text = " ".join(tokens) + "?"
        elif rng.random() < 0.02:  # copied from its chunk
            start = rng.randrange(max(len(words) - 12, 1))
            text = "is it true that " + " ".join(words[start : start + 10]) + "?"
        else:
            picked = rng.sample(content, min(len(content), rng.randint(4, 9)))
            text = rng.choice(OPENERS) + " " + " ".join(picked) + "?"
        start = rng.randrange(max(len(words) - 25, 1))
        reference = words[start : start + rng.randint(12, 25)]
        if rng.random() < 0.1:  # a claim the chunk does not support
            reference = reference + draw(8)
        texts.append(text)
        rows.append(
            {
                "id": f"g{n:06d}",
                "origin": "generated",
                "generator": rng.choice(("ragas", "deepeval", "in-house")),
                "question": text,
                "reference": " ".join(reference).capitalize() + ".",
                "contexts": [chunk_rows[source]["id"]],
                "metadata": {
                    "synthesizer": rng.choice(("single_hop", "multi_hop_abstract", "multi_hop")),
                    "persona": rng.choice(("developer", "agent", "analyst", "new employee")),
                },
            }
        )
    for n in range(humans):  # a third repeated by a generator, the rest its own
        if rng.random() < 0.3:
            text = rng.choice(texts)
        else:
            words = chunk_words[rng.randrange(chunks)]
            text = rng.choice(OPENERS) + " " + " ".join(rng.sample(words, 6)) + "?"
        rows.append({"id": f"h{n:05d}", "question": text})
    files = {"chunks": workdir / "chunks.jsonl", "questions": workdir / "questions.jsonl"}
    files["chunks"].write_text("".join(json.dumps(r) + "\n" for r in chunk_rows))
    files["questions"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return files


def _accumulate(values):
    total = 0.0
    for v in values:
        total += v
        yield total


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


# the stages -----------------------------------------------------------------------------------


def bench_flags(store: Store) -> float:
    started, cpu0 = time.perf_counter(), cpu()
    refresh = review.ensure_flags(store)
    seconds = time.perf_counter() - started
    counts = store.flags.flag_counts(None)
    print(
        f"flags for {refresh.questions} generated questions: {seconds:.1f} s"
        f" (cpu {cpu() - cpu0:.1f} s; {load()})"
    )
    print("  flagged: " + ", ".join(f"{n} {c}" for n, c in counts.items()))
    texts = store.flags.every_question_text()
    started = time.perf_counter()
    pairs = flags.duplicate_pairs(texts, threshold=review.load_config(store).duplicate_threshold)
    print(
        f"  duplicate pairs alone (blocking): {time.perf_counter() - started:.1f} s, {len(pairs)}"
    )
    return seconds


def blocking_recall(store: Store, sample: int, seed: int) -> None:
    """All pairs of a sample, scored one by one, against blocking on the same sample."""
    from rapidfuzz import fuzz, process

    texts = store.flags.every_question_text()
    rng = random.Random(seed)
    ids = sorted(rng.sample(sorted(texts), min(sample, len(texts))))
    subset = {i: texts[i] for i in ids}
    threshold = review.load_config(store).duplicate_threshold
    flat = [flags.duplicate_text(subset[i]) for i in ids]
    started = time.perf_counter()
    scores = process.cdist(flat, flat, scorer=fuzz.token_set_ratio, score_cutoff=threshold)
    exact = set()
    for i, j in zip(*scores.nonzero(), strict=True):
        if i < j and flags.similarity(flat[i], flat[j]) >= threshold:
            exact.add((ids[i], ids[j]))
    all_pairs = time.perf_counter() - started
    blocked = {(a, b) for a, b, _ in flags.duplicate_pairs(subset, threshold=threshold)}
    print(
        f"blocking on a sample of {len(ids)}: {len(blocked & exact)} of the {len(exact)} pairs"
        f" all-pairs scoring finds (all pairs took {all_pairs:.1f} s), {len(blocked - exact)}"
        " found by blocking alone"
    )


def bench_list(db: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "labeler", "review", "list", "--format", "json"]
    times, cpus = [], []
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "--db", str(db)], env=env, capture_output=True, text=True, check=False
        )
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    count = len(json.loads(done.stdout)["questions"])
    print(
        f"`labeler review list --format json`: {statistics.median(times):.2f} s median of 5,"
        f" {min(times):.2f} s best (cpu {statistics.median(cpus):.2f} s; {count} questions,"
        f" {len(done.stdout) / 1e6:.0f} MB of JSON; {load()})"
    )
    return statistics.median(times)


def bench_page(db: Path, keys: int, extra: tuple[str, ...] = ()) -> float | None:
    """Press A (accept) ``keys`` times; time from the key to the next question's id on screen.
    ``extra``: more ``streamlit run`` options, to compare a server setting."""
    from tests.e2e.server import CHROMIUM, CHROMIUM_ARGS, Server

    if not Path(CHROMIUM).exists():
        print("page: skipped, Debian's chromium is not installed")
        return None
    from playwright.sync_api import sync_playwright

    server = Server(db, extra)
    url = server.url
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            started = time.perf_counter()
            page.goto(f"{url}/review?reviewer=bench")
            page.wait_for_selector(".rv-head")
            print(f"page: first load {time.perf_counter() - started:.1f} s")
            times = []
            for _ in range(keys + 3):
                head = page.locator(".rv-head").first.inner_text()
                page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
                started = time.perf_counter()
                page.keyboard.press("a")
                page.wait_for_function(
                    "prev => { const h = document.querySelector('.rv-head');"
                    " return h && h.textContent !== prev; }",
                    arg=head,
                    polling="raf",
                )
                times.append(time.perf_counter() - started)
                page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")
            browser.close()
    finally:
        server.stop()
    times = [t * 1000 for t in times[3:]]  # the first few warm the caches
    p95 = percentile(times, 95)
    print(
        f"page: key A to the next question on screen, n={len(times)}: p50"
        f" {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, max {max(times):.0f} ms ({load()})"
    )
    return p95


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--humans", type=int, default=1_000)
    parser.add_argument("--keys", type=int, default=40, help="decision keys timed on the page")
    parser.add_argument("--sample", type=int, default=5_000, help="blocking recall sample")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument(
        "--streamlit-option",
        action="append",
        default=[],
        help="more `streamlit run` options for the page, e.g. --runner.postScriptGC=false",
    )
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-review-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"{load()}; work folder {workdir}")
    started = time.perf_counter()
    files = generate(
        workdir, questions=args.questions, chunks=args.chunks, humans=args.humans, seed=args.seed
    )
    print(f"data: generated in {time.perf_counter() - started:.1f} s (not counted)")
    db = workdir / "review.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with Store(db) as store:
        started = time.perf_counter()
        import_chunks(store, files["chunks"])
        report = import_questions(store, files["questions"])
        print(f"import: {time.perf_counter() - started:.1f} s ({report.summary()})")
        figures = {"flags_s": bench_flags(store)}
        again = time.perf_counter()
        review.ensure_flags(store)
        print(f"  flags again, nothing changed: {(time.perf_counter() - again) * 1000:.0f} ms")
        question = review.next_question(store, QueueFilter())
        started = time.perf_counter()
        review.edit(store, question, "bench", text="an edited question about flags", reference="x")
        review.ensure_flags(store)
        print(f"  one edit, then flags: {(time.perf_counter() - started) * 1000:.0f} ms")
        review.undo(store, "bench")
        review.ensure_flags(store)
        blocking_recall(store, args.sample, args.seed)
    figures["list_s"] = bench_list(db)
    if not args.no_browser:
        figures["key_p95_ms"] = bench_page(db, args.keys, tuple(args.streamlit_option))
    print("\ntarget                                   measured      target")
    for name, target in TARGETS.items():
        value = figures.get(name)
        if value is None:
            continue
        verdict = "PASS" if value < target else "MISS"
        print(f"  {name:<36} {value:10.2f} {target:10.2f}   {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
