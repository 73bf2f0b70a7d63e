"""How likely an unjudged chunk is to be relevant, learnt from the judged chunks at similar ranks.

The model (after Carterette, Allan and Sitaraman, "Minimal test collections for retrieval
evaluation", SIGIR 2006, who estimate the probability of relevance of an unjudged document from
the judged ones and carry it into a distribution of the difference between two systems):

- A chunk's *cell* is the pair (band of its rank in run A, band of its rank in run B), a band
  being one of ranks 1, 2, 3, 4, 5, 6-7, 8-10, 11-15, 16-20, 21-30, 31-50, 51-100, 101+ or
  "not returned". Ranks count at any depth, not only within the cutoff: a chunk B ranks 12th
  is likelier to be relevant than one B never returned.
- Within a cell, grades 0/1/2 follow one distribution, unknown, with a Dirichlet posterior:
  every labelled chunk either run returned (any question) is an observation of its cell. A
  question's labels are correlated (it has one to three relevant chunks), so a question's m
  labels in a cell (or a band) count as sqrt(m) observations (``_clustered``).
- Cells borrow strength hierarchically, so a cell nobody has labelled yet is not a blind
  guess: a global distribution (Dirichlet(1, 1, 1) prior); a distribution per band shared by
  both runs (prior: the global one, worth ``BAND_STRENGTH`` labels); each run's own
  distribution per band of its ranks (prior: the shared band, worth ``RUN_STRENGTH``
  labels), which is where one run's rank 3 proves better than the other's; and the cell,
  centred on the naive-Bayes combination of its two bands (A's band x B's band / global) and
  worth ``CELL_STRENGTH`` labels. The shared level matters: the runs start on an equal
  footing, so labels that happen to fall on one run's chunks first inform the other run's
  bands alike, and the model cannot favour a run merely because its chunks were labelled
  first.
- Given the cell distributions, chunks are independent.

``sample`` draws the whole hierarchy afresh for every simulated world, so the uncertainty of
the estimates (large while few chunks are labelled) widens the distribution of the difference,
and one world's cells move together: what keeps "likely" honest early on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Lower edges of the rank bands; band 0 is "not returned".
BAND_EDGES = np.array([1, 2, 3, 4, 5, 6, 8, 11, 16, 21, 31, 51, 101])
BANDS = len(BAND_EDGES) + 1
CELLS = BANDS * BANDS
# Prior strengths, in labels. Chosen by measurement (tests/benchmarks/bench_label_next.py and
# random-order labelling of the demo). RUN_STRENGTH is high on purpose: the two runs' bands are
# taken to be alike until the labels insist; at 2 a few lucky labels named a wrong winner on
# close synthetic pairs. CELL_STRENGTH: a cell gathers chunks of many questions, so one label
# must not speak for all of them; at 2 a single relevant chunk (one of bm25's, at its rank 10)
# made bm25 "likely" better than hybrid on the demo's precision@10 after 40 labels.
BAND_STRENGTH = 2.0
RUN_STRENGTH = 30.0
CELL_STRENGTH = 10.0


def band(rank: np.ndarray) -> np.ndarray:
    """Band of each 1-based rank (0: not returned, rank 0)."""
    rank = np.asarray(rank).astype(np.int64)
    return np.where(rank > 0, np.searchsorted(BAND_EDGES, rank, side="right"), 0)


def cell(rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    return band(rank_a) * BANDS + band(rank_b)


@dataclass(frozen=True, slots=True, eq=False)
class RelevanceModel:
    """Weighted counts of each grade per cell and per band of each run, from the labelled
    chunks the runs returned."""

    counts: np.ndarray  # (BANDS, BANDS, 3): weighted labels of each grade per cell
    counts_a: np.ndarray  # (BANDS, 3): per band of A's rank
    counts_b: np.ndarray  # (BANDS, 3): per band of B's rank

    @classmethod
    def fit(
        cls,
        rank_a: np.ndarray,
        rank_b: np.ndarray,
        grade: np.ndarray,
        question: np.ndarray | None = None,
    ) -> RelevanceModel:
        """Count the observations of each cell, level by level (see ``_clustered``)."""
        grade = np.asarray(grade).astype(np.int64)
        keep = (grade >= 0) & (grade <= 2)
        a, b, g = band(rank_a)[keep], band(rank_b)[keep], grade[keep]
        # Without questions, every label is its own cluster.
        q = np.arange(len(g)) if question is None else np.asarray(question)[keep]
        cells = np.zeros((BANDS, BANDS, 3))
        np.add.at(cells, (a, b, g), _clustered(q, a * BANDS + b))
        by_a = np.zeros((BANDS, 3))
        np.add.at(by_a, (a, g), _clustered(q, a))
        by_b = np.zeros((BANDS, 3))
        np.add.at(by_b, (b, g), _clustered(q, b))
        return cls(cells, by_a, by_b)

    def sample(self, rng: np.random.Generator, worlds: int) -> np.ndarray:
        """(worlds, CELLS, 3) grade distributions per cell, one draw of the hierarchy each."""
        n = self.counts
        in_a, in_b = self.counts_a, self.counts_b
        overall = _dirichlet(rng, np.broadcast_to(1.0 + in_a.sum(axis=0), (worlds, 3)))
        shared = _dirichlet(rng, BAND_STRENGTH * overall[:, None, :] + (in_a + in_b)[None])
        by_a = _dirichlet(rng, RUN_STRENGTH * shared + in_a[None])
        by_b = _dirichlet(rng, RUN_STRENGTH * shared + in_b[None])
        centre = by_a[:, :, None, :] * by_b[:, None, :, :] / overall[:, None, None, :]
        centre += 1e-12  # three underflowing grades would leave nothing to normalise
        centre /= centre.sum(axis=-1, keepdims=True)
        cells = _dirichlet(rng, CELL_STRENGTH * centre + n[None])
        return cells.reshape(worlds, CELLS, 3)


def _clustered(question: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Weight of each label within its group (a cell, a band): a question's m labels in one
    group count as sqrt(m) labels, not m. The labels of one question are not independent (a
    question has one to three relevant chunks; label-next grades a question's chunks
    together), and counting them as independent made the model sure of itself after labelling
    a few questions. sqrt(m) is the effective sample size of m labels with an intra-question
    correlation of about 0.2 (m / (1 + (m - 1) * rho))."""
    if len(question) == 0:
        return np.zeros(0)
    _, inverse, counts = np.unique(
        np.stack([question, group]), axis=1, return_inverse=True, return_counts=True
    )
    return 1.0 / np.sqrt(counts[inverse.reshape(-1)])


def _dirichlet(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """Dirichlet draws along the last axis, for an array of parameters (numpy's own takes one
    parameter vector at a time)."""
    draws = rng.standard_gamma(np.maximum(alpha, 1e-9))
    total = draws.sum(axis=-1, keepdims=True)
    # Tiny parameters can underflow every gamma draw to 0: fall back to the mean.
    flat = total[..., 0] <= 0
    if flat.any():
        draws[flat] = alpha[flat] if alpha.shape == draws.shape else 1.0
        total = draws.sum(axis=-1, keepdims=True)
    return draws / total


__all__ = ["BANDS", "BAND_EDGES", "CELLS", "RelevanceModel", "band", "cell"]
