"""Benchmark: Ragas files with a huge number of contexts in one cell (#19 item 11).

The probe of issue #19 found that 16,000 contexts in one cell of a Ragas CSV took 11 s to
import and 200,000 did not finish in 180 s; the target is 200,000 in under 5 s. This writes,
for each kind of cell, a Ragas test set (``user_input,reference_contexts``, the cell a Python
list literal as Ragas' ``to_csv`` writes it) and a Ragas results file
(``user_input,response,retrieved_contexts,faithfulness``), and measures:

- **reader**: the Ragas reader in this process (``iter_items`` and ``as_texts`` on the cell);
- **import ragas**: ``python -m labeler import ragas`` as a whole process (start-up, reading,
  matching every context to the chunks, writing), into a copy of a database holding the demo's
  336 chunks;
- **judge import**: ``python -m labeler judge import`` of the results file, the same way.

Kinds of cell: ``same``, one context repeated (what the probe wrote), and ``distinct``, every
context a different stretch of the demo's text (so about half of them match a chunk fuzzily:
the matching, not the reading, is then what takes the time).

Usage::

    python tests/benchmarks/bench_ragas_cells.py                  # 200,000, both kinds
    python tests/benchmarks/bench_ragas_cells.py --contexts 16000 --kinds same
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from labeler.importers import import_chunks  # noqa: E402
from labeler.readers import as_texts, iter_items  # noqa: E402
from labeler.store import Store  # noqa: E402

DEMO_CHUNKS = REPO / "data" / "demo" / "chunks.jsonl"
TARGET_S = 5.0


def contexts(kind: str, count: int) -> list[str]:
    if kind == "same":
        return ["Each order can be returned within 30 days of delivery."] * count
    texts = [json.loads(line)["text"] for line in DEMO_CHUNKS.open(encoding="utf-8")]
    words = " ".join(texts).split()
    draw = random.Random(19)
    out = []
    for i in range(count):
        start = draw.randrange(len(words) - 60)
        out.append(f"<{i % 3 + 1}-hop>\n\n" + " ".join(words[start : start + draw.randint(20, 60)]))
    return out


def csv_cell(values: list[str]) -> str:
    return '"' + repr(values).replace('"', '""') + '"'


def write_files(folder: Path, kind: str, count: int) -> tuple[Path, Path]:
    cell = csv_cell(contexts(kind, count))
    testset = folder / f"testset-{kind}.csv"
    testset.write_text(f"user_input,reference_contexts\nHow are returns made?,{cell}\n", "utf-8")
    results = folder / f"results-{kind}.csv"
    results.write_text(
        "user_input,response,retrieved_contexts,faithfulness\n"
        f"How are returns made?,Within 30 days.,{cell},0.9\n",
        encoding="utf-8",
    )
    return testset, results


def read_cell(path: Path, field: str) -> tuple[float, int]:
    started = time.perf_counter()
    found = 0
    for line, record in iter_items(path):
        found += len(as_texts(record[field], path=path, line=line, field=field))
    return time.perf_counter() - started, found


def command(args: list[str], db: Path, base: Path) -> tuple[float, int, str]:
    shutil.copyfile(base, db)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "labeler", *args, "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    first = (done.stdout or done.stderr).splitlines()[0] if (done.stdout or done.stderr) else ""
    return elapsed, done.returncode, first


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--contexts", type=int, default=200_000, help="contexts in the cell")
    parser.add_argument("--kinds", default="same,distinct", help="same, distinct or both")
    options = parser.parse_args()
    print(f"{options.contexts:,} contexts in one cell; target < {TARGET_S:g} s")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        base = folder / "base.db"
        with Store(base) as store:
            import_chunks(store, DEMO_CHUNKS)
            store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for kind in options.kinds.split(","):
            testset, results = write_files(folder, kind, options.contexts)
            size = testset.stat().st_size / 1e6
            reader, found = read_cell(testset, "reference_contexts")
            assert found == options.contexts, found
            ragas = command(["import", "ragas", str(testset)], folder / "a.db", base)
            judge = command(["judge", "import", str(results)], folder / "b.db", base)
            print(
                f"{kind:>8}: cell {size:5.1f} MB  reader {reader:5.2f} s"
                f"  import ragas {ragas[0]:5.2f} s (exit {ragas[1]})"
                f"  judge import {judge[0]:5.2f} s (exit {judge[1]})"
                f"  (load average {os.getloadavg()[0]:.2f})"
            )
            print(f"          {ragas[2]}")
            print(f"          {judge[2]}")


if __name__ == "__main__":
    main()
