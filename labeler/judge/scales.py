"""A metric's scale: what a verdict may be, and how verdicts fall into categories.

- ``binary``: 0 (fail) or 1 (pass). Files may say true/false, yes/no, pass/fail too.
- ``ordinal:LO-HI``: a whole number from LO to HI (``ordinal:1-4``); categories in order, so
  disagreement is weighted (quadratic kappa, ordinal alpha).
- ``score``: a number from 0 to 1, as LLM judges give; compared with people through a
  threshold: it passes when score >= threshold (or <= for a metric where lower is better, such
  as DeepEval's Hallucination). People give a score metric pass or fail.

Category codes are 0..K-1 in the scale's order (fail, pass; or LO..HI), the input of
``labeler.agreement``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from labeler.errors import LabelerError

DEFAULT_THRESHOLD = 0.5
MAX_ORDINAL_LEVELS = 21
PASS_WHEN = (">=", "<=")
_ORDINAL = re.compile(r"^ordinal:(-?\d+)-(-?\d+)$")
_TRUE = frozenset({"1", "true", "yes", "pass", "passed", "y"})
_FALSE = frozenset({"0", "false", "no", "fail", "failed", "n"})


@dataclass(frozen=True, slots=True)
class Scale:
    kind: str  # "binary", "ordinal" or "score"
    low: int = 0
    high: int = 1
    threshold: float | None = None
    pass_when: str = ">="

    @property
    def spec(self) -> str:
        """As written on the command line: ``binary``, ``ordinal:0-2`` or ``score``."""
        return f"ordinal:{self.low}-{self.high}" if self.kind == "ordinal" else self.kind

    @property
    def categories(self) -> int:
        return self.high - self.low + 1 if self.kind == "ordinal" else 2

    @property
    def weights(self) -> str:
        """Kappa weights: quadratic for ordinal scales, none (nominal) otherwise."""
        return "quadratic" if self.kind == "ordinal" else "nominal"

    @property
    def level(self) -> str:
        """Krippendorff's level of measurement: ordinal or nominal."""
        return "ordinal" if self.kind == "ordinal" else "nominal"

    @property
    def labels(self) -> list[str]:
        """The categories' names, in code order."""
        if self.kind == "ordinal":
            return [str(v) for v in range(self.low, self.high + 1)]
        return ["fail", "pass"]

    def passes(self, score: float) -> bool:
        threshold = DEFAULT_THRESHOLD if self.threshold is None else self.threshold
        return score >= threshold if self.pass_when == ">=" else score <= threshold

    def code(self, value: float, passed: bool | None = None) -> int:
        """The category code of a stored verdict. A score rating that says whether it passed
        (a person's verdict, or the judge tool's own decision) is taken at its word."""
        if self.kind == "ordinal":
            return int(value) - self.low
        if self.kind == "binary":
            return int(value)
        if passed is not None:
            return int(passed)
        return int(self.passes(value))

    def describe(self) -> str:
        if self.kind == "binary":
            return "pass (1) or fail (0)"
        if self.kind == "ordinal":
            return f"a whole number from {self.low} to {self.high}"
        threshold = DEFAULT_THRESHOLD if self.threshold is None else self.threshold
        better = "higher" if self.pass_when == ">=" else "lower"
        return f"a score from 0 to 1 ({better} is better); passes at {self.pass_when} {threshold:g}"

    def check(self, value: float) -> str | None:
        """Why ``value`` is not a verdict on this scale, or None when it is one."""
        if not math.isfinite(value):
            return f"expected a number, got {value!r}"
        if self.kind == "binary" and value not in (0, 1):
            return f"expected 0 or 1 (fail or pass) on a binary scale, got {value:g}"
        if self.kind == "ordinal" and (value != int(value) or not self.low <= value <= self.high):
            return f"expected a whole number from {self.low} to {self.high}, got {value:g}"
        if self.kind == "score" and not 0 <= value <= 1:
            return f"expected a score from 0 to 1, got {value:g}"
        return None


RELEVANCE = "relevance"
RELEVANCE_SCALE = Scale("ordinal", 0, 2)


def parse_scale(text: str, *, field: str = "metric-scale") -> Scale:
    """``binary``, ``ordinal:LO-HI`` or ``score`` -> Scale."""
    spec = (text or "").strip().lower()
    if spec in ("binary", "score"):
        return Scale(spec)
    match = _ORDINAL.match(spec)
    if match is None:
        msg = f"expected binary, ordinal:LO-HI (e.g. ordinal:1-4) or score, got {text!r}"
        raise LabelerError(msg, field=field)
    low, high = int(match[1]), int(match[2])
    if not low < high or high - low + 1 > MAX_ORDINAL_LEVELS:
        msg = f"ordinal:{low}-{high}: LO must be below HI, with at most {MAX_ORDINAL_LEVELS} levels"
        raise LabelerError(msg, field=field)
    return Scale("ordinal", low, high)


def parse_verdict(raw: object) -> float | None:
    """A verdict as a number: numbers as they are, true/false, yes/no, pass/fail as 1/0.

    None when it is none of these (the caller names the file, line and field)."""
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, (int, float)):
        return float(raw)
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in _TRUE:
            return 1.0
        if text in _FALSE:
            return 0.0
        try:
            return float(text)
        except ValueError:
            return None
    return None


def parse_threshold(text: str | float, *, field: str = "threshold") -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not 0 <= value <= 1:
        msg = f"expected a threshold from 0 to 1, got {text!r}"
        raise LabelerError(msg, field=field)
    return value


def parse_assignments(pairs: tuple[str, ...] | list[str], *, field: str) -> dict[str, str]:
    """``NAME=VALUE`` options (``--metric-scale faithfulness=score``) -> {name: value}."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.rpartition("=")
        if not equals or not name.strip() or not value.strip():
            msg = f"expected NAME=VALUE, got {pair!r}"
            raise LabelerError(msg, field=field)
        found[name.strip()] = value.strip()
    return found


__all__ = [
    "DEFAULT_THRESHOLD",
    "PASS_WHEN",
    "RELEVANCE",
    "RELEVANCE_SCALE",
    "Scale",
    "parse_assignments",
    "parse_scale",
    "parse_threshold",
    "parse_verdict",
]
