"""How likely an unjudged chunk is to be relevant, learnt from the judged chunks at similar ranks.

The model (after Carterette, Allan and Sitaraman, "Minimal test collections for retrieval
evaluation", SIGIR 2006, who estimate the probability of relevance of an unjudged document from
the judged ones and carry it into a distribution of the difference between two systems):

- **A smooth curve.** The chance that a chunk is relevant is a logistic function of where the
  two runs put it: whether each returned it and the log of its rank there (at any depth, not
  only within the cutoff: a chunk B ranks 12th is likelier to be relevant than one B never
  returned), written as what the runs share plus how they differ (``features``). A second
  curve gives, among relevant chunks, the chance of grade 2 rather than 1. Both are Bayesian
  logistic regressions with Gaussian priors, fitted to every labelled chunk either run
  returned (any question) and approximated by a Gaussian around their mode (Laplace). The
  prior on how the runs differ is tight (``RUN_SD``, ``RUN_SLOPE_SD``): the runs are taken to
  be alike until the labels insist, so labels that happen to fall on one run's chunks first
  cannot make it look better, and one lucky label cannot bend a whole band of ranks.
- **Cells.** A chunk's cell is the pair (band of its rank in A, band of its rank in B), the
  bands being ranks 1, 2, 3, 4, 5, 6-7, 8-10, 11-15, 16-20, 21-30, 31-50, 51-100, 101+ and
  "not returned". Within a cell, grades follow a Dirichlet centred on the curves, worth
  ``CELL_STRENGTH`` labels, updated by the cell's own labels: where the curve's shape is
  wrong, enough labels in a cell correct it.
- **Correlated labels.** A question's labels are not independent (it has one to three
  relevant chunks, and label-next grades a question's chunks together), so a question's m
  labels count as sqrt(m) observations (``_clustered``).
- Given the cell distributions, chunks are independent.

``sample`` draws the curves from their posterior and the cells around them afresh for every
simulated world, so the uncertainty of the estimates (large while few chunks are labelled)
widens the distribution of the difference, and one world's cells move together: what keeps
"likely" honest early on.

An earlier version estimated each band of each run from its own labels (Dirichlet levels
instead of the curve): one relevant chunk at bm25's rank 13 then made every chunk bm25 ranks
11-15 look relevant, and on the demo's random-order labellings weak was called likely better
than bm25 (which is far better) in 6 of the 281 states that named a winner. With the curve,
none of 203 (tests/benchmarks/bench_label_next.py, section ``random``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Lower edges of the rank bands; band 0 is "not returned".
BAND_EDGES = np.array([1, 2, 3, 4, 5, 6, 8, 11, 16, 21, 31, 51, 101])
BANDS = len(BAND_EDGES) + 1
CELLS = BANDS * BANDS
# A band's rank as the smooth curve sees it (its geometric middle); band 0 is "not returned".
BAND_RANKS = np.array([0, 1, 2, 3, 4, 5, 6.5, 9, 13, 17.9, 25.5, 39.7, 71.4, 150.0])
# Prior standard deviations of the curve's coefficients (logit scale): the intercept and the
# runs' shared effects of being returned and of log-rank are free (``SHARED_SD``); how far the
# runs may differ is not (``RUN_SD`` for being returned, ``RUN_SLOPE_SD`` for log-rank, which
# is multiplied by up to 7 at deep ranks): the runs are taken to be alike until the labels
# insist. Looser, a few lucky labels named a wrong winner on close synthetic pairs, and the
# run with fewer labels looked better merely for being less known.
SHARED_SD = 3.0
RUN_SD = 0.5
RUN_SLOPE_SD = 0.15
# A cell's own labels against the curve: a cell gathers chunks of many questions, so one
# label must not speak for all of them (with 2, one relevant chunk at bm25's rank 10 made it
# "likely" better than hybrid on the demo's precision@10 after 40 labels).
CELL_STRENGTH = 10.0


def band(rank: np.ndarray) -> np.ndarray:
    """Band of each 1-based rank (0: not returned, rank 0)."""
    rank = np.asarray(rank).astype(np.int64)
    return np.where(rank > 0, np.searchsorted(BAND_EDGES, rank, side="right"), 0)


def cell(rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    return band(rank_a) * BANDS + band(rank_b)


def features(rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    """The curve's inputs for chunks at these 1-based ranks (0: not returned): an intercept,
    returned by A plus by B, log-rank in A plus in B, and the same two as A minus B. The sums
    carry what the runs share, the differences how they differ."""
    rank_a = np.asarray(rank_a, dtype=np.float64)
    rank_b = np.asarray(rank_b, dtype=np.float64)
    in_a, in_b = (rank_a > 0).astype(np.float64), (rank_b > 0).astype(np.float64)
    log_a, log_b = np.log2(1.0 + rank_a) * in_a, np.log2(1.0 + rank_b) * in_b
    ones = np.ones(len(rank_a))
    return np.stack([ones, in_a + in_b, log_a + log_b, in_a - in_b, log_a - log_b], axis=1)


PRIOR_SD = np.array([SHARED_SD, SHARED_SD, SHARED_SD, RUN_SD, RUN_SLOPE_SD])


@dataclass(frozen=True, slots=True, eq=False)
class Curve:
    """A Bayesian logistic regression on ``features``: its posterior, Gaussian (Laplace)."""

    mean: np.ndarray
    cov: np.ndarray
    factor: np.ndarray = field(init=False)  # the covariance's Cholesky factor, worked out once

    def __post_init__(self) -> None:
        object.__setattr__(self, "factor", np.linalg.cholesky(self.cov))

    @classmethod
    def fit(cls, x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> Curve:
        """Newton's method to the posterior mode; the covariance is the inverse Hessian."""
        precision = np.diag(1.0 / PRIOR_SD**2)
        beta = np.zeros(x.shape[1])
        for _ in range(50):
            p = 1.0 / (1.0 + np.exp(-(x @ beta)))
            gradient = x.T @ (weight * (y - p)) - precision @ beta
            hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + precision
            step = np.linalg.solve(hessian, gradient)
            beta += step
            if np.abs(step).max() < 1e-8:
                break
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + precision
        return cls(beta, np.linalg.inv(hessian))

    def sample(self, rng: np.random.Generator, worlds: int) -> np.ndarray:
        """Draws from the posterior: ``rng.multivariate_normal(mean, cov, worlds,
        method="cholesky")`` to the last bit and the same stream, without its checks and its
        factorisation on every call (a simulation draws every round)."""
        draws = rng.standard_normal((worlds, len(self.mean))) @ self.factor.T
        draws += self.mean
        return draws


CELL_FEATURES = features(np.repeat(BAND_RANKS, BANDS), np.tile(BAND_RANKS, BANDS))


@dataclass(frozen=True, slots=True, eq=False)
class RelevanceModel:
    """The fitted curves (relevant or not; among the relevant, answers it or helps partly) and
    the weighted counts of each grade per cell."""

    relevant: Curve
    answers: Curve
    counts: np.ndarray  # (BANDS, BANDS, 3): weighted labels of each grade per cell

    @classmethod
    def fit(
        cls,
        rank_a: np.ndarray,
        rank_b: np.ndarray,
        grade: np.ndarray,
        question: np.ndarray | None = None,
    ) -> RelevanceModel:
        grade = np.asarray(grade).astype(np.int64)
        keep = (grade >= 0) & (grade <= 2)
        ra, rb, g = np.asarray(rank_a)[keep], np.asarray(rank_b)[keep], grade[keep]
        # Without questions, every label is its own cluster.
        q = np.arange(len(g)) if question is None else np.asarray(question)[keep]
        x = features(ra, rb)
        weight = _clustered(q, np.zeros(len(g), dtype=np.int64))
        relevant = g >= 1
        a, b = band(ra), band(rb)
        cells = np.zeros((BANDS, BANDS, 3))
        np.add.at(cells, (a, b, g), _clustered(q, a * BANDS + b))
        return cls(
            relevant=Curve.fit(x, relevant.astype(np.float64), weight),
            answers=Curve.fit(x[relevant], (g[relevant] == 2).astype(np.float64), weight[relevant]),
            counts=cells,
        )

    def sample(
        self, rng: np.random.Generator, worlds: int, cells: np.ndarray | None = None
    ) -> np.ndarray:
        """(worlds, cells, 3) grade distributions of ``cells`` (all CELLS by default): the
        curves drawn from their posterior, each cell drawn around them with its own labels.
        Only the cells asked for are drawn: a pool fills a few dozen of the 196."""
        return _dirichlet(rng, self._alpha(rng, worlds, cells))

    def expected(
        self, rng: np.random.Generator, worlds: int, cells: np.ndarray | None = None
    ) -> np.ndarray:
        """(worlds, cells, 3): like ``sample``, but each cell's distribution is its mean given
        the curves (the Dirichlet's mean) rather than a draw around it: the same average over
        many worlds, with less noise, at the cost of no draw of the cells."""
        alpha = self._alpha(rng, worlds, cells)
        return alpha / _last_sum(alpha)

    def _alpha(self, rng: np.random.Generator, worlds: int, cells: np.ndarray | None) -> np.ndarray:
        """The cells' Dirichlet parameters in each world: the curves drawn from their
        posterior, worth CELL_STRENGTH labels, plus each cell's own labels."""
        cells = np.arange(CELLS) if cells is None else np.asarray(cells, dtype=np.int64)
        x = CELL_FEATURES[cells]
        p_relevant = _sigmoid(self.relevant.sample(rng, worlds) @ x.T)
        p_answers = _sigmoid(self.answers.sample(rng, worlds) @ x.T)
        centre = np.empty((worlds, len(cells), 3))
        centre[..., 0] = 1.0 - p_relevant
        np.multiply(p_relevant, 1.0 - p_answers, out=centre[..., 1])
        np.multiply(p_relevant, p_answers, out=centre[..., 2])
        return CELL_STRENGTH * centre + self.counts.reshape(CELLS, 3)[cells]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))


def _clustered(question: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Weight of each label within its group (a cell, a band): a question's m labels in one
    group count as sqrt(m) labels, not m. The labels of one question are not independent (a
    question has one to three relevant chunks; label-next grades a question's chunks
    together), and counting them as independent made the model sure of itself after labelling
    a few questions. sqrt(m) is the effective sample size of m labels with an intra-question
    correlation of about 0.2 (m / (1 + (m - 1) * rho))."""
    if len(question) == 0:
        return np.zeros(0)
    # One whole number per (question, group) pair (both are small and not negative): numpy's
    # unique of pairs (axis=1) took half of a fit.
    key = np.asarray(question, dtype=np.int64) * (int(group.max()) + 1) + group
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return 1.0 / np.sqrt(counts[inverse.reshape(-1)])


def _last_sum(values: np.ndarray) -> np.ndarray:
    """``values.sum(axis=-1, keepdims=True)`` to the last bit (numpy adds a short axis in
    order, from the first value), in a tenth of the time for the three grades."""
    total = values[..., 0].copy()
    for k in range(1, values.shape[-1]):
        total += values[..., k]
    return total[..., None]


def _dirichlet(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """Dirichlet draws along the last axis, for an array of parameters (numpy's own takes one
    parameter vector at a time)."""
    draws = rng.standard_gamma(np.maximum(alpha, 1e-9))
    total = _last_sum(draws)
    # Tiny parameters can underflow every gamma draw to 0: fall back to the mean.
    flat = total[..., 0] <= 0
    if flat.any():
        draws[flat] = alpha[flat] if alpha.shape == draws.shape else 1.0
        total = draws.sum(axis=-1, keepdims=True)
    return draws / total


__all__ = ["BANDS", "BAND_EDGES", "CELLS", "Curve", "RelevanceModel", "band", "cell", "features"]
