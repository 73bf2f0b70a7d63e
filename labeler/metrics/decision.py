"""Which of two runs is better, with the labels so far, and which pairs to label next.

``decide(qrels, run_a, run_b, "ndcg@10")`` answers three things about the mean difference of
the metric, A - B, over the questions the labels score:

- **Proven**: whatever grades the unjudged chunks of the pool get, the mean difference stays
  within [low, high] (``labeler.metrics.difference`` bounds each question exactly, or soundly
  where that is documented; the mean's bounds are then exact: see ``mean_bounds``). The
  comparison is proven when that interval excludes 0.
- **Likely**: under the relevance model (``labeler.metrics.relevance_model``), the probability
  that A beats B, by simulating ``worlds`` complete gradings of the unjudged chunks. The
  comparison is likely when that probability reaches ``confidence`` (or falls to
  1 - ``confidence``: B is likely better) before it is proven.
- **Next pairs**: the unjudged (question, chunk) pairs ranked by how much their grade is
  expected to tighten the proven interval (``_weights``): on both sides alike while the
  comparison is open, on the side of the likely winner once there is one; pairs of questions
  that could flip the overall sign on their own come first, those that cannot, last.

Labelling the pairs in this order and asking again, until proven, is label-next. The figures
depend only on the inputs and ``seed``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from labeler.errors import LabelerError
from labeler.metrics.contest import Contest, build_contest
from labeler.metrics.difference import Bounds, Difference, Frame, difference_of
from labeler.metrics.judge_prior import LEVELS, JudgePrior, slot_grades
from labeler.metrics.kept import Kept
from labeler.metrics.relevance_model import RelevanceModel, cell
from labeler.metrics.tables import Run, as_run
from labeler.metrics.types import DEFAULT_OPTIONS, Metric, Options
from labeler.numbers import signed

DEFAULT_CONFIDENCE = 0.95
DEFAULT_BUDGET = 20
DEFAULT_WORLDS = 800
ROUND = 50  # worlds per round of the simulation
DEFAULT_SEED = 0
TIE = 1e-12
# The simulation sums each question's d over groups of _CELLS / pool worlds (that grouping
# fixes the floating-point sums, so it stays), and draws and scores them _DRAW_CELLS / pool
# worlds at a time: temporaries of a few MB that the allocator recycles, where tens of MB
# would be fresh memory on every call (page faults: most of a first call's cost).
_CELLS = 1 << 22
_DRAW_CELLS = 1 << 19
SHORTLIST = 200  # pairs weighed exactly, at least
EXPECTED_WORLDS = 200  # draws of the curves behind the grade probabilities of the next pairs


@dataclass(frozen=True, slots=True)
class Pair:
    """An unjudged (question, chunk) to label, and its weight: how much its grade is expected
    to tighten the proven interval of the mean difference (in the metric's units)."""

    question: str
    chunk: str
    weight: float

    def as_dict(self) -> dict:
        return {"question": self.question, "chunk": self.chunk, "weight": round(self.weight, 6)}


@dataclass(frozen=True, slots=True, eq=False)
class Decision:
    """The state of a comparison of ``run_a`` and ``run_b`` on ``metric`` (see the module
    docstring). ``low``/``high`` bound the mean difference A - B; ``probability`` is the
    model's probability that A beats B; ``pairs`` the next pairs to label, most decisive first
    (none once proven)."""

    run_a: str
    run_b: str
    metric: str
    status: str
    winner: str | None
    low: float
    high: float
    probability: float
    expected: float
    confidence: float
    labelled: int
    pool: int
    questions: int
    exact: bool
    pairs: tuple[Pair, ...]

    def as_dict(self) -> dict:
        """The JSON of ``labeler next``."""
        return {
            "status": self.status,
            "winner": self.winner,
            "difference": {"low": round(self.low, 6), "high": round(self.high, 6)},
            "probability": round(self.probability, 4),
            "labelled": self.labelled,
            "pairs": [p.as_dict() for p in self.pairs],
        }

    @property
    def leader(self) -> str:
        """The run the model favours (the winner once there is one)."""
        if self.winner is not None:
            return self.winner
        return self.run_a if self.probability >= 0.5 else self.run_b

    def leader_probability(self) -> float:
        return self.probability if self.leader == self.run_a else 1.0 - self.probability

    def leader_range(self) -> tuple[float, float]:
        """The proven interval of leader - other."""
        if self.leader == self.run_a:
            return self.low, self.high
        return -self.high, -self.low

    def sentence(self) -> str:
        """One line for a person: "likely: hybrid better than bm25 with probability 0.97;
        proven range -0.04 to +0.11" (the range is of the leading run minus the other)."""
        other = self.run_b if self.leader == self.run_a else self.run_a
        low, high = self.leader_range()
        span = f"proven range {signed(low, 3)} to {signed(high, 3)}"
        if self.status == "proven":
            if self.winner is None:
                return f"proven: {self.run_a} and {self.run_b} tie on {self.metric}; {span}"
            return f"proven: {self.winner} better than {other} on {self.metric}; {span}"
        chance = self.leader_probability()
        probability = "> 0.99" if chance > 0.995 else f"{chance:.2f}"
        if self.status == "likely":
            return (
                f"likely: {self.leader} better than {other} with probability {probability}; {span}"
            )
        return f"open: {self.leader} ahead of {other} with probability {probability}; {span}"


# -- the mean's interval --------------------------------------------------------------------


def mean_bounds(bounds: Bounds) -> tuple[float, float, int]:
    """Exact least and greatest mean of d over the questions a grading scores, and how many
    questions every grading scores.

    A question every grading scores adds its own least (greatest) d. One that may drop out
    (no relevant label yet) either drops or adds its least d given it is scored. The least
    mean over those choices is reached by adding the droppable questions in increasing order
    of their least d, a prefix at a time (a value lowers a mean exactly when it is below it),
    so trying every prefix is exact; the same from the top for the greatest.
    """
    sure = bounds.can_score & ~bounds.can_drop
    optional = bounds.can_score & bounds.can_drop
    count = int(sure.sum())

    def least(total: float, values: np.ndarray) -> float:
        values = np.sort(values)
        sums = total + np.concatenate([[0.0], np.cumsum(values)])
        sizes = count + np.arange(len(values) + 1)
        ok = sizes > 0
        return float((sums[ok] / sizes[ok]).min()) if ok.any() else 0.0

    low = least(float(bounds.low[sure].sum()), bounds.low[optional])
    high = -least(-float(bounds.high[sure].sum()), -bounds.high[optional])
    return low, high, count


# -- the model's probability ----------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Simulation:
    """What the simulated worlds say: P(A beats B), the expected mean difference, each
    question's expected d, the expected number of scored questions, and the mean grade
    distribution of every unjudged slot (its cell's mean given the curves, over their draws)."""

    probability: float
    expected: float
    question_means: np.ndarray
    scored: float
    grade_probabilities: np.ndarray


def simulate(
    frame: Frame,
    difference: Difference,
    model: RelevanceModel,
    *,
    worlds: int = DEFAULT_WORLDS,
    seed: int = DEFAULT_SEED,
    thresholds: tuple[float, ...] = (),
    prior: JudgePrior | None = None,
) -> Simulation:
    """Grade every unjudged slot at random under the model, up to ``worlds`` times, and score.

    Worlds are drawn in rounds of ``ROUND``; once the probability is clearly (by four of its
    standard errors) on one side of every threshold in ``thresholds``, more worlds could not
    change the verdict and the simulation stops early. Which worlds are drawn depends only on
    the pool and ``seed``. With a judge's ``prior``, a slot the judge graded is drawn from its
    cell's distribution given the judge's grade (``labeler.metrics.judge_prior``).
    """
    c = frame.contest
    free = np.flatnonzero(~frame.judged)
    known = np.maximum(c.grade, 0).astype(np.int8)
    if len(free) == 0:
        d, scored = difference.evaluate(frame, known[None])
        total = float(d.sum())
        n = max(int(scored.sum()), 1)
        probability = 1.0 if total > TIE else 0.0 if total < -TIE else 0.5
        return Simulation(probability, total / n, d[0], float(scored.sum()), np.zeros((0, 3)))
    rng = np.random.default_rng([seed, 7])
    judge_rng = np.random.default_rng([seed, 11])
    # Only the cells the unjudged slots fall in are drawn (a pool fills a few dozen of the 196),
    # and only for the worlds simulated (a round at a time, so an early stop draws no more).
    used, slot_cell = np.unique(cell(c.rank_a[free], c.rank_b[free]), return_inverse=True)
    if prior is not None:
        slot_cell = slot_cell * LEVELS + prior.levels(free)
    totals = np.zeros(worlds)
    counts = np.zeros(worlds)
    question_sums = np.zeros(frame.q)
    batch = max(1, _CELLS // max(frame.n, 1))  # worlds whose d are summed in one step
    step = max(1, _DRAW_CELLS // max(frame.n, 1))  # worlds drawn and scored at a time
    # Only the questions with an unjudged slot are scored in each world; the others' d is the
    # same in every world, scored once (each question's d reads its own slots only, so every
    # figure is what scoring them all in every world gives, to the last bit).
    moving = np.zeros(frame.q, dtype=bool)
    moving[c.question[free]] = True
    fixed_d, fixed_scored = difference.evaluate(frame, known[None])
    fixed_d, fixed_scored = fixed_d[0] * ~moving, int((fixed_scored[0] & ~moving).sum())
    part = Frame.of(c.take(np.flatnonzero(moving)))
    part_known = np.maximum(part.contest.grade, 0).astype(np.int8)
    part_free = np.flatnonzero(~part.judged)  # the same slots as ``free``, in the same order
    done = 0
    while done < worlds:
        stop = min(worlds, done + ROUND)
        theta = model.sample(rng, stop - done, used)
        if prior is not None:
            theta = prior.combine(judge_rng, theta)
        # Per world and slot, the draw below which a chunk gets 0, and below which 0 or 1.
        zero = theta[..., 0].astype(np.float32)[:, slot_cell]
        upto_one = (theta[..., 0] + theta[..., 1]).astype(np.float32)[:, slot_cell]
        for start in range(done, stop, batch):
            end = min(stop, start + batch)
            d = np.empty((end - start, frame.q))
            for first in range(start, end, step):
                last = min(end, first + step)
                draw = rng.random((last - first, len(free)), dtype=np.float32)
                grades = (draw >= zero[first - done : last - done]).astype(np.int8)
                grades += draw >= upto_one[first - done : last - done]
                gradings = np.repeat(part_known[None, :], last - first, axis=0)
                gradings[:, part_free] = grades
                d[first - start : last - start] = fixed_d
                d[first - start : last - start, moving], scored = difference.evaluate(
                    part, gradings
                )
                counts[first:last] = scored.sum(axis=1) + fixed_scored
            totals[start:end] = d.sum(axis=1)
            question_sums += d.sum(axis=0)
        done = stop
        p = _wins(totals[:done])
        error = max(np.sqrt(p * (1 - p) / done), 1.0 / done)
        if all(abs(p - t) > 4 * error for t in thresholds):
            break
    # The grade probabilities that weigh the next pairs: each cell's mean distribution given
    # the curves, over EXPECTED_WORLDS draws of the curves from a stream of their own, however
    # early the simulation stopped (they were the mean of 800 Dirichlet draws when every world
    # was drawn ahead; a mean given the curves is steadier than a draw around it).
    expected = model.expected(np.random.default_rng([seed, 13]), EXPECTED_WORLDS, used)
    if prior is not None:
        expected = prior.combine(np.random.default_rng([seed, 17]), expected)
    probabilities = expected.mean(axis=0)[slot_cell]
    totals, counts = totals[:done], counts[:done]
    means = np.divide(totals, counts, out=np.zeros(done), where=counts > 0)
    return Simulation(
        probability=_wins(totals),
        expected=float(means.mean()),
        question_means=question_sums / done,
        scored=float(counts.mean()),
        grade_probabilities=probabilities,
    )


def _wins(totals: np.ndarray) -> float:
    """Share of worlds where A's total is higher (a tie counts half), as (wins + 1/2) /
    (worlds + 1): a finite simulation never claims certainty (at most 0.9994 from 800
    worlds), and a tie stays at 1/2."""
    wins = float((totals > TIE).sum()) + 0.5 * float((np.abs(totals) <= TIE).sum())
    return (wins + 0.5) / (len(totals) + 1.0)


# -- next pairs -----------------------------------------------------------------------------


_BOUNDS = Kept(20_000)  # each question's bounds (twice the 10,000 questions of a benchmark)
_MOVES = Kept(20_000)  # each question's slots' moves from them (the quick weights)
_REGRADED = Kept(50_000)  # each slot's question bounded with the slot at each level


def _level_probability(frame: Frame, difference: Difference, simulation: Simulation) -> np.ndarray:
    """Per unjudged slot, the model's probability of each grade the metric tells apart."""
    probs = simulation.grade_probabilities  # per free slot, grades 0/1/2
    if not difference.binary:
        return probs
    relevant = probs[:, frame.min_grade :].sum(axis=1)
    return np.stack([1.0 - relevant, relevant], axis=1)


def _weights(
    frame: Frame, difference: Difference, bounds: Bounds, simulation: Simulation
) -> np.ndarray:
    """Per unjudged slot (in slot order): the expected tightening of the proven interval's
    deciding side, in units of the question's d.

    For the side that would prove A better, take the grading that reaches the question's
    least d; setting the slot to grade g there moves d by some amount (the true new least d
    can only be lower: this is the most it can rise). Average over g with the model's grade
    probabilities for the slot; likewise for B's side from the greatest d; weigh the two
    sides by the model's probability that each run is the better one. Early on (probability
    near 1/2) this is how far the grade can swing d either way, as in minimal test
    collections (for nDCG@k: gain x the difference of the two discounts over the ideal DCG,
    which also grows when the chunk is relevant); later it favours the pairs that settle the
    likely winner's worst case.
    """
    free_slots = np.flatnonzero(~frame.judged)
    level_probability = _level_probability(frame, difference, simulation)
    weight = np.zeros(len(free_slots))
    p_a = simulation.probability
    for sign, side in ((1.0, p_a), (-1.0, 1.0 - p_a)):
        if side <= 0.0:
            continue
        moved = _kept_moves(frame, difference, bounds, sign)
        weight += side * (level_probability * moved.T).sum(axis=1)
    return weight


def _moves(frame: Frame, difference: Difference, start: np.ndarray, sign: float) -> np.ndarray:
    """For ``_weights``: how far each unjudged slot's grade (levels x slots) can move its
    question's d towards the side of ``sign`` from ``start``, the grading at that side's
    bound."""
    free_slots = np.flatnonzero(~frame.judged)
    base, _ = difference.evaluate(frame, start[None])
    changed = difference.single_changes(frame, start, free_slots)
    q = frame.contest.question[free_slots]
    return np.maximum(sign * (changed - base[0, q][None, :]), 0.0)


def _kept_moves(frame: Frame, difference: Difference, bounds: Bounds, sign: float) -> np.ndarray:
    """``_moves``, each question's part kept (``_MOVES``): after a grade only the graded
    question's are worked out again (its bounds' gradings follow from its key)."""
    c = frame.contest
    metric = (str(c.metric), c.cut, c.options, sign)
    free = ~frame.judged

    def work_out(missing: list[int]) -> list[np.ndarray]:
        owners = np.asarray(missing, dtype=np.int64)
        slots = np.concatenate([np.arange(c.starts[q], c.starts[q + 1]) for q in missing])
        start = (bounds.arg_low if sign > 0 else bounds.arg_high)[slots]
        moved = _moves(Frame.of(c.take(owners)), difference, start, sign)
        ends = np.cumsum([int(free[c.starts[q] : c.starts[q + 1]].sum()) for q in missing])
        return np.split(moved, ends[:-1], axis=1)

    found = _MOVES.parts([(metric, key) for key in c.question_keys()], work_out)
    levels = len(difference.levels())
    return np.concatenate(found, axis=1) if found else np.zeros((levels, 0))


def _margin(bounds: Bounds, sign: float) -> np.ndarray:
    """Each question's share of the sum that must exceed 0 to prove the run on ``sign``'s
    side better (+1: A): its least d (greatest, for B), or at most 0 if it may drop out."""
    side = bounds.low if sign > 0 else -bounds.high
    return np.where(bounds.can_drop, np.minimum(side, 0.0), side) * bounds.can_score


def _exact_gains(
    frame: Frame,
    difference: Difference,
    bounds: Bounds,
    slots: np.ndarray,
    level_probability: np.ndarray,
    p_a: float,
) -> np.ndarray:
    """The expected rise of the proof margin (``_margin``) when each of ``slots`` is
    labelled: its question bounded again with the slot at each grade, weighed by the model's
    grade probabilities and by each run's probability of being the better one."""
    c = frame.contest
    questions = c.question[slots]
    after = _regraded_bounds(frame, difference, slots)
    gains = np.zeros(len(slots))
    for sign, side in ((1.0, p_a), (-1.0, 1.0 - p_a)):
        if side <= 0.0:
            continue
        before = _margin(bounds, sign)[questions]
        moved = _margin(after, sign).reshape(len(slots), -1) - before[:, None]
        gains += side * (level_probability * np.maximum(moved, 0.0)).sum(axis=1)
    return gains


def _kept_bounds(frame: Frame, difference: Difference) -> Bounds:
    """``difference.bounds(frame)``, each question's part kept (``_BOUNDS``)."""
    c = frame.contest
    metric = (str(c.metric), c.cut, c.options)

    def work_out(missing: list[int]) -> list[tuple]:
        part = c.take(np.asarray(missing, dtype=np.int64))
        new = difference.bounds(Frame.of(part))
        starts = part.starts.tolist()
        return [
            (
                new.low[i],
                new.high[i],
                new.can_score[i],
                new.can_drop[i],
                new.exact[i],
                new.arg_low[starts[i] : starts[i + 1]],
                new.arg_high[starts[i] : starts[i + 1]],
            )
            for i in range(len(missing))
        ]

    found = _BOUNDS.parts([(metric, key) for key in c.question_keys()], work_out)
    if not found:
        return difference.bounds(frame)
    low, high, can_score, can_drop, exact, arg_low, arg_high = zip(*found, strict=True)
    return Bounds(
        low=np.array(low, dtype=np.float64),
        high=np.array(high, dtype=np.float64),
        can_score=np.array(can_score, dtype=bool),
        can_drop=np.array(can_drop, dtype=bool),
        exact=np.array(exact, dtype=bool),
        arg_low=np.concatenate(arg_low),
        arg_high=np.concatenate(arg_high),
    )


def _regraded_bounds(frame: Frame, difference: Difference, slots: np.ndarray) -> Bounds:
    """Bounds of each slot's question with the slot graded at each of the metric's levels
    (slot-major: len(slots) x levels rows), each slot's kept (``_REGRADED``): after a grade
    only the graded question's slots are bounded again, where every shortlisted slot was."""
    c = frame.contest
    levels = difference.levels()
    questions = c.question[slots]
    metric = (str(c.metric), c.cut, c.options)
    keys_of = c.question_keys()
    offsets = (slots - c.starts[questions]).tolist()
    keys = [(metric, keys_of[q], o) for q, o in zip(questions.tolist(), offsets, strict=True)]

    def work_out(missing: list[int]) -> list[np.ndarray]:
        fresh = slots[np.asarray(missing, dtype=np.int64)]
        owners = c.question[fresh]
        copies = c.take(np.repeat(owners, len(levels)))
        grade = copies.grade.copy()
        at = copies.starts[:-1] + np.repeat(fresh - c.starts[owners], len(levels))
        grade[at] = np.tile(np.asarray(levels, dtype=np.int8), len(fresh))
        new = difference.bounds(Frame.of(copies.with_grades(grade)))
        rows = np.stack([new.low, new.high, new.can_drop, new.can_score], axis=1)
        return list(rows.reshape(len(fresh), len(levels), 4))

    found = _REGRADED.parts(keys, work_out)
    table = np.concatenate(found).reshape(-1, 4) if found else np.zeros((0, 4))
    return Bounds(
        low=table[:, 0],
        high=table[:, 1],
        can_score=table[:, 3].astype(bool),
        can_drop=table[:, 2].astype(bool),
        exact=np.ones(len(table), dtype=bool),
        arg_low=np.zeros(0, dtype=np.int8),
        arg_high=np.zeros(0, dtype=np.int8),
    )


def _flippers(bounds: Bounds, simulation: Simulation) -> np.ndarray:
    """Questions that could flip the sign of the total on their own, the others held at
    their expected values."""
    means = simulation.question_means
    others = means.sum() - means
    least = np.where(bounds.can_drop, np.minimum(bounds.low, 0.0), bounds.low)
    most = np.where(bounds.can_drop, np.maximum(bounds.high, 0.0), bounds.high)
    return bounds.can_score & ((others + least) * (others + most) < 0)


def next_pairs(
    frame: Frame,
    difference: Difference,
    bounds: Bounds,
    simulation: Simulation,
    budget: int | None,
) -> tuple[Pair, ...]:
    c = frame.contest
    free_slots = np.flatnonzero(~frame.judged)
    if len(free_slots) == 0 or budget == 0:
        return ()
    weight = _weights(frame, difference, bounds, simulation)
    # The estimate above is quick and never below the true rise of a question's bound; the
    # most promising pairs are then weighed exactly (their question bounded again).
    shortlist = np.argsort(-weight, kind="stable")[: max(SHORTLIST, 4 * (budget or 0))]
    weight[shortlist] = _exact_gains(
        frame,
        difference,
        bounds,
        free_slots[shortlist],
        _level_probability(frame, difference, simulation)[shortlist],
        simulation.probability,
    )
    scale = max(simulation.scored, 1.0)
    flips = _flippers(bounds, simulation)[c.question[free_slots]]
    exact = np.zeros(len(free_slots), dtype=bool)
    exact[shortlist] = True
    order = np.lexsort((free_slots, -weight, ~exact, ~flips))
    if budget is not None:
        order = order[:budget]
    slots = free_slots[order]
    questions = [c.questions[q] for q in c.question[slots].tolist()]
    return tuple(map(Pair, questions, c.chunk_ids(slots), (weight[order] / scale).tolist()))


# -- decide ---------------------------------------------------------------------------------


def check_confidence(confidence: float) -> float:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not (0.5 < confidence < 1)
    ):
        raise LabelerError(
            f"must be between 0.5 and 1 (exclusive), got {confidence!r}", field="confidence"
        )
    return float(confidence)


def decide_contest(
    contest: Contest,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    budget: int | None = DEFAULT_BUDGET,
    worlds: int = DEFAULT_WORLDS,
    seed: int = DEFAULT_SEED,
    prior: np.ndarray | None = None,
) -> Decision:
    """``decide`` on a pool already built (the simulations reuse one pool and regrade it).
    ``prior``: a judge's grade of each slot (-1: none; see ``judge_prior.slot_grades``)."""
    confidence = check_confidence(confidence)
    if budget is not None and (isinstance(budget, bool) or budget < 0):
        raise LabelerError(f"must be 0 or more, got {budget!r}", field="budget")
    frame = Frame.of(contest)
    difference = difference_of(contest)
    bounds = _kept_bounds(frame, difference)
    low, high, sure = mean_bounds(bounds)
    model = RelevanceModel.fit(*contest.observations)
    simulation = simulate(
        frame,
        difference,
        model,
        worlds=worlds,
        seed=seed,
        thresholds=(confidence, 1.0 - confidence),
        prior=None if prior is None else JudgePrior.fit(contest, prior),
    )
    probability = simulation.probability
    open_slots = int((~frame.judged).sum())
    if sure and low > TIE:
        status, winner = "proven", contest.run_a
    elif sure and high < -TIE:
        status, winner = "proven", contest.run_b
    elif open_slots == 0:
        status, winner = "proven", None
    elif probability >= confidence:
        status, winner = "likely", contest.run_a
    elif probability <= 1.0 - confidence:
        status, winner = "likely", contest.run_b
    else:
        status, winner = "open", None
    # Until a winner is named, both sides weigh alike: the labels go to both runs' chunks, which
    # is what the model needs to learn about both; once one is likely, the side that proves it.
    leaning = simulation if status == "likely" else replace(simulation, probability=0.5)
    pairs = () if status == "proven" else next_pairs(frame, difference, bounds, leaning, budget)
    return Decision(
        run_a=contest.run_a,
        run_b=contest.run_b,
        metric=str(contest.metric),
        status=status,
        winner=winner,
        low=low,
        high=high,
        probability=probability,
        expected=simulation.expected,
        confidence=confidence,
        labelled=contest.labelled,
        pool=contest.size,
        questions=contest.num_questions,
        exact=bool(bounds.exact.all()),
        pairs=pairs,
    )


def decide(
    qrels: object,
    run_a: Run | Mapping,
    run_b: Run | Mapping,
    metric: str | Metric,
    *,
    questions: Iterable[str] | None = None,
    unanswerable: Iterable[str] = (),
    confidence: float = DEFAULT_CONFIDENCE,
    budget: int | None = DEFAULT_BUDGET,
    worlds: int = DEFAULT_WORLDS,
    seed: int = DEFAULT_SEED,
    options: Options = DEFAULT_OPTIONS,
    prior: Mapping[tuple[str, str], int] | None = None,
) -> Decision:
    """Is A better than B on ``metric`` with these labels, proven or likely, and which
    ``budget`` pairs to label next (None: all of them, in order). See the module docstring.

    ``prior``: a judge's grades, ``{(question, chunk): grade}``, as the relevance model's prior
    for the chunks nobody labelled (``labeler.metrics.judge_prior``); the proven interval never
    uses them, only the probability and the order of the pairs.

    >>> d = decide({"q1": {}}, {"q1": ["a", "b"]}, {"q1": ["b", "a"]}, "precision@1")
    >>> d.status, d.pairs[0].chunk
    ('open', 'a')
    """
    confidence = check_confidence(confidence)
    run_a, run_b = as_run(run_a, name="A"), as_run(run_b, name="B")
    if run_a.name == run_b.name:
        msg = f"compare two different runs, not {run_a.name!r} with itself"
        raise LabelerError(msg, field="run")
    contest = build_contest(
        qrels,
        run_a,
        run_b,
        metric,
        questions=questions,
        unanswerable=unanswerable,
        options=options,
    )
    grades = None if prior is None else slot_grades(contest, prior)
    return decide_contest(
        contest, confidence=confidence, budget=budget, worlds=worlds, seed=seed, prior=grades
    )


__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_WORLDS",
    "Decision",
    "Pair",
    "Simulation",
    "check_confidence",
    "decide",
    "decide_contest",
    "mean_bounds",
    "next_pairs",
    "simulate",
]
