"""Agreement statistics: how far two raters (or many) agree beyond chance, with intervals.

Plain functions over integer category codes ``0 .. K-1`` (a scale's categories in order), so the
judge report and the reviewers' agreement on relevance grades share one implementation. numpy
only; each function states its formula and what it returns when the figure is undefined (None,
never NaN: JSON has no NaN and a reader should not have to guess).

- ``wilson_interval``: the Wilson score interval of a proportion p = x/n,
  centre (p + z²/2n) / (1 + z²/n), half-width z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n); it stays
  inside [0, 1] and is sensible for p near 0 or 1 and for small n, unlike the normal one.
- ``cohen_kappa``: kappa = 1 - Σ w_ij O_ij / Σ w_ij E_ij over the KxK confusion matrix O of the
  two raters, with E_ij = (row_i · col_j) / n the matrix expected by chance from the marginals,
  and disagreement weights w_ij = 0 on the diagonal, 1 off it (nominal: Cohen 1960), or
  (i - j)² / (K - 1)² (quadratic: Cohen 1968, for ordinal scales). Undefined (None) when
  Σ w E = 0: both raters used a single category, and the same one.
- ``bootstrap_kappa_interval``: the percentile interval of kappa over items resampled with
  replacement; draws depend only on the item count, the seed and the resample count.
  Resamples whose kappa is undefined are left out.
- ``spearman``: Pearson's r over the ranks, ties given their average rank.
- ``krippendorff_alpha``: alpha = 1 - (n - 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, from the
  coincidence matrix o_ck = Σ_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1) over the units u with
  m_u ≥ 2 values (units with one value carry no pairable information and are left out),
  n_c = Σ_k o_ck, n = Σ_c n_c. δ²: nominal 1 for c ≠ k; ordinal
  (Σ_{g=c..k} n_g - (n_c + n_k)/2)² (Krippendorff 2011). Any number of raters, missing ratings
  allowed. Undefined (None) with no pairable unit or when every value is the same category.
- ``sign_test``: the exact two-sided binomial test of the discordant items (judge higher vs
  lower) against 1/2: McNemar's exact test for a binary scale.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile
DEFAULT_RESAMPLES = 2000
WEIGHTS = ("nominal", "quadratic")


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of successes/n; None when n is 0."""
    if n <= 0:
        return None
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def weight_matrix(categories: int, weights: str) -> np.ndarray:
    """Disagreement weights w_ij: nominal 1 off the diagonal; quadratic (i-j)²/(K-1)²."""
    if weights not in WEIGHTS:
        msg = f"unknown weights {weights!r}; expected one of {WEIGHTS}"
        raise ValueError(msg)
    index = np.arange(categories)
    if weights == "nominal" or categories < 2:
        return (index[:, None] != index[None, :]).astype(float)
    return (index[:, None] - index[None, :]) ** 2 / float((categories - 1) ** 2)


def confusion_matrix(a: Sequence[int], b: Sequence[int], categories: int) -> np.ndarray:
    """Counts[i, j]: items rater a put in category i and rater b in category j."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        msg = "the two raters must rate the same items"
        raise ValueError(msg)
    flat = np.bincount(a * categories + b, minlength=categories * categories)
    return flat.reshape(categories, categories)


def kappa_from_confusion(confusion: np.ndarray, weights: str = "nominal") -> np.ndarray:
    """Kappa of one KxK confusion matrix or of a stack (..., K, K); NaN where undefined."""
    confusion = np.asarray(confusion, dtype=float)
    w = weight_matrix(confusion.shape[-1], weights)
    n = confusion.sum(axis=(-2, -1))
    rows, cols = confusion.sum(axis=-1), confusion.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows[..., :, None] * cols[..., None, :] / n[..., None, None]
        observed_d = (w * confusion).sum(axis=(-2, -1))
        expected_d = (w * expected).sum(axis=(-2, -1))
        kappa = 1.0 - observed_d / expected_d
    return np.where(expected_d > 0, kappa, np.nan)


def _float_or_none(value: float) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def cohen_kappa(
    a: Sequence[int], b: Sequence[int], *, categories: int, weights: str = "nominal"
) -> float | None:
    """Cohen's kappa of two raters over the same items (codes 0..K-1); None when undefined."""
    if len(a) == 0:
        return None
    return _float_or_none(kappa_from_confusion(confusion_matrix(a, b, categories), weights))


def bootstrap_kappa_interval(
    a: Sequence[int],
    b: Sequence[int],
    *,
    categories: int,
    weights: str = "nominal",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of kappa, items resampled with replacement.

    Vectorised: each block of resamples is one bincount over (resample, cell) codes, so 2,000
    resamples of 3,000 items take a few tens of milliseconds. None when fewer than 2 items or
    when kappa is undefined in more than half of the resamples.
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    n = len(a)
    if n < 2:
        return None
    cells = a * categories + b
    rng = np.random.Generator(np.random.PCG64(seed))
    size = categories * categories
    block = max(1, min(resamples, 4_000_000 // n))
    values = []
    done = 0
    while done < resamples:
        count = min(block, resamples - done)
        draws = rng.integers(0, n, size=(count, n))
        codes = cells[draws] + (np.arange(count) * size)[:, None]
        stack = np.bincount(codes.ravel(), minlength=count * size).reshape(
            count, categories, categories
        )
        values.append(kappa_from_confusion(stack, weights))
        done += count
    kappas = np.concatenate(values)
    kappas = kappas[np.isfinite(kappas)]
    if len(kappas) < resamples / 2:
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(kappas, [tail, 100 - tail])
    return float(low), float(high)


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing the mean of the ranks they span."""
    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    # starts of runs of equal values
    boundaries = np.flatnonzero(np.diff(sorted_x)) + 1
    starts = np.concatenate(([0], boundaries))
    ends = np.concatenate((boundaries, [len(x)]))
    mean_rank = (starts + ends + 1) / 2.0  # ranks are 1-based: mean of start+1 .. end
    ranks = np.empty(len(x))
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho with average ranks for ties; None with < 3 items or a constant side."""
    if len(x) != len(y):
        msg = "spearman needs two sequences of the same length"
        raise ValueError(msg)
    if len(x) < 3:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = math.sqrt(float((rx * rx).sum()) * float((ry * ry).sum()))
    if denominator == 0:
        return None
    return float((rx * ry).sum() / denominator)


def value_counts(
    ratings: Iterable[tuple[Hashable, int]], categories: int
) -> tuple[np.ndarray, list[Hashable]]:
    """(unit, category) pairs -> the units x categories count matrix, units in first-seen order."""
    index: dict[Hashable, int] = {}
    units, codes = [], []
    for unit, code in ratings:
        units.append(index.setdefault(unit, len(index)))
        codes.append(code)
    counts = np.zeros((len(index), categories), dtype=float)
    if units:
        np.add.at(counts, (np.asarray(units), np.asarray(codes, dtype=np.int64)), 1)
    return counts, list(index)


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix o_ck from a units x categories count matrix."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    pairable = m >= 2
    counts, m = counts[pairable], m[pairable]
    if len(counts) == 0:
        return np.zeros((counts.shape[1], counts.shape[1]))
    scaled = counts / (m - 1)[:, None]
    return counts.T @ scaled - np.diag(scaled.sum(axis=0))


def delta_squared(totals: np.ndarray, level: str) -> np.ndarray:
    """δ²_ck for the nominal or ordinal metric, given the category totals n_c."""
    k = len(totals)
    index = np.arange(k)
    if level == "nominal":
        return (index[:, None] != index[None, :]).astype(float)
    if level != "ordinal":
        msg = f"unknown level {level!r}; expected 'nominal' or 'ordinal'"
        raise ValueError(msg)
    cumulative = np.concatenate(([0.0], np.cumsum(totals)))
    low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
    between = cumulative[high + 1] - cumulative[low]  # Σ_{g=low..high} n_g
    return (between - (totals[low] + totals[high]) / 2) ** 2


def krippendorff_alpha(counts: np.ndarray, *, level: str = "nominal") -> float | None:
    """Krippendorff's alpha from a units x categories count matrix (see the module docstring)."""
    o = coincidences(counts)
    totals = o.sum(axis=1)
    n = totals.sum()
    if n <= 1:
        return None
    d2 = delta_squared(totals, level)
    expected = float((np.outer(totals, totals) * d2).sum())
    if expected == 0:
        return None
    return 1.0 - (n - 1) * float((o * d2).sum()) / expected


def alpha_of(
    ratings: Iterable[tuple[Hashable, int]], *, categories: int, level: str = "nominal"
) -> float | None:
    """Krippendorff's alpha of (unit, category) ratings: one pair per rater and unit."""
    counts, _ = value_counts(ratings, categories)
    return krippendorff_alpha(counts, level=level)


def sign_test(higher: int, lower: int) -> float | None:
    """Exact two-sided binomial p-value of ``higher`` vs ``lower`` under p = 1/2.

    p = min(1, 2 · P(X ≤ min(higher, lower))), X ~ Binomial(higher + lower, 1/2). None when
    there is no discordant item.
    """
    n = higher + lower
    if n == 0:
        return None
    k = min(higher, lower)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


__all__ = [
    "DEFAULT_RESAMPLES",
    "Z95",
    "alpha_of",
    "average_ranks",
    "bootstrap_kappa_interval",
    "cohen_kappa",
    "coincidences",
    "confusion_matrix",
    "delta_squared",
    "kappa_from_confusion",
    "krippendorff_alpha",
    "sign_test",
    "spearman",
    "value_counts",
    "weight_matrix",
    "wilson_interval",
]
