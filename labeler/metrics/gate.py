"""The regression gate: fail a CI build when retrieval gets worse than a saved baseline.

``evaluate_gated`` is the whole of it, as ``labeler eval`` runs it: evaluate the runs, and around
that load the baseline and check its options, make sure its metrics are computed, identify the
test set (a version's content hash, or the SHA-256 of a qrels file), gate, and save a baseline.
The pieces, for a library user who wants only one:

``save_baseline`` writes a JSON file: every run's figures, the options they were computed with,
and the test set's identity. ``check_gate`` compares a new evaluation with it:

- the baseline's reference run is its first run (the one saved first);
- the run checked is the new run with the same name, else the first new run;
- every metric of the reference run is checked; one that fell more than ``tolerance`` below
  its baseline value fails the gate, named with both values.

A baseline made with other options (min_grade, order, depth, gains) cannot be compared and
raises; a different test set is allowed but reported as a warning.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from labeler.atomic import write_atomically
from labeler.errors import LabelerError
from labeler.metrics.registry import DEFAULT_KS, parse_metrics
from labeler.metrics.report import Report, build_report
from labeler.metrics.tables import Qrels, Run
from labeler.metrics.types import DEFAULT_OPTIONS, Metric, Options
from labeler.readers import json_file

FORMAT = "labeler-baseline/1"
DEFAULT_TOLERANCE = 0.01
_FLOAT_NOISE = 1e-12


@dataclass(frozen=True, slots=True)
class Baseline:
    """A saved evaluation: ``runs`` maps a run name to its figures (``metrics``: name -> value)."""

    path: str
    options: Mapping[str, Any]
    runs: Mapping[str, Mapping[str, Any]]
    testset: Mapping[str, Any] | None = None

    @property
    def reference_run(self) -> str:
        return next(iter(self.runs))

    def figures(self, run: str | None = None) -> dict[str, float | None]:
        return dict(self.runs[run or self.reference_run]["metrics"])


@dataclass(frozen=True, slots=True)
class GateFailure:
    metric: str
    value: float | None
    baseline: float

    @property
    def message(self) -> str:
        if self.value is None:
            return f"{self.metric} has no figure (no scored question), baseline {self.baseline:.4f}"
        return f"{self.metric} fell to {self.value:.4f}, baseline {self.baseline:.4f}"


@dataclass(frozen=True, slots=True)
class GateResult:
    baseline_path: str
    baseline_run: str
    run: str
    tolerance: float
    checked: tuple[str, ...]
    failures: tuple[GateFailure, ...]
    warnings: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        head = (
            f"Gate: run {self.run!r} against baseline {self.baseline_run!r} "
            f"({self.baseline_path}), tolerance {self.tolerance:.4f}, {len(self.checked)} metrics:"
        )
        if self.passed:
            return f"{head} passed"
        return "\n".join([f"{head} FAILED", *(f"  {f.message}" for f in self.failures)])

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline_path,
            "baseline_run": self.baseline_run,
            "run": self.run,
            "tolerance": self.tolerance,
            "passed": self.passed,
            "checked": list(self.checked),
            "failures": [
                {"metric": f.metric, "value": f.value, "baseline": f.baseline, "message": f.message}
                for f in self.failures
            ],
            "warnings": list(self.warnings),
        }


def baseline_payload(
    runs: Mapping[str, Mapping[str, Any]],
    options: Options,
    testset: Mapping[str, Any] | None = None,
    *,
    metrics: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A baseline file's content: the runs' figures, and the options (and metrics, when given)
    they were computed with."""
    used = options.as_dict() | ({"metrics": list(metrics)} if metrics is not None else {})
    return {
        "format": FORMAT,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "options": used,
        "testset": dict(testset) if testset else None,
        "runs": {name: dict(figures) for name, figures in runs.items()},
    }


def save_baseline(path: str | Path, payload: Mapping[str, Any]) -> Path:
    """Write the baseline atomically (a temporary file, then a rename)."""
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    return write_atomically(path, text.encode("utf-8"))


def load_baseline(path: str | Path) -> Baseline:
    data = json_file(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        msg = f'not a baseline written by --save-baseline (expected "format": "{FORMAT}")'
        raise LabelerError(msg, path=path)
    runs = data.get("runs")
    if not isinstance(runs, dict) or not runs:
        raise LabelerError("holds no run", path=path, field="runs")
    for name, figures in runs.items():
        metrics = figures.get("metrics") if isinstance(figures, dict) else None
        if not isinstance(metrics, dict) or not all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in metrics.values()
        ):
            raise LabelerError(f"run {name!r}: expected metric figures", path=path, field="metrics")
    options = data.get("options")
    if not isinstance(options, dict):
        raise LabelerError("missing", path=path, field="options")
    return Baseline(str(path), options, runs, data.get("testset"))


def check_options(baseline: Baseline, options: Options) -> None:
    """Raise unless the evaluation reads runs and labels as the baseline did."""
    used = options.as_dict()
    for key, value in baseline.options.items():
        if key in used and used[key] != value:
            msg = (
                f"the baseline was computed with {key} = {value!r}, this evaluation uses"
                f" {used[key]!r}: evaluate with the same options or save a new baseline"
            )
            raise LabelerError(msg, path=baseline.path, field=key)


def check_gate(
    baseline: Baseline,
    current: Mapping[str, Mapping[str, float | None]],
    *,
    options: Options,
    tolerance: float = DEFAULT_TOLERANCE,
    testset: Mapping[str, Any] | None = None,
) -> GateResult:
    """Check the new figures (``current``: run -> metric -> value, first run first)."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
        raise LabelerError(f"must be a number >= 0, got {tolerance!r}", field="tolerance")
    if not current:
        raise LabelerError("no run to check against the baseline")
    check_options(baseline, options)
    reference = baseline.reference_run
    run = reference if reference in current else next(iter(current))
    figures = current[run]
    expected = baseline.figures()
    missing = [m for m in expected if m not in figures]
    if missing:
        msg = f"the baseline has {', '.join(missing)}, which this evaluation did not compute"
        raise LabelerError(msg, path=baseline.path, field="metrics")
    failures = []
    for metric, before in expected.items():
        if before is None:
            continue
        now = figures[metric]
        if now is None or before - now > tolerance + _FLOAT_NOISE:
            failures.append(GateFailure(metric, now, float(before)))
    warnings = []
    old_hash = (baseline.testset or {}).get("content_hash")
    new_hash = (testset or {}).get("content_hash")
    if old_hash != new_hash:
        warnings.append(
            f"the baseline was made on test set {old_hash or 'unknown'}, this evaluation uses"
            f" {new_hash or 'unknown'}: the figures may not be comparable"
        )
    return GateResult(
        baseline_path=baseline.path,
        baseline_run=reference,
        run=run,
        tolerance=float(tolerance),
        checked=tuple(m for m, v in expected.items() if v is not None),
        failures=tuple(failures),
        warnings=tuple(warnings),
    )


def gate_metrics(baseline: Baseline) -> Sequence[str]:
    """The metric names the gate will check (the evaluation must compute them)."""
    return list(baseline.figures())


def file_identity(path: str | Path) -> dict[str, str]:
    """A test set given as a qrels file: its path and the SHA-256 of its bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"qrels": str(path), "content_hash": f"sha256:{digest.hexdigest()}"}


def evaluate_gated(
    qrels: Qrels,
    runs: Sequence[Run],
    metrics: str | Sequence[str | Metric],
    *,
    ks: Sequence[int] | str = DEFAULT_KS,
    options: Options = DEFAULT_OPTIONS,
    baseline: str | Path | None = None,
    save_to: str | Path | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    testset: Mapping[str, Any] | None = None,
    qrels_path: str | Path | None = None,
    **report_options: Any,
) -> Report:
    """Evaluate ``runs`` against ``qrels`` (``build_report``), gated and saved as asked.

    ``options`` are the evaluation options a baseline must share (min_grade, order, depth,
    gains). With ``baseline``, the saved figures are loaded, their options checked, their
    metrics computed even if ``metrics`` omits them, and the report carries the gate's verdict
    (``report.gate``). With ``save_to``, the figures are written there as a baseline. The test
    set is ``testset`` (a version's identity) or, for plain qrels, ``file_identity(qrels_path)``.
    """
    if baseline and save_to:
        msg = "use --save-baseline and --baseline in separate runs"
        raise LabelerError(msg, field="baseline")
    wanted = [str(m) for m in parse_metrics(metrics, ks)]
    saved = None
    if baseline:
        saved = load_baseline(baseline)
        check_options(saved, options)
        wanted += [m for m in gate_metrics(saved) if m not in wanted]
    report = build_report(
        qrels, runs, wanted, ks=ks, options=options, testset=testset, **report_options
    )
    if saved is None and not save_to:
        return report
    identity = testset or (file_identity(qrels_path) if qrels_path is not None else None)
    if saved is not None:
        means = {r.run: r.means() for r in report.results}
        verdict = check_gate(saved, means, options=options, tolerance=tolerance, testset=identity)
        report = report.with_gate(verdict)
    if save_to:
        payload = baseline_payload(report.figures(), options, identity, metrics=report.metrics)
        save_baseline(save_to, payload)
    return report


__all__ = [
    "DEFAULT_TOLERANCE",
    "FORMAT",
    "Baseline",
    "GateFailure",
    "GateResult",
    "baseline_payload",
    "check_gate",
    "check_options",
    "evaluate_gated",
    "file_identity",
    "gate_metrics",
    "load_baseline",
    "save_baseline",
]
