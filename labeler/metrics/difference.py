"""How far apart two runs can still be on each question: d = metric(A) - metric(B).

Two things per metric, over the pool of a ``Contest``:

- ``evaluate(frame, gradings)``: d for every question under each of V complete gradings (a V x
  slots matrix of grades 0/1/2), and whether the question is scored (has a relevant label)
  under it. The simulations, the weights and the tests all go through it; it follows
  ``evaluate``'s conventions (unlabelled chunks outside the pool are not relevant, labels
  outside the pool count in recall's and MAP's denominators and in nDCG's ideal DCG).
- ``bounds(frame)``: the least and greatest d over every grading of the unjudged slots that
  leaves the question scored, and a grading that reaches each. Exact for precision@k, recall@k,
  nDCG and MRR (the proofs are in the docstrings below, and the tests check them against every
  grading of small random cases); for average precision exact when a question has at most
  ``EXACT_AP_UNJUDGED`` unjudged slots (every grading is tried), else sound but wider
  (``_ap_relaxed``).

A question that no grading can score (no relevant label, nothing unjudged) drops out, as it
does from ``evaluate``'s averages; one whose unjudged slots might all be irrelevant "can drop".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from labeler.metrics.contest import Contest
from labeler.metrics.registry import definition_of

EXACT_AP_UNJUDGED = 8  # 2**8 gradings per question: cheap enough to try them all
BIG = np.iinfo(np.int32).max
_CELLS = 1 << 22  # entries per batch of gradings: bounds memory at a few tens of MB
# Grid cells (questions x (m2, m1) counts) per batch of nDCG's bounds. A batch holds about ten
# arrays of this many entries at once: 2 MB each, which the allocator recycles from batch to
# batch, where 32 MB arrays would be fresh memory (page faults, the first call's cost).
_GRID_CELLS = 1 << 18
RELEVANT = 2  # the grade a binary metric's "relevant" is played with
_PACKED_BITS = 20  # nDCG counts a question's grade 2s above this bit, its grade 1s below
_PACKED = 1 << _PACKED_BITS


# -- segments ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """A contest with what every evaluation reuses: masks, discounts, counts outside the pool."""

    contest: Contest
    in_a: np.ndarray
    in_b: np.ndarray
    judged: np.ndarray
    nonempty: np.ndarray
    heads: np.ndarray
    out_relevant: np.ndarray
    min_grade: int
    memo: dict = field(default_factory=dict, repr=False)  # what a metric derives once per frame

    @classmethod
    def of(cls, contest: Contest) -> Frame:
        counts = contest.counts()
        nonempty = counts > 0
        min_grade = contest.options.min_grade
        return cls(
            contest=contest,
            in_a=contest.pos_a >= 0,
            in_b=contest.pos_b >= 0,
            judged=contest.grade >= 0,
            nonempty=nonempty,
            heads=contest.starts[:-1][nonempty],
            out_relevant=contest.out_grades[:, min_grade:].sum(axis=1),
            min_grade=min_grade,
        )

    @property
    def q(self) -> int:
        return self.contest.num_questions

    @property
    def n(self) -> int:
        return self.contest.size

    def segment(self, values: np.ndarray, ufunc=np.add, empty: float | None = None) -> np.ndarray:
        """Per question: ``ufunc`` reduced over its slots (last axis); ``empty`` (default 0,
        in the values' type) where none."""
        values = np.asarray(values)
        shape = (*values.shape[:-1], self.q)
        dtype = values.dtype if empty is None else np.result_type(values.dtype, type(empty))
        out = np.full(shape, 0 if empty is None else empty, dtype=dtype)
        if len(self.heads):
            out[..., self.nonempty] = ufunc.reduceat(values, self.heads, axis=-1)
        return out

    def unjudged_count(self) -> np.ndarray:
        return self.segment((~self.judged).astype(np.int64))

    def judged_relevant(self) -> np.ndarray:
        """Relevant labels per question, inside the pool and out."""
        mine = self.judged & (self.contest.grade >= self.min_grade)
        return self.segment(mine.astype(np.int64)) + self.out_relevant

    def rank_within(self, mask: np.ndarray, key: np.ndarray | None = None) -> np.ndarray:
        """For each slot in ``mask``: how many ``mask`` slots of its question come before it
        (by ``key``, ties by slot order; by slot order when no key). -1 outside the mask."""
        question = self.contest.question
        idx = np.flatnonzero(mask)
        if key is not None:
            idx = idx[np.lexsort((idx, key[idx], question[idx]))]
        ranks = np.full(self.n, -1, dtype=np.int64)
        if len(idx):
            q = question[idx]
            new = np.ones(len(idx), dtype=bool)
            new[1:] = q[1:] != q[:-1]
            first = np.maximum.accumulate(np.where(new, np.arange(len(idx)), 0))
            ranks[idx] = np.arange(len(idx)) - first
        return ranks

    def best_slot(self, mask: np.ndarray, key: np.ndarray) -> np.ndarray:
        """Per question, the slot in ``mask`` with the smallest ``key`` (-1: none)."""
        ranks = self.rank_within(mask, key)
        best = np.full(self.q, -1, dtype=np.int64)
        top = np.flatnonzero(ranks == 0)
        best[self.contest.question[top]] = top
        return best


def discounts(positions: np.ndarray) -> np.ndarray:
    """1 / log2(position + 2) for 0-based positions; 0 for -1 (not in the top k)."""
    out = np.zeros(len(positions))
    inside = positions >= 0
    out[inside] = 1.0 / np.log2(positions[inside] + 2.0)
    return out


def gain_table(frame: Frame) -> np.ndarray:
    return np.array([0.0, 1.0, 2.0] if frame.contest.options.gains == "linear" else [0.0, 1, 3])


def gained(frame: Frame, gradings: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``gain_table(frame)[gradings] * w``, to the last bit (each gain is a small whole number,
    exact in either type), without the table lookup: a lookup by an int8 array took four times
    the rest of a simulated world's nDCG."""
    if frame.contest.options.gains == "linear":
        return gradings * w
    return (gradings + (gradings == 2)) * w


@dataclass(frozen=True, slots=True, eq=False)
class Bounds:
    """Per question, over the gradings of its unjudged slots that leave it scored: the least
    and greatest d, whether any grading scores it, whether one leaves it unscored (it drops
    out of the mean), whether the bounds are exact; and a grading reaching each bound."""

    low: np.ndarray
    high: np.ndarray
    can_score: np.ndarray
    can_drop: np.ndarray
    exact: np.ndarray
    arg_low: np.ndarray
    arg_high: np.ndarray


def _finish(
    frame: Frame,
    low: np.ndarray,
    high: np.ndarray,
    can_score: np.ndarray,
    arg_low: np.ndarray,
    arg_high: np.ndarray,
    exact: np.ndarray | None = None,
) -> Bounds:
    can_drop = frame.judged_relevant() == 0
    low = np.where(can_score, low, 0.0)
    high = np.where(can_score, high, 0.0)
    exact = np.ones(frame.q, dtype=bool) if exact is None else exact
    return Bounds(low, high, can_score, can_drop & can_score | ~can_score, exact, arg_low, arg_high)


def _known(frame: Frame) -> np.ndarray:
    """The judged grades, unjudged slots at 0: the start of every extreme grading."""
    return np.maximum(frame.contest.grade, 0).astype(np.int8)


# -- the metrics -----------------------------------------------------------------------------


class Difference:
    """One metric's d: subclasses give ``values`` (d under gradings; nDCG overrides
    ``evaluate`` itself, to count relevant slots from the grade counts it reads) and
    ``bounds``."""

    binary = True

    def evaluate(self, frame: Frame, gradings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(d, scored), each V x Q, for V complete gradings (V x slots); d is 0 where the
        question is not scored."""
        gradings = np.atleast_2d(gradings)
        relevant = gradings >= frame.min_grade
        total = frame.segment(relevant.astype(np.int64)) + frame.out_relevant
        scored = total > 0
        d = self.values(frame, gradings, relevant, total)
        return np.where(scored, d, 0.0), scored

    def values(self, frame, gradings, relevant, total) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def levels(self) -> tuple[int, ...]:
        """The grades this metric tells apart."""
        return (0, RELEVANT) if self.binary else (0, 1, 2)

    def single_changes(self, frame: Frame, grading: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """d of each slot's question when that slot alone is regraded to each level
        (levels x len(slots)), from the complete ``grading``: one evaluation per level and
        per slot of a question (the additive metrics override it with a formula)."""
        levels = self.levels()
        out = np.zeros((len(levels), len(slots)))
        marked = np.zeros(frame.n, dtype=bool)
        marked[slots] = True
        rank = frame.rank_within(marked)
        at = np.full(frame.n, -1, dtype=np.int64)
        at[slots] = np.arange(len(slots))
        c = frame.contest
        deepest = int(rank.max(initial=-1)) + 1
        variants = [(j, level) for j in range(deepest) for level in range(len(levels))]
        per = max(1, _CELLS // max(frame.n, 1))
        for first in range(0, len(variants), per):
            part = variants[first : first + per]
            gradings = np.repeat(grading[None, :], len(part), axis=0)
            chosen = []
            for row, (j, level) in enumerate(part):
                picked = np.flatnonzero(rank == j)
                gradings[row, picked] = levels[level]
                chosen.append((picked, level))
            d, _ = self.evaluate(frame, gradings)
            for row, (picked, level) in enumerate(chosen):
                out[level, at[picked]] = d[row, c.question[picked]]
        return out

    def bounds(self, frame: Frame) -> Bounds:  # pragma: no cover
        raise NotImplementedError


def _regraded(frame: Frame, grading: np.ndarray, slots: np.ndarray, level: int):
    """For a slot moved from its grade in ``grading`` to ``level``: its question, how its
    relevance changes (-1, 0, +1), and the relevant labels its question then has."""
    relevant = grading >= frame.min_grade
    total = frame.segment(relevant.astype(np.int64)) + frame.out_relevant
    q = frame.contest.question[slots]
    change = int(level >= frame.min_grade) - relevant[slots].astype(np.int64)
    return q, change, total[q] + change


class Precision(Difference):
    """d = (relevant in A's top k - relevant in B's top k) / k: a sum over slots of
    rel x (in A - in B) / k. Exact bounds: every unjudged slot with a positive weight relevant
    (greatest) or none of them; a question with no relevant label must keep one relevant slot
    to stay scored: the one that costs least."""

    def weights(self, frame: Frame) -> np.ndarray:
        return (frame.in_a.astype(np.float64) - frame.in_b) / frame.contest.cut

    def values(self, frame, gradings, relevant, total):
        return frame.segment(relevant * self.weights(frame))

    def single_changes(self, frame: Frame, grading: np.ndarray, slots: np.ndarray) -> np.ndarray:
        w = self.weights(frame)
        d = frame.segment((grading >= frame.min_grade) * w)
        out = []
        for level in self.levels():
            q, change, total = _regraded(frame, grading, slots, level)
            out.append(np.where(total > 0, d[q] + change * w[slots], 0.0))
        return np.array(out)

    def bounds(self, frame: Frame) -> Bounds:
        w = self.weights(frame)
        free = ~frame.judged
        known = _known(frame)
        base = frame.segment(np.where(known >= frame.min_grade, w, 0.0))
        unjudged = frame.unjudged_count()
        needs_one = frame.judged_relevant() == 0
        can_score = ~needs_one | (unjudged > 0)
        out = []
        for sign in (1.0, -1.0):  # greatest, then least
            take = free & (sign * w > 0)
            value = base + frame.segment(np.where(take, w, 0.0))
            grading = known.copy()
            grading[take] = RELEVANT
            lacking = needs_one & (frame.segment(take.astype(np.int64)) == 0) & can_score
            best = frame.best_slot(free, -sign * w)[lacking]
            value[lacking] += w[best]
            grading[best] = RELEVANT
            out.append((value, grading))
        (high, arg_high), (low, arg_low) = out
        return _finish(frame, low, high, can_score, arg_low, arg_high)


class Recall(Difference):
    """d = (relevant in A's top k - relevant in B's top k) / R, R the question's relevant
    labels. Only three counts of the unjudged slots matter: x relevant among those only A
    has, y among those only B has, z among those both have: d = (D + x - y) / (R0 + x + y + z).
    d never decreases in x, never increases in y, and is monotone in z (its numerator keeps
    its sign), so an extreme sits at a corner of the box of counts; when R0 = 0 the all-zero
    corner leaves the question unscored, and the unit points next to it join the candidates.
    Exact."""

    def values(self, frame, gradings, relevant, total):
        hits_a = frame.segment((relevant & frame.in_a).astype(np.int64))
        hits_b = frame.segment((relevant & frame.in_b).astype(np.int64))
        return np.divide(hits_a - hits_b, total, out=np.zeros(hits_a.shape), where=total > 0)

    def single_changes(self, frame: Frame, grading: np.ndarray, slots: np.ndarray) -> np.ndarray:
        relevant = grading >= frame.min_grade
        lead = frame.segment((relevant & frame.in_a).astype(np.int64)) - frame.segment(
            (relevant & frame.in_b).astype(np.int64)
        )
        side = frame.in_a[slots].astype(np.int64) - frame.in_b[slots]
        out = []
        for level in self.levels():
            q, change, total = _regraded(frame, grading, slots, level)
            top = (lead[q] + change * side).astype(np.float64)
            out.append(np.divide(top, total, out=np.zeros(len(slots)), where=total > 0))
        return np.array(out)

    def bounds(self, frame: Frame) -> Bounds:
        free = ~frame.judged
        classes = (
            free & frame.in_a & ~frame.in_b,
            free & ~frame.in_a & frame.in_b,
            free & frame.in_a & frame.in_b,
        )
        sizes = [frame.segment(c.astype(np.int64)) for c in classes]
        known = _known(frame)
        rel = known >= frame.min_grade
        r0 = frame.judged_relevant()
        d0 = frame.segment((rel & frame.in_a).astype(np.int64)) - frame.segment(
            (rel & frame.in_b).astype(np.int64)
        )
        corners = [(i, j, m) for i in (0, 1) for j in (0, 1) for m in (0, 1)]
        x, y, z = (
            np.stack(
                [s * c[axis] for c in corners]
                + [np.minimum(s, 1) * (axis == unit) for unit in range(3)],
                axis=1,
            )
            for axis, s in enumerate(sizes)
        )
        den = r0[:, None] + x + y + z
        valid = den > 0
        d = np.divide(d0[:, None] + x - y, den, out=np.zeros(den.shape), where=valid)
        can_score = valid.any(axis=1)
        pick_high = np.argmax(np.where(valid, d, -np.inf), axis=1)
        pick_low = np.argmin(np.where(valid, d, np.inf), axis=1)
        rows = np.arange(frame.q)
        ranks = [frame.rank_within(c) for c in classes]
        gradings = []
        for pick in (pick_low, pick_high):
            grading = known.copy()
            for cls, rank, counts in zip(classes, ranks, (x, y, z), strict=True):
                wanted = counts[rows, pick][frame.contest.question]
                grading[cls & (rank < wanted)] = RELEVANT
            gradings.append(grading)
        return _finish(
            frame, d[rows, pick_low], d[rows, pick_high], can_score, gradings[0], gradings[1]
        )


class Ndcg(Difference):
    """d = (DCG_A - DCG_B) / ideal DCG. The numerator is a sum over slots of gain x w, with
    w = 1/log2(2 + position in A) - 1/log2(2 + position in B) (0 outside a top k); the ideal
    DCG depends only on how many labels of each grade the question has. So for each count
    (m2, m1) of unjudged slots given grade 2 and grade 1 the ideal is fixed, and the numerator
    is greatest when the grade 2s go to the m2 largest w and the grade 1s to the next m1
    (rearrangement inequality), least with the smallest. Trying every (m2, m1) is exact, in
    O(u^2) per question for u unjudged slots."""

    binary = False

    def w(self, frame: Frame) -> np.ndarray:
        """Each slot's discount in A minus its discount in B (worked out once per frame: a
        simulation scores the same frame in every round)."""
        if "w" not in frame.memo:
            c = frame.contest
            frame.memo["w"] = discounts(c.pos_a) - discounts(c.pos_b)
        return frame.memo["w"]

    def ideal(self, frame: Frame, twos: np.ndarray, ones: np.ndarray) -> np.ndarray:
        """Ideal DCG of a question with ``twos`` labels of grade 2 and ``ones`` of grade 1. The
        table is the frame's, made once as large as any grading can need (a prefix of a larger
        table is the smaller table: its sums run in the same order)."""
        most_twos, most_ones = int(np.max(twos, initial=0)), int(np.max(ones, initial=0))
        table = frame.memo.get("ideal")
        if table is None or table.shape[0] <= most_twos or table.shape[1] <= most_ones:
            widest = int(frame.contest.counts().max(initial=0))
            out = frame.contest.out_grades
            table = self.ideal_table(
                frame,
                max(most_twos, widest + int(out[:, 2].max(initial=0))),
                max(most_ones, widest + int(out[:, 1].max(initial=0))),
            )
            frame.memo["ideal"] = table
        return table[twos, ones]

    def ideal_table(self, frame: Frame, twos: int, ones: int) -> np.ndarray:
        """(twos + 1) x (ones + 1): the ideal DCG for each count of grade 2s and grade 1s."""
        gains = gain_table(frame)
        cut = frame.contest.cut
        cumulative = np.concatenate(
            [[0.0], np.cumsum(1.0 / np.log2(np.arange(twos + ones + 1) + 2.0))]
        )
        t = np.arange(twos + 1)[:, None]
        o = np.arange(ones + 1)[None, :]
        both = t + o
        if cut is not None:
            t, both = np.minimum(t, cut), np.minimum(both, cut)
        return gains[2] * cumulative[t] + gains[1] * (cumulative[both] - cumulative[t])

    def evaluate(self, frame: Frame, gradings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``Difference.evaluate``, its relevant count taken from the two grade counts nDCG
        reads anyway (one sum a simulated world instead of three: the same whole numbers)."""
        gradings = np.atleast_2d(gradings)
        twos, ones = self._counts(frame, gradings)
        total = (twos + ones if frame.min_grade <= 1 else twos) + frame.out_relevant
        scored = total > 0
        return np.where(scored, self._ratio(frame, gradings, twos, ones), 0.0), scored

    @staticmethod
    def _counts(frame: Frame, gradings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The grade 2s and grade 1s among each question's slots, from one sum (the 2s counted
        in the high bits: a question has far fewer than 2**20 slots)."""
        packed = frame.segment((gradings == 2) * _PACKED + (gradings == 1))
        return packed >> _PACKED_BITS, packed & (_PACKED - 1)

    def _ratio(
        self, frame: Frame, gradings: np.ndarray, twos: np.ndarray, ones: np.ndarray
    ) -> np.ndarray:
        out = frame.contest.out_grades
        numerator = frame.segment(gained(frame, gradings, self.w(frame)))
        ideal = self.ideal(frame, twos + out[:, 2], ones + out[:, 1])
        return np.divide(numerator, ideal, out=np.zeros(ideal.shape), where=ideal > 0)

    def single_changes(self, frame: Frame, grading: np.ndarray, slots: np.ndarray) -> np.ndarray:
        c = frame.contest
        gains = gain_table(frame)
        w = self.w(frame)
        numerator = frame.segment(gained(frame, grading, w))
        twos, ones = self._counts(frame, grading)
        twos, ones = twos + c.out_grades[:, 2], ones + c.out_grades[:, 1]
        old = grading[slots]
        table = self.ideal_table(frame, int(twos.max(initial=0)) + 1, int(ones.max(initial=0)) + 1)
        out = []
        for level in self.levels():
            q, _, total = _regraded(frame, grading, slots, level)
            top = numerator[q] + (gains[level] - gains[old]) * w[slots]
            ideal = table[twos[q] + (level == 2) - (old == 2), ones[q] + (level == 1) - (old == 1)]
            ok = (ideal > 0) & (total > 0)
            out.append(np.divide(top, ideal, out=np.zeros(len(slots)), where=ok))
        return np.array(out)

    def bounds(self, frame: Frame) -> Bounds:
        c = frame.contest
        gains = gain_table(frame)
        w = self.w(frame)
        known = _known(frame)
        free = ~frame.judged
        base = frame.segment(gained(frame, known, w))
        judged_twos = frame.segment((frame.judged & (c.grade == 2)).astype(np.int64))
        judged_ones = frame.segment((frame.judged & (c.grade == 1)).astype(np.int64))
        twos0, ones0 = judged_twos + c.out_grades[:, 2], judged_ones + c.out_grades[:, 1]
        relevant0 = frame.judged_relevant()
        unjudged = frame.unjudged_count()
        desc = frame.rank_within(free, -w)
        asc = frame.rank_within(free, w)
        low = np.zeros(frame.q)
        high = np.zeros(frame.q)
        can_score = np.zeros(frame.q, dtype=bool)
        picks = {key: np.zeros((frame.q, 2), dtype=np.int64) for key in ("low", "high")}
        most = int(unjudged.max(initial=0))  # a batch's grid reaches its widest question's
        table = self.ideal_table(
            frame, int(twos0.max(initial=0)) + most, int(ones0.max(initial=0)) + most
        )
        by_size = np.argsort(unjudged, kind="stable")
        # The unjudged slots in that order of their questions: each batch's are a run of them.
        place = np.empty(frame.q, dtype=np.int64)
        place[by_size] = np.arange(frame.q)
        free_slots = np.flatnonzero(free)
        free_slots = free_slots[np.argsort(place[c.question[free_slots]], kind="stable")]
        free_place = place[c.question[free_slots]]
        for batch in _batches_by_size(unjudged[by_size]):
            qs = by_size[batch]
            width = int(unjudged[qs].max(initial=0)) + 1
            sorted_desc = np.zeros((len(qs), width))
            sorted_asc = np.zeros((len(qs), width))
            mine = free_slots[
                np.searchsorted(free_place, batch.start) : np.searchsorted(free_place, batch.stop)
            ]
            local = place[c.question[mine]] - batch.start
            sorted_desc[local, desc[mine] + 1] = w[mine]
            sorted_asc[local, asc[mine] + 1] = w[mine]
            prefix = {"high": np.cumsum(sorted_desc, axis=1), "low": np.cumsum(sorted_asc, axis=1)}
            m2, m1 = np.meshgrid(np.arange(width), np.arange(width), indexing="ij")
            triangle = (m2 + m1).ravel() < width
            m2, m1 = m2.ravel()[triangle], m1.ravel()[triangle]
            valid = (m2 + m1)[None, :] <= unjudged[qs][:, None]
            count = (
                relevant0[qs][:, None]
                + (m2 if frame.min_grade <= 2 else 0)
                + (m1 if frame.min_grade <= 1 else 0)
            )
            valid &= count > 0
            ideal = table[twos0[qs][:, None] + m2[None, :], ones0[qs][:, None] + m1[None, :]]
            top = m2 + m1
            for key, sign in (("high", 1.0), ("low", -1.0)):
                p = prefix[key]
                numerator = (
                    base[qs][:, None] + gains[2] * p[:, m2] + gains[1] * (p[:, top] - p[:, m2])
                )
                d = np.divide(numerator, ideal, out=np.zeros(ideal.shape), where=ideal > 0)
                pick = np.argmax(np.where(valid, sign * d, -np.inf), axis=1)
                chosen = d[np.arange(len(qs)), pick]
                (high if key == "high" else low)[qs] = chosen
                picks[key][qs] = np.stack([m2[pick], m1[pick]], axis=1)
            can_score[qs] = valid.any(axis=1)
        gradings = []
        for key, rank in (("low", asc), ("high", desc)):
            grading = known.copy()
            twos = picks[key][c.question, 0]
            ones = picks[key][c.question, 1]
            grading[free & (rank < twos)] = 2
            grading[free & (rank >= twos) & (rank < twos + ones)] = 1
            gradings.append(grading)
        return _finish(frame, low, high, can_score, gradings[0], gradings[1])


def _batches_by_size(sizes: np.ndarray) -> list[slice]:
    """Slices of questions (sorted by unjudged count) whose (u + 1)^2 grids fit a batch (a
    question wider than a batch gets one of its own)."""
    out, start = [], 0
    while start < len(sizes):
        end = start + 1
        while end < len(sizes) and (end - start + 1) * (int(sizes[end]) + 1) ** 2 <= _GRID_CELLS:
            end += 1
        out.append(slice(start, end))
        start = end
    return out


class ReciprocalRank(Difference):
    """d = 1/(rank of A's first relevant) - 1/(rank of B's first relevant) within the top k.
    Exact: whatever an extreme grading is, keeping only the unjudged slot that is first
    relevant in A (greatest d; in B for the least) and clearing every other unjudged slot
    keeps A's reciprocal rank and can only lower B's. So the extremes are among "no unjudged
    slot relevant" and "exactly one unjudged slot relevant": one candidate per slot."""

    def first(self, frame: Frame, relevant: np.ndarray, positions: np.ndarray) -> np.ndarray:
        pos = np.where(relevant & (positions >= 0), positions, BIG)
        first = frame.segment(pos, np.minimum, empty=float(BIG))
        return np.divide(1.0, first + 1.0, out=np.zeros(first.shape), where=first < BIG)

    def values(self, frame, gradings, relevant, total):
        c = frame.contest
        return self.first(frame, relevant, c.pos_a) - self.first(frame, relevant, c.pos_b)

    def bounds(self, frame: Frame) -> Bounds:
        c = frame.contest
        known = _known(frame)
        rel = frame.judged & (c.grade >= frame.min_grade)
        rr_a, rr_b = self.first(frame, rel, c.pos_a), self.first(frame, rel, c.pos_b)
        free = ~frame.judged

        def rr(pos: np.ndarray) -> np.ndarray:
            return np.divide(1.0, pos + 1.0, out=np.zeros(len(pos)), where=pos >= 0)

        single = np.maximum(rr_a[c.question], rr(c.pos_a)) - np.maximum(
            rr_b[c.question], rr(c.pos_b)
        )
        nothing = rr_a - rr_b
        has_label = frame.judged_relevant() > 0
        can_score = has_label | (frame.unjudged_count() > 0)
        out = []
        for sign in (1.0, -1.0):
            best = frame.best_slot(free, -sign * single)
            value_slot = np.append(single, np.nan)[best]  # best = -1: no such slot
            value_none = np.where(has_label, nothing, np.nan)
            use_slot = ~np.isnan(value_slot) & (
                np.isnan(value_none) | (sign * value_slot > sign * value_none)
            )
            value = np.where(use_slot, value_slot, value_none)
            grading = known.copy()
            grading[best[use_slot]] = RELEVANT
            out.append((np.nan_to_num(value), grading))
        (high, arg_high), (low, arg_low) = out
        return _finish(frame, low, high, can_score, arg_low, arg_high)


class AveragePrecision(Difference):
    """d = AP_A - AP_B; AP = (sum of precision at the rank of each relevant result in the
    top k) / R. Exact when a question has few unjudged slots (every grading is tried); else
    a sound, wider bound: the greatest AP_A over all gradings minus the least AP_B over all
    gradings (and the other way round), each found exactly (``_ap_relaxed``)."""

    def sums(self, frame: Frame, relevant: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Per question, the sum of precision@rank over the relevant results in a top k."""
        c = frame.contest
        idx = np.flatnonzero(positions >= 0)
        idx = idx[np.lexsort((positions[idx], c.question[idx]))]
        if len(idx) == 0:
            return np.zeros((*relevant.shape[:-1], frame.q))
        rel = relevant[..., idx].astype(np.int64)
        q = c.question[idx]
        new = np.ones(len(idx), dtype=bool)
        new[1:] = q[1:] != q[:-1]
        running = np.cumsum(rel, axis=-1)
        before = running - rel  # relevant strictly before, over all questions so far
        at_head = np.maximum.accumulate(np.where(new, np.arange(len(idx)), 0))
        found = running - before[..., at_head]
        precision = np.where(rel > 0, found / (positions[idx] + 1.0), 0.0)
        out = np.zeros((*relevant.shape[:-1], frame.q))
        heads = np.flatnonzero(new)
        out[..., q[heads]] = np.add.reduceat(precision, heads, axis=-1)
        return out

    def values(self, frame, gradings, relevant, total):
        c = frame.contest
        sa, sb = self.sums(frame, relevant, c.pos_a), self.sums(frame, relevant, c.pos_b)
        return np.divide(sa - sb, total, out=np.zeros(sa.shape), where=total > 0)

    def bounds(self, frame: Frame) -> Bounds:
        unjudged = frame.unjudged_count()
        small = unjudged <= EXACT_AP_UNJUDGED
        relaxed = _ap_relaxed(self, frame)
        exact = _enumerate(self, frame, np.flatnonzero(small))
        low, high = relaxed.low.copy(), relaxed.high.copy()
        low[small], high[small] = exact.low[small], exact.high[small]
        can_score = np.where(small, exact.can_score, relaxed.can_score)
        arg_low = np.where(small[frame.contest.question], exact.arg_low, relaxed.arg_low)
        arg_high = np.where(small[frame.contest.question], exact.arg_high, relaxed.arg_high)
        return _finish(
            frame,
            low,
            high,
            can_score,
            arg_low.astype(np.int8),
            arg_high.astype(np.int8),
            exact=small,
        )


def _ap_relaxed(metric: AveragePrecision, frame: Frame) -> Bounds:
    """Sound bounds for AP_A - AP_B from each run's own extremes.

    The greatest AP of one run over all gradings: slots only the other run has are irrelevant
    (they only add to R); among the run's own unjudged slots, for each count m made relevant,
    the earliest m (moving a relevant result up never lowers the sum of precisions, R fixed).
    The least: every slot only the other run has relevant (R grows), and the latest m of its
    own. max(AP_A - AP_B) <= max AP_A - min AP_B, and the same for the least.
    """
    c = frame.contest
    free = ~frame.judged
    known = _known(frame)
    extremes = {}
    for run, positions, other in (("a", c.pos_a, c.pos_b), ("b", c.pos_b, c.pos_a)):
        own = free & (positions >= 0)
        only_other = free & (positions < 0) & (other >= 0)
        for kind in ("max", "min"):
            key = positions if kind == "max" else -positions
            rank = frame.rank_within(own, key.astype(np.float64))
            sizes = frame.segment(own.astype(np.int64))
            best = np.full(frame.q, np.nan)
            arg = np.zeros(frame.q, dtype=np.int64)
            for m in range(int(sizes.max(initial=0)) + 1):
                grading = known.copy()
                grading[own & (rank < m)] = RELEVANT
                if kind == "min":
                    grading[only_other] = RELEVANT
                relevant = grading >= frame.min_grade
                total = frame.segment(relevant.astype(np.int64)) + frame.out_relevant
                if kind == "max" and m == 0:
                    # Scored only thanks to another slot: one relevant slot of the other run.
                    lonely = (total == 0) & (frame.segment(only_other.astype(np.int64)) > 0)
                    total = np.where(lonely, 1, total)
                ap = np.divide(
                    metric.sums(frame, relevant, positions),
                    total,
                    out=np.zeros(frame.q),
                    where=total > 0,
                )
                ok = (total > 0) & (m <= sizes)
                better = ok & (np.isnan(best) | ((ap > best) if kind == "max" else (ap < best)))
                best[better], arg[better] = ap[better], m
            extremes[run, kind] = (best, arg, rank, own, only_other)
    high = extremes["a", "max"][0] - extremes["b", "min"][0]
    low = extremes["a", "min"][0] - extremes["b", "max"][0]
    can_score = ~np.isnan(high)
    gradings = []
    for first, second in ((("a", "min"), ("b", "max")), (("a", "max"), ("b", "min"))):
        grading = known.copy()
        for run, kind in (second, first):  # the first run's choice wins on shared slots
            _, arg, rank, own, only_other = extremes[run, kind]
            grading[own & (rank < arg[c.question])] = RELEVANT
            grading[own & (rank >= arg[c.question])] = 0
            if kind == "min":
                grading[only_other] = RELEVANT
        gradings.append(grading)
    return _finish(
        frame,
        np.nan_to_num(low),
        np.nan_to_num(high),
        can_score,
        gradings[0],
        gradings[1],
        exact=np.zeros(frame.q, dtype=bool),
    )


def _enumerate(metric: Difference, frame: Frame, questions: np.ndarray) -> Bounds:
    """Exact bounds by trying every grading of the unjudged slots of ``questions`` (each of
    which has at most a handful: relevant or not for a binary metric, 0/1/2 for nDCG)."""
    c = frame.contest
    free = ~frame.judged
    known = _known(frame)
    levels = (0, RELEVANT) if metric.binary else (0, 1, 2)
    rank = frame.rank_within(free)
    unjudged = frame.unjudged_count()
    wanted = np.zeros(frame.q, dtype=bool)
    wanted[questions] = True
    low = np.full(frame.q, np.inf)
    high = np.full(frame.q, -np.inf)
    arg_low, arg_high = known.copy(), known.copy()
    count = len(levels) ** int(unjudged[questions].max(initial=0))
    slots = free & wanted[c.question]
    for first in range(0, count, 64):
        variants = np.arange(first, min(count, first + 64))
        digits = (variants[:, None] // (len(levels) ** rank[slots])[None, :]) % len(levels)
        gradings = np.repeat(known[None, :], len(variants), axis=0)
        gradings[:, slots] = np.asarray(levels, dtype=np.int8)[digits]
        d, scored = metric.evaluate(frame, gradings)
        for bound, better, arg in ((low, np.less, arg_low), (high, np.greater, arg_high)):
            cand = np.where(scored, d, np.inf if better is np.less else -np.inf)
            pick = (np.argmin if better is np.less else np.argmax)(cand, axis=0)
            value = cand[pick, np.arange(frame.q)]
            improve = better(value, bound) & wanted
            bound[improve] = value[improve]
            moved = improve[c.question] & slots
            arg[moved] = gradings[pick[c.question[moved]], np.flatnonzero(moved)]
    can_score = np.isfinite(low)
    return _finish(
        frame,
        np.nan_to_num(low, posinf=0.0),
        np.nan_to_num(high, neginf=0.0),
        can_score,
        arg_low,
        arg_high,
    )


def difference_of(contest: Contest) -> Difference:
    """The bounds of the contest's metric: the ``Difference`` its definition names
    (``MetricDef.label_next``)."""
    name = definition_of(contest.metric).label_next
    found = globals().get(name or "")
    if not (isinstance(found, type) and issubclass(found, Difference)):
        # parse_label_next_metric refuses such a metric before a contest is built
        msg = f"label next does not support {contest.metric} (label_next={name!r})"
        raise ValueError(msg)
    return found()


__all__ = [
    "EXACT_AP_UNJUDGED",
    "Bounds",
    "Difference",
    "Frame",
    "difference_of",
    "discounts",
]
