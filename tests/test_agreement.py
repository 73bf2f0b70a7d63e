"""The agreement statistics, checked three ways: against Krippendorff's own worked examples,
against independent implementations (the ``krippendorff`` package, scikit-learn's
``cohen_kappa_score``, scipy's ``spearmanr``) on random and hand-made data, and against values
worked out by hand."""

import math

import krippendorff  # the test extra: an independent implementation
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from sklearn import metrics as sklearn_metrics

from labeler import agreement

NAN = math.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1-5, with missing data. Published: nominal 0.743, ordinal 0.815.
RELIABILITY_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
# Section A: binary data, two observers, no missing data. Published alpha 0.095.
RELIABILITY_A = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
# Section B: nominal data (a-e), two observers, no missing data. Published alpha 0.692.
RELIABILITY_B = ["aabbdcccedda", "babbbccceddd"]


def ratings_of(matrix, *, offset=0) -> list[tuple[int, int]]:
    """(unit, category code) pairs from an observers x units matrix, NaN missing."""
    return [
        (unit, int(value) - offset)
        for row in matrix
        for unit, value in enumerate(row)
        if not (isinstance(value, float) and math.isnan(value))
    ]


def random_reliability(rng, *, raters, units, categories, missing):
    data = rng.integers(0, categories, size=(raters, units)).astype(float)
    # make raters agree more than chance, so alpha is not near 0 every time
    truth = rng.integers(0, categories, size=units)
    agree = rng.random((raters, units)) < 0.6
    data[agree] = np.broadcast_to(truth, data.shape)[agree]
    data[rng.random((raters, units)) < missing] = np.nan
    return data


# Krippendorff's alpha ---------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815)])
def test_alpha_matches_krippendorffs_worked_example_c(level, published) -> None:
    found = agreement.alpha_of(ratings_of(RELIABILITY_C, offset=1), categories=5, level=level)
    assert round(found, 3) == published


def test_alpha_matches_krippendorffs_binary_example_a() -> None:
    assert round(agreement.alpha_of(ratings_of(RELIABILITY_A), categories=2), 3) == 0.095


def test_alpha_matches_krippendorffs_nominal_example_b() -> None:
    codes = {c: i for i, c in enumerate("abcde")}
    ratings = [(u, codes[c]) for row in RELIABILITY_B for u, c in enumerate(row)]
    assert round(agreement.alpha_of(ratings, categories=5), 3) == 0.692


def test_alpha_coincidences_match_the_paper() -> None:
    """Example C's coincidences of value 1, by hand: unit 1 (1,1,1) gives o11 3·2/2 = 3;
    unit 6 (1,2,3,4) gives o12, o13, o14 1/3 each; unit 8 (1,1,2,1) gives o11 3·2/3 = 2 and
    o12 3/3 = 1; unit 11 (1,1) gives o11 2. Row 1: 7, 4/3, 1/3, 1/3, 0 (n_1 = 9), and the
    paper's totals n_c are 9, 13, 10, 5, 3 (n = 40)."""
    counts, _ = agreement.value_counts(ratings_of(RELIABILITY_C, offset=1), 5)
    o = agreement.coincidences(counts)
    assert o[0].tolist() == pytest.approx([7, 4 / 3, 1 / 3, 1 / 3, 0])
    assert o.sum(axis=1).tolist() == pytest.approx([9, 13, 10, 5, 3])


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("seed", range(12))
def test_alpha_equals_the_krippendorff_package_on_random_data(level, seed) -> None:
    rng = np.random.default_rng(seed)
    categories = int(rng.integers(2, 6))
    data = random_reliability(
        rng,
        raters=int(rng.integers(2, 7)),
        units=int(rng.integers(5, 80)),
        categories=categories,
        missing=float(rng.uniform(0, 0.4)),
    )
    found = agreement.alpha_of(ratings_of(data), categories=categories, level=level)
    expected = krippendorff.alpha(
        reliability_data=data,
        level_of_measurement=level,
        value_domain=list(range(categories)),
    )
    assert found == pytest.approx(expected, abs=1e-9)


def test_alpha_of_perfect_agreement_is_one_and_of_one_value_is_undefined() -> None:
    assert agreement.alpha_of([(0, 1), (0, 1), (1, 0), (1, 0)], categories=2) == 1.0
    assert agreement.alpha_of([(0, 1), (0, 1), (1, 1), (1, 1)], categories=2) is None
    assert agreement.alpha_of([(0, 1), (1, 0)], categories=2) is None  # nothing pairable


def test_alpha_by_hand_two_raters_one_disagreement() -> None:
    """Units: (0,0), (1,1), (0,1). Coincidences o00 = 2, o11 = 2, o01 = o10 = 1; n = 6,
    n0 = n1 = 3. alpha = 1 - (n-1) * (o01 + o10) / (2 * n0 * n1) = 1 - 5 * 2 / 18 = 4/9."""
    ratings = [(0, 0), (0, 0), (1, 1), (1, 1), (2, 0), (2, 1)]
    assert agreement.alpha_of(ratings, categories=2) == pytest.approx(4 / 9)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_alpha_does_not_depend_on_the_order_of_ratings(data) -> None:
    ratings = data.draw(
        st.lists(st.tuples(st.integers(0, 8), st.integers(0, 2)), min_size=2, max_size=40)
    )
    shuffled = data.draw(st.permutations(ratings))
    a = agreement.alpha_of(ratings, categories=3, level="ordinal")
    b = agreement.alpha_of(shuffled, categories=3, level="ordinal")
    assert a == b or (a is not None and b is not None and a == pytest.approx(b))


# Cohen's kappa ----------------------------------------------------------------------------------


@pytest.mark.parametrize("weights", ["nominal", "quadratic"])
@pytest.mark.parametrize("seed", range(12))
def test_kappa_equals_scikit_learn_on_random_data(weights, seed) -> None:
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 6))
    a = rng.integers(0, k, size=int(rng.integers(10, 300)))
    noise = rng.integers(-1, 2, size=len(a))
    b = np.where(rng.random(len(a)) < 0.7, np.clip(a + noise, 0, k - 1), rng.integers(0, k, len(a)))
    found = agreement.cohen_kappa(a, b, categories=k, weights=weights)
    expected = sklearn_metrics.cohen_kappa_score(
        a, b, labels=list(range(k)), weights=None if weights == "nominal" else "quadratic"
    )
    assert found == pytest.approx(expected, abs=1e-12)


def test_kappa_by_hand() -> None:
    """Confusion [[20, 5], [10, 15]], n = 50: p_o = 0.7; marginals rows 25/25, cols 30/20, so
    p_e = (25*30 + 25*20) / 2500 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4."""
    a = [0] * 25 + [1] * 25
    b = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    assert agreement.cohen_kappa(a, b, categories=2) == pytest.approx(0.4)


def test_quadratic_kappa_by_hand() -> None:
    """Three items on 0-2: (0,0), (1,2), (2,2). Weights w_ij = (i-j)²/4. Observed
    disagreement Σ w O = 1/4. Marginals rows (1,1,1), cols (1,0,2), n = 3, so E = outer / 3;
    Σ w E = (0*1 + 1/4*0 + 1*2 + 1/4*1 + 0 + 1/4*2 + 1*1 + 1/4*0 + 0) / 3 = 3.75 / 3 = 1.25.
    kappa = 1 - 0.25 / 1.25 = 0.8."""
    kappa = agreement.cohen_kappa([0, 1, 2], [0, 2, 2], categories=3, weights="quadratic")
    assert kappa == pytest.approx(0.8)


def test_kappa_is_undefined_when_both_use_one_category() -> None:
    assert agreement.cohen_kappa([1, 1, 1], [1, 1, 1], categories=2) is None
    assert agreement.cohen_kappa([], [], categories=2) is None


def test_bootstrap_interval_is_reproducible_and_brackets_kappa() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 3, 200)
    b = np.clip(a + rng.integers(-1, 2, 200), 0, 2)
    first = agreement.bootstrap_kappa_interval(a, b, categories=3, weights="quadratic", seed=3)
    again = agreement.bootstrap_kappa_interval(a, b, categories=3, weights="quadratic", seed=3)
    other = agreement.bootstrap_kappa_interval(a, b, categories=3, weights="quadratic", seed=4)
    kappa = agreement.cohen_kappa(a, b, categories=3, weights="quadratic")
    assert first == again
    assert first != other
    assert first[0] < kappa < first[1]


def test_bootstrap_interval_matches_a_plain_loop() -> None:
    """The vectorised resampling equals resampling item by item with the same draws."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2, 60)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    found = agreement.bootstrap_kappa_interval(a, b, categories=2, resamples=300, seed=5)
    draws = np.random.Generator(np.random.PCG64(5)).integers(0, 60, size=(300, 60))
    values = [agreement.cohen_kappa(a[d], b[d], categories=2) for d in draws]
    values = [v for v in values if v is not None]
    assert found == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])))


def test_bootstrap_covers_the_true_kappa_about_95_percent_of_the_time() -> None:
    """Coverage on simulated raters whose population kappa is known (0.6 for p = 0.5 and
    80 % agreement): about 95 of 100 intervals should hold it."""
    rng = np.random.default_rng(2024)
    covered = 0
    for trial in range(100):
        a = rng.integers(0, 2, 150)
        b = np.where(rng.random(150) < 0.8, a, 1 - a)
        low, high = agreement.bootstrap_kappa_interval(
            a, b, categories=2, resamples=500, seed=trial
        )
        covered += low <= 0.6 <= high
    assert 88 <= covered <= 99


# Spearman, Wilson, sign test ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_spearman_equals_scipy_with_ties(seed) -> None:
    rng = np.random.default_rng(200 + seed)
    x = rng.random(50).round(1)  # many ties
    y = rng.integers(0, 3, 50)
    expected = scipy_stats.spearmanr(x, y).statistic
    assert agreement.spearman(x, y) == pytest.approx(expected, abs=1e-12)


def test_spearman_is_undefined_for_a_constant_side_or_few_items() -> None:
    assert agreement.spearman([1, 2, 3], [1, 1, 1]) is None
    assert agreement.spearman([1, 2], [1, 2]) is None


def test_average_ranks_by_hand() -> None:
    assert agreement.average_ranks([10, 20, 20, 5]).tolist() == [2, 3.5, 3.5, 1]


def test_wilson_interval_by_hand() -> None:
    """41 of 50 (p = 0.82), z² = 3.841459: denominator 1 + z²/n = 1.076829; centre
    (0.82 + z²/2n) / 1.076829 = 0.858415 / 1.076829 = 0.797169; half-width
    z·sqrt(0.82·0.18/50 + z²/4n²) / 1.076829 = 1.959964 · 0.057759 / 1.076829 = 0.105128."""
    low, high = agreement.wilson_interval(41, 50)
    assert low == pytest.approx(0.692041, abs=2e-6)
    assert high == pytest.approx(0.902297, abs=2e-6)
    assert agreement.wilson_interval(0, 10)[0] == 0.0
    assert agreement.wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert agreement.wilson_interval(0, 0) is None


def test_wilson_matches_statsmodels_formula_at_the_extremes() -> None:
    """At p = 0 the upper bound is z²/(n + z²): for n = 20, 3.8415/23.8415 = 0.16113."""
    assert agreement.wilson_interval(0, 20)[1] == pytest.approx(0.161125, abs=1e-5)


def test_sign_test_by_hand() -> None:
    """7 against 2: P(X <= 2 | n = 9) = (1 + 9 + 36) / 512; two-sided 92/512 = 0.1797."""
    assert agreement.sign_test(7, 2) == pytest.approx(92 / 512)
    assert agreement.sign_test(3, 3) == 1.0
    assert agreement.sign_test(0, 0) is None
    assert agreement.sign_test(13, 3) == pytest.approx(scipy_stats.binomtest(3, 16).pvalue)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=60))
def test_kappa_is_symmetric_and_at_most_one(pairs) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    for weights in ("nominal", "quadratic"):
        ab = agreement.cohen_kappa(a, b, categories=4, weights=weights)
        ba = agreement.cohen_kappa(b, a, categories=4, weights=weights)
        assert (ab is None) == (ba is None)
        if ab is not None:
            assert ab == pytest.approx(ba)
            assert ab <= 1 + 1e-12
