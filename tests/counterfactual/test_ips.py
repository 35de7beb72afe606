"""ips_score and ips_interval against a loop over impressions, a worked example, and a simulation of unbiasedness."""

from itertools import permutations

import numpy as np
import pytest
from scipy import stats

from sklearn_rankmetrics.counterfactual import PositionBasedModel, _ips, ips_interval, ips_score

METRICS = ["dcg@3", "ndcg@3", "p@2", "precision@4", "recall@2", "mrr", "mrr@2", "arp", "psp@2"]


def weight(base, rank, k):
    """The metric's weight at 1-based ``rank``."""
    if k is not None and rank > k:
        return 0.0
    return {
        "dcg": 1 / np.log2(rank + 1),
        "ndcg": 1 / np.log2(rank + 1),
        "precision": 1 / (k or 1),
        "p": 1 / (k or 1),
        "psp": 1 / (k or 1),
        "recall": 1.0,
        "arp": float(rank),
    }[base]


def naive_impression(base, k, clicks, scores, weights):
    """(numerator, normaliser) of one impression: the mean over every ordering that sorts the scores."""
    n = len(scores)
    ranked = [row for row in range(n) if np.isfinite(scores[row])]  # -inf: not ranked by the new ranker
    orders = [o for o in permutations(ranked) if all(scores[o[i]] >= scores[o[i + 1]] for i in range(len(ranked) - 1))]
    # ARP: a clicked document the new ranker hides counts at rank n + 1, below every ranked one.
    hidden = sum(clicks[row] * weights[row] * (n + 1) for row in range(n) if row not in ranked) if base == "arp" else 0
    values = []
    for order in orders:
        if base == "mrr":
            first = next((place for place, row in enumerate(order) if clicks[row]), None)
            value = 0.0 if first is None or (k and first + 1 > k) else weights[order[first]] / (first + 1)
        else:
            value = sum(clicks[row] * weights[row] * weight(base, place + 1, k) for place, row in enumerate(order))
        values.append(value + hidden)
    numerator = np.mean(values)
    ideal = sorted((clicks[row] * weights[row] for row in range(n)), reverse=True)
    if base in ("ndcg", "psp"):
        return numerator, sum(w * weight(base, place + 1, k) for place, w in enumerate(ideal))
    if base == "recall":
        return numerator, sum(ideal)
    return numerator, None


def naive_ips(clicks, scores, qid, propensity, metric, estimator, clip=None):
    base, _, k = metric.partition("@")
    k = int(k) if k else None
    weights = 1 / np.asarray(propensity, dtype=float)
    weights = weights if clip is None else np.minimum(weights, clip)
    values, norms, totals = [], [], []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        numerator, normaliser = naive_impression(base, k, clicks[rows], scores[rows], weights[rows])
        values.append(numerator if normaliser is None else (numerator / normaliser if normaliser else np.nan))
        norms.append(normaliser)
        totals.append((clicks[rows] * weights[rows]).sum())
    values, totals = np.array(values, dtype=float), np.array(totals)
    if base == "psp":
        return np.nansum(np.array(values) * np.array(norms, dtype=float)) / np.sum(np.array(norms, dtype=float))
    if estimator == "snips":
        if base in ("ndcg", "recall"):
            kept = totals > 0
            return np.sum(values[kept] * totals[kept]) / totals[kept].sum()
        return values.sum() / totals.sum()
    return np.nanmean(values)


def random_log(seed, n_impressions=25, ties=False, click_rate=0.4, hidden=0.0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, n_impressions)
    qid = np.repeat(rng.permutation(n_impressions) * 7, sizes)  # ids not contiguous, not sorted
    n = len(qid)
    scores = rng.integers(0, 3, n).astype(float) if ties else rng.normal(size=n)
    scores[rng.random(n) < hidden] = -np.inf
    clicks = (rng.random(n) < click_rate).astype(float)
    propensity = rng.uniform(0.05, 1.0, n)
    shuffle = rng.permutation(n)
    return clicks[shuffle], scores[shuffle], qid[shuffle], propensity[shuffle]


# psp@k is self-normalised: snips of it is refused (tested below), so only ips is compared for it.
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize(
    ("metric", "estimator"),
    [
        (metric, estimator)
        for metric in METRICS
        for estimator in ("ips", "snips")
        if not (metric.startswith("psp") and estimator == "snips")
    ],
)
def test_equals_a_loop_over_impressions(metric, estimator, ties):
    # Sparse clicks leave impressions without one (after the last clicked one in qid order too); -inf hides rows.
    for seed, options in enumerate([{}, {}, {"click_rate": 0.15}, {"hidden": 0.3}, {"click_rate": 0.2, "hidden": 0.3}]):
        clicks, scores, qid, propensity = random_log(seed, ties=ties, **options)
        for clip in (None, 4.0):
            found = ips_score(
                clicks, scores, qid=qid, propensity=propensity, metric=metric, estimator=estimator, clip=clip
            )
            expected = naive_ips(clicks, scores, qid, propensity, metric, estimator, clip)
            assert found == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("estimator", ["ips", "snips"])
def test_mrr_is_zero_for_an_impression_without_a_click(ties, estimator):
    # Only the first impression has a click: the later ones in qid order have no clicked document (hostile D1).
    clicks, qid = [1, 0, 0, 0, 0, 0], [1, 1, 2, 2, 3, 3]
    values = ips_score(
        clicks, [2, 1, 2, 1, 2, 1], qid=qid, propensity=[1.0] * 6, metric="mrr", average=False, ties=ties
    )
    np.testing.assert_array_equal(values, [1.0, 0.0, 0.0])
    mean = ips_score(clicks, [2, 1, 2, 1, 2, 1], qid=qid, propensity=[1.0] * 6, metric="mrr", estimator=estimator)
    assert mean == pytest.approx(1 / 3 if estimator == "ips" else 1.0)


def test_arp_counts_a_hidden_clicked_document_below_every_rank():
    # Hiding the clicked document with -inf must not improve ARP (lower is better) (hostile D7).
    arguments = {"qid": [1, 1, 1], "propensity": [1.0, 1.0, 1.0], "metric": "arp"}
    ranked_last = ips_score([1, 0, 0], [1, 2, 3], **arguments)
    hidden = ips_score([1, 0, 0], [-np.inf, 2, 3], **arguments)
    all_hidden = ips_score([1, 0, 0], [-np.inf] * 3, **arguments)
    assert (ranked_last, hidden, all_hidden) == (3.0, 4.0, 4.0)


def test_clip_inf_is_no_clipping_and_an_overflowing_inverse_is_refused():
    arguments = {"qid": [1, 1], "metric": "dcg@2"}
    plain = ips_score([1, 0], [2, 1], propensity=[0.5, 1.0], **arguments)
    assert ips_score([1, 0], [2, 1], propensity=[0.5, 1.0], clip=np.inf, **arguments) == plain == 2.0
    with pytest.raises(ValueError, match=r"propensity 5e-324 at row 0 is so small that its inverse overflows"):
        ips_score([1, 0], [2, 1], propensity=[5e-324, 1.0], **arguments)
    assert ips_score([1, 0], [2, 1], propensity=[5e-324, 1.0], clip=1e6, **arguments) == 1e6


def test_per_impression_values_follow_sorted_qid():
    clicks, scores, qid, propensity = random_log(5)
    values = ips_score(clicks, scores, qid=qid, propensity=propensity, metric="dcg@3", average=False)
    for q, value in zip(np.unique(qid), values, strict=True):
        rows = qid == q
        assert value == pytest.approx(
            ips_score(clicks[rows], scores[rows], qid=qid[rows], propensity=propensity[rows], metric="dcg@3")
        )


def test_pyxclib_propensity_scored_precision_worked_example():
    # Toy case (pyxclib's psprecision, Jain et al. 2016): one instance, five labels a..e; the true (clicked)
    # labels are a and b, with inverse propensities 2 and 3; the predictions rank a, c, d, b, e.
    # psP@3 = [(2 + 0 + 0) / 3] / [best top 3 by inverse propensity: (3 + 2 + 0) / 3] = 2/5 = 0.4.
    clicks = [1, 1, 0, 0, 0]
    propensity = [1 / 2, 1 / 3, 1.0, 1.0, 1.0]
    scores = [5, 2, 4, 3, 1]
    assert ips_score(clicks, scores, qid=[0] * 5, propensity=propensity, metric="psp@3") == pytest.approx(0.4)


def test_snips_ignores_the_propensities_scale_and_ips_scales_with_it():
    clicks, scores, qid, propensity = random_log(2)
    options = {"qid": qid, "metric": "dcg@3"}
    ips = ips_score(clicks, scores, propensity=propensity, **options)
    assert ips_score(clicks, scores, propensity=propensity / 2, **options) == pytest.approx(2 * ips)
    snips = ips_score(clicks, scores, propensity=propensity, estimator="snips", **options)
    assert ips_score(clicks, scores, propensity=propensity / 2, estimator="snips", **options) == pytest.approx(snips)


def pbm_log(rng, n_impressions, attention, alpha_levels):
    """A logging ranker shows 5 documents per impression in random order; clicks follow a known PBM."""
    n_docs = len(attention)
    qid = np.repeat(np.arange(n_impressions), n_docs)
    alpha = rng.choice(alpha_levels, size=n_impressions * n_docs)
    logged = np.tile(-np.arange(n_docs, dtype=float), n_impressions)  # row order is the logged rank
    seed = int(rng.integers(2**31))
    clicks = PositionBasedModel(attention=attention).simulate(alpha, logged, qid=qid, random_state=seed)
    propensity = np.tile(attention, n_impressions)
    return qid, alpha, clicks, propensity


def test_ips_is_unbiased_for_the_true_dcg_under_a_known_pbm():
    # Each repetition logs 400 impressions under a PBM, estimates the DCG@5 of a new ranker (noisy scores that
    # favour attractive documents) with its 95% interval, and checks the true DCG (gains = attractiveness) is
    # inside. The coverage over 100 repetitions is Binomial(100, 0.95) if the intervals are right: the test
    # fails below its 0.1% quantile.
    rng = np.random.default_rng(20240)
    attention = np.array([1.0, 0.7, 0.5, 0.35, 0.25])
    repetitions, covered = 100, 0
    for _ in range(repetitions):
        qid, alpha, clicks, propensity = pbm_log(rng, 400, attention, [0.05, 0.3, 0.8])
        new_scores = alpha + rng.normal(scale=0.3, size=len(alpha))
        truth = np.mean(
            [
                sum(a / np.log2(rank + 2) for rank, a in enumerate(alpha[qid == q][np.argsort(-new_scores[qid == q])]))
                for q in range(400)
            ]
        )
        low, high = ips_interval(
            clicks,
            new_scores,
            qid=qid,
            propensity=propensity,
            metric="dcg@5",
            n_resamples=500,
            random_state=int(rng.integers(2**31)),
        )
        covered += low <= truth <= high
    assert covered >= stats.binom.ppf(0.001, repetitions, 0.95)


def test_a_large_log_is_resampled_in_groups_close_to_the_impressions_bootstrap(monkeypatch):
    # Beyond BOOTSTRAP_UNITS impressions the groups' sums are resampled (bounded memory and time, hostile D6);
    # made small here, the grouped interval stays within a few percent of the width of the plain one.
    clicks, scores, qid, propensity = random_log(2, n_impressions=6000)
    arguments = {"qid": qid, "propensity": propensity, "n_resamples": 4000}
    for estimator in ("ips", "snips"):
        plain = ips_interval(clicks, scores, estimator=estimator, random_state=0, **arguments)
        monkeypatch.setattr(_ips, "BOOTSTRAP_UNITS", 1000)
        grouped = ips_interval(clicks, scores, estimator=estimator, random_state=0, **arguments)
        again = ips_interval(clicks, scores, estimator=estimator, random_state=0, **arguments)
        monkeypatch.undo()
        assert grouped == again
        np.testing.assert_allclose(grouped, plain, atol=0.1 * (plain[1] - plain[0]))


def test_the_interval_holds_the_estimate():
    clicks, scores, qid, propensity = random_log(1, n_impressions=200)
    for estimator in ("ips", "snips"):
        low, high = ips_interval(clicks, scores, qid=qid, propensity=propensity, estimator=estimator, random_state=0)
        assert low <= ips_score(clicks, scores, qid=qid, propensity=propensity, estimator=estimator) <= high


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"clicks": [1, 2, 0]}, ValueError, r"clicks must hold 0 \(not clicked\) or 1 \(clicked\).*2.* at row 1"),
        ({"propensity": [0.5, 0.0, 1.0]}, ValueError, r"propensity must lie in \(0, 1\]; got 0.0 at row 1"),
        ({"propensity": [0.5, 1.5, 1.0]}, ValueError, r"propensity must lie in \(0, 1\]; got 1.5"),
        ({"propensity": [0.5, 1.0]}, ValueError, r"propensity has 2 values but clicks has 3 rows"),
        ({"qid": [1, 1]}, ValueError, r"qid has 2 values but clicks has 3 rows"),
        ({"qid": None}, TypeError, r"qid is required"),
        ({"y_score": [1.0, np.nan, 2.0]}, ValueError, r"y_score contains NaN"),
        ({"metric": "ndgc@3"}, ValueError, r"metric must be one of dcg@k"),
        ({"metric": "p"}, ValueError, r"needs a cutoff, as in precision@10"),
        ({"metric": "arp@3"}, ValueError, r"arp looks at every rank: it takes no cutoff"),
        ({"estimator": "ipw"}, ValueError, r"estimator must be one of 'ips', 'snips'"),
        ({"clip": 0.5}, ValueError, r"clip must be in \[1.0, inf\)"),
        ({"clip": np.nan}, ValueError, r"clip"),
        ({"metric": "psp@2", "estimator": "snips"}, ValueError, r"psp@k is already self-normalised"),
        ({"average": "yes"}, TypeError, r"average must be True or False"),
    ],
)
def test_bad_inputs_name_the_argument(change, error, match):
    arguments = {"clicks": [1, 0, 0], "y_score": [0.3, 0.2, 0.1], "qid": [1, 1, 1], "propensity": [1.0, 0.5, 0.3]}
    arguments.update(change)
    clicks, y_score = arguments.pop("clicks"), arguments.pop("y_score")
    with pytest.raises(error, match=match):
        ips_score(clicks, y_score, **arguments)


def test_inputs_are_not_modified():
    clicks, scores, qid, propensity = random_log(3)
    copies = [a.copy() for a in (clicks, scores, qid, propensity)]
    ips_score(clicks, scores, qid=qid, propensity=propensity, metric="ndcg@3", clip=3.0)
    for before, after in zip(copies, (clicks, scores, qid, propensity), strict=True):
        np.testing.assert_array_equal(before, after)
