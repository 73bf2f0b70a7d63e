"""Benchmark: the memory an import needs for one long line (#8 item 13).

Writes a chunks JSON lines file whose one chunk holds ``--mb`` MB of text (and, for the
baseline, the same file with a short chunk), imports each in a fresh process
(``python -m labeler import chunks``), and prints each process's peak resident memory
(``os.wait4``'s rusage) and the difference: what the long line costs, as a multiple of its size.

Usage::

    python tests/benchmarks/bench_long_line.py            # 50 MB
    python tests/benchmarks/bench_long_line.py --mb 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def peak_mb(args: list[str], env: dict) -> tuple[float, float, int]:
    started = time.perf_counter()
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_maxrss / 1024, time.perf_counter() - started, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=50, help="size of the long line in MB")
    options = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    words = ("lorem ipsum dolor sit amet consectetur adipiscing elit " * 20).encode()
    with tempfile.TemporaryDirectory() as folder:
        rows = {}
        for name, size in (("short", 1), ("long", options.mb * 1_000_000)):
            path = Path(folder) / f"{name}.jsonl"
            with path.open("wb") as out:
                out.write(b'{"id": "c1", "text": "')
                written = 0
                while written < size:
                    piece = words[: size - written]
                    out.write(piece)
                    written += len(piece)
                out.write(b'"}\n')
                out.write((json.dumps({"id": "c2", "text": "a short chunk"}) + "\n").encode())
            db = Path(folder) / f"{name}.db"
            args = [sys.executable, "-m", "labeler", "import", "chunks", str(path), "--db", str(db)]
            rows[name] = peak_mb(args, env)
            print(
                f"{name:>5}: file {path.stat().st_size / 1e6:7.1f} MB  peak {rows[name][0]:7.0f} MB"
                f"  {rows[name][1]:5.1f} s  exit {rows[name][2]}"
            )
        extra = rows["long"][0] - rows["short"][0]
        print(
            f"the {options.mb} MB line costs {extra:.0f} MB: {extra / options.mb:.1f}x its size"
            f" (load average {os.getloadavg()[0]:.2f})"
        )


if __name__ == "__main__":
    main()
