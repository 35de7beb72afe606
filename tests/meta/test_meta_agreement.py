"""Judge agreement: Cohen's kappa as scikit-learn's, Fleiss' as statsmodels', Krippendorff's alpha as krippendorff's."""

import warnings

import naive_meta
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from sklearn_rankmetrics.meta import (
    cohen_kappa,
    fleiss_kappa,
    judge_agreement,
    krippendorff_alpha,
    leaderboard_agreement,
    ordering_agreement,
)
from sklearn_rankmetrics.trec import evaluate_run, read_qrels

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")

nan = np.nan
# Hayes & Krippendorff (2007), Table 1: 40 news articles rated by 5 observers on an ordinal scale 0-3
# ("." missing), one article per line. The paper (and its KALPHA macro) reports ordinal alpha = .7598.
HAYES_2007_TABLE = """
1 1 2 . 2   1 1 0 1 .   2 3 3 3 .   . 0 0 . 0   0 0 0 . 0   0 0 0 . 0   1 0 2 . 1   1 . 2 0 .
2 2 2 . 2   2 1 1 1 .   . 1 0 0 .   0 0 0 0 .   1 2 2 2 .   3 3 2 2 3   1 1 1 . 1   1 1 1 . 1
2 1 2 . 2   1 2 3 3 .   1 1 0 1 .   0 0 0 . 0   0 0 1 1 .   0 0 . 0 0   2 3 3 3 .   0 0 0 0 .
1 2 . 2 2   0 1 1 1 .   0 0 0 1 0   1 2 1 2 .   1 1 2 2 .   1 1 2 . 2   1 1 0 . 0   2 1 2 1 .
2 2 . 2 2   3 2 2 2 .   2 2 2 . 2   2 2 3 . 2   2 2 2 . 2   2 2 . 1 2   2 2 2 2 .   1 1 1 . 1
"""
HAYES_2007 = (
    np.array([nan if value == "." else float(value) for value in HAYES_2007_TABLE.split()]).reshape(40, 5).T
)  # observers x articles

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers x 12 units, values 1-5.
# Published: nominal .743, ordinal .815, interval .849, ratio .797.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
)


def random_ratings(rng, missing=0.0):
    n_judges, n_items, n_values = int(rng.integers(2, 6)), int(rng.integers(2, 40)), int(rng.integers(2, 6))
    ratings = rng.integers(0, n_values, (n_judges, n_items)).astype(float)
    ratings[1:] = np.where(rng.random((n_judges - 1, n_items)) < 0.5, ratings[:1], ratings[1:])  # some agreement
    ratings[rng.random(ratings.shape) < missing] = np.nan
    return ratings


def test_the_published_values():
    assert round(krippendorff_alpha(HAYES_2007, level="ordinal"), 4) == 0.7598
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, value in published.items():
        assert round(krippendorff_alpha(KRIPPENDORFF_2011, level=level), 3) == value


@pytest.mark.parametrize("seed", range(40))
def test_cohen_kappa_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    a, b = random_ratings(rng)[:2].astype(int)
    for weights in (None, "linear", "quadratic"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(a, b, weights=weights)
            ours = cohen_kappa(a, b, weights=weights)
        assert ours == pytest.approx(expected, abs=1e-12, nan_ok=True)
    labels = [4, 0, 1, 2, 3, 5]  # in the order given, with categories no judge used
    expected = cohen_kappa_score(a, b, weights="linear", labels=labels)
    assert cohen_kappa(a, b, weights="linear", labels=labels) == pytest.approx(expected, abs=1e-12)
    words = np.array(["bad", "fair", "good", "great", "top", "x"])
    assert cohen_kappa(words[a], words[b]) == pytest.approx(cohen_kappa_score(words[a], words[b]), abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_fleiss_kappa_equals_statsmodels_and_gwets_form_with_missing_ratings(seed):
    rng = np.random.default_rng(seed)
    ratings = random_ratings(rng)
    table = inter_rater.aggregate_raters(ratings.T)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = inter_rater.fleiss_kappa(table)
        assert fleiss_kappa(ratings) == pytest.approx(expected, abs=1e-12, nan_ok=True)
        missing = random_ratings(rng, missing=0.3)
        if (np.sum(~np.isnan(missing), axis=0) >= 2).any():
            assert fleiss_kappa(missing) == pytest.approx(naive_meta.fleiss_gwet(missing), abs=1e-12, nan_ok=True)


def test_fleiss_kappa_with_missing_ratings_by_hand():
    # Items: (1, 1, -), (0, 1, 1), (2, 2, 2); a 4th item judged once counts in the shares only.
    ratings = [[1, 0, 2, 0], [1, 1, 2, nan], [nan, 1, 2, nan]]
    observed = (1 + 1 / 3 + 1) / 3  # item 1: 2 of 2 pairs agree; item 2: 2 of 6; item 3: all
    shares = {0: (0 + 1 / 3 + 0 + 1) / 4, 1: (1 + 2 / 3 + 0 + 0) / 4, 2: (0 + 0 + 1 + 0) / 4}
    chance = sum(share**2 for share in shares.values())
    assert fleiss_kappa(ratings) == pytest.approx((observed - chance) / (1 - chance), abs=1e-15)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_equals_the_krippendorff_package(seed, level):
    rng = np.random.default_rng(seed)
    ratings = random_ratings(rng, missing=0.3 * (seed % 2))
    try:
        expected = krippendorff.alpha(reliability_data=ratings, level_of_measurement=level)
    except ValueError:  # nothing pairable, or one value: the package refuses
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert krippendorff_alpha(ratings, level=level) == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_agreement_statistics_are_invariant_to_the_order_of_judges_and_items():
    rng = np.random.default_rng(3)
    ratings = random_ratings(rng, missing=0.2)
    ratings = np.vstack([ratings, [0.0] * ratings.shape[1]])  # every item pairable
    judges, items = rng.permutation(len(ratings)), rng.permutation(ratings.shape[1])
    for function in (fleiss_kappa, krippendorff_alpha):
        assert function(ratings[judges][:, items]) == pytest.approx(function(ratings), abs=1e-12)
    assert cohen_kappa(ratings[0], ratings[-1]) == pytest.approx(cohen_kappa(ratings[-1], ratings[0]), abs=1e-12)
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]]) == 1.0


# ---- on qrels ------------------------------------------------------------------------------------------


def random_qrels(rng, n_queries=6, n_docs=12):
    return {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs) if rng.random() < 0.8}
        for q in range(n_queries)
    }


def aligned(judges):
    """The judges' judgements as a judges x items matrix, by loops, and each item's query."""
    keys = sorted({(q, d) for qrels in judges for q in qrels for d in qrels[q]})
    ratings = np.array([[qrels.get(q, {}).get(d, nan) for q, d in keys] for qrels in judges], dtype=float)
    return ratings, [q for q, _ in keys]


@pytest.mark.parametrize("seed", range(10))
def test_judge_agreement_on_qrels_equals_the_statistics_on_aligned_judgements(seed, tmp_path):
    rng = np.random.default_rng(seed)
    human, llm, other = random_qrels(rng), random_qrels(rng), random_qrels(rng)
    ratings, queries = aligned([human, llm, other])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for level in ("nominal", "ordinal", "interval"):
            result = judge_agreement({"h": human, "l": llm, "o": other}, level=level)
            assert result.statistic == pytest.approx(krippendorff_alpha(ratings, level=level), abs=1e-12)
            for query in sorted(set(queries)):
                columns = ratings[:, [i for i, q in enumerate(queries) if q == query]]
                if (np.sum(~np.isnan(columns), axis=0) >= 2).any():
                    expected = krippendorff.alpha(reliability_data=columns, level_of_measurement=level)
                    assert result.per_query[query] == pytest.approx(expected, abs=1e-12, nan_ok=True)
        result = judge_agreement([human, llm, other], statistic="fleiss")
        assert result.statistic == pytest.approx(naive_meta.fleiss_gwet(ratings), abs=1e-12)
        pair, pair_queries = aligned([human, llm])
        both = ~np.isnan(pair).any(axis=0)
        for weights in (None, "quadratic"):
            result = judge_agreement([human, llm], statistic="cohen", weights=weights)
            a, b = pair[:, both].astype(int)
            assert result.statistic == pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-12)
            labels = np.unique(pair[:, both])
            query = pair_queries[int(np.flatnonzero(both)[0])]
            mask = both & (np.array(pair_queries) == query)
            expected = cohen_kappa_score(*pair[:, mask].astype(int), weights=weights, labels=labels)
            assert result.per_query[query] == pytest.approx(expected, abs=1e-12, nan_ok=True)
            assert result.n_items == int(both.sum())
    # every input route gives the same: files, DataFrames, Qrels
    pd = pytest.importorskip("pandas")
    path = tmp_path / "human.qrels"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q in human for d, r in human[q].items()))
    frame = pd.DataFrame(
        [(q, d, r) for q in llm for d, r in llm[q].items()], columns=["query_id", "doc_id", "relevance"]
    )
    expected = judge_agreement([human, llm]).statistic
    assert judge_agreement([str(path), frame]).statistic == pytest.approx(expected, abs=1e-15)
    assert judge_agreement([read_qrels(path), llm]).statistic == pytest.approx(expected, abs=1e-15)


def test_negative_judgements_count_as_not_judged():
    human = {"q1": {"d1": 1, "d2": 0, "d3": -1}}
    llm = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    assert judge_agreement([human, llm], statistic="cohen").n_items == 2


def test_leaderboard_agreement_evaluates_every_run_with_both_qrels():
    rng = np.random.default_rng(0)
    human, llm = random_qrels(rng), random_qrels(rng)
    runs = {f"run{i}": {q: {f"d{d}": float(rng.random()) for d in range(12)} for q in human} for i in range(6)}
    result = leaderboard_agreement(human, llm, runs, measure="ndcg_cut.10")
    x = {name: evaluate_run(human, run, ["ndcg_cut.10"])["ndcg_cut_10"] for name, run in runs.items()}
    y = {name: evaluate_run(llm, run, ["ndcg_cut.10"])["ndcg_cut_10"] for name, run in runs.items()}
    expected = ordering_agreement(x, y)
    assert result.kendall_tau == expected.kendall_tau
    assert result.tau_ap == expected.tau_ap
    assert result.swaps == expected.swaps


def test_leaderboards_average_over_the_queries_both_qrels_judge():
    # The LLM judged q1 only, and agrees with the human there: over q1 alone the orderings are the same.
    human = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 0, "d6": 0}}
    llm = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    runs = {
        "a": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"d4": 3, "d5": 2, "d6": 1}},
        "b": {"q1": {"d2": 3, "d1": 2, "d3": 1}, "q2": {"d5": 3, "d6": 2, "d4": 1}},
        "c": {"q1": {"d3": 3, "d2": 2, "d1": 1}, "q2": {"d6": 3, "d4": 2, "d5": 1}},
    }
    with pytest.warns(UserWarning, match="reference judges 1 query that the other does not: both leaderboards average"):
        shared = leaderboard_agreement(human, llm, runs, measure="P.1")
    on_q1 = {name: evaluate_run({"q1": human["q1"]}, run, ["P.1"])["P_1"] for name, run in runs.items()}
    assert dict(zip(shared.systems, shared.x.tolist(), strict=True)) == on_q1
    assert shared.kendall_tau.statistic == pytest.approx(1.0) and shared.tau_ap == 1.0 and shared.n_swaps == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # each over its own queries: no warning, the old figures
        own = leaderboard_agreement(human, llm, runs, measure="P.1", queries="own")
    assert dict(zip(own.systems, own.x.tolist(), strict=True)) == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert own.kendall_tau.statistic == pytest.approx(0.8165, abs=1e-4)
    with pytest.raises(ValueError, match="reference and other judge no query in common"):
        leaderboard_agreement(human, {"q9": {"d1": 1}}, runs, measure="P.1")
    with pytest.raises(ValueError, match="queries must be one of"):
        leaderboard_agreement(human, llm, runs, measure="P.1", queries="all")


def _twice():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", "d"], "relevance": [1, 0]})


def test_bad_inputs_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="a and b must label the same items; got 3 and 2"):
        cohen_kappa([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="has 1 missing label"):
        cohen_kappa([1.0, nan, 3.0], [1, 2, 3])
    with pytest.raises(ValueError, match="weights must be one of"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="which is not one of labels"):
        cohen_kappa([1, 2, 3], [1, 2, 2], labels=[1, 2])
    with pytest.raises(ValueError, match="at least two judges"):
        fleiss_kappa([[1, 2, 3]])
    with pytest.raises(ValueError, match="no item of ratings has two judgements"):
        krippendorff_alpha([[nan, nan], [nan, nan]])
    with pytest.raises(TypeError, match="labels of one kind"):
        cohen_kappa(["a", "b"], [1, 2])
    with pytest.raises(ValueError, match="judged document 'd' of query 'q' more than once"):
        judge_agreement([{"q": {"d": 1}}, _twice()])
    with pytest.raises(ValueError, match="no item of ratings has two judgements"):
        krippendorff_alpha([[1, nan], [nan, 2]])
    with pytest.raises(ValueError, match="level must be one of"):
        krippendorff_alpha([[1, 2], [1, 2]], level="circular")
    with pytest.raises(ValueError, match="level='ratio' needs non-negative values"):
        krippendorff_alpha([[-1, 2], [1, 2]], level="ratio")
    with pytest.raises(ValueError, match="contains infinity"):
        fleiss_kappa([[1, np.inf], [1, 2]])
    with pytest.warns(UserWarning, match="undefined"):
        assert np.isnan(krippendorff_alpha([[1, 1], [1, 1]]))
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(TypeError, match="looks like a single qrels"):
        judge_agreement(qrels)
    with pytest.raises(ValueError, match="at least two judges; got 1"):
        judge_agreement([qrels])
    with pytest.raises(ValueError, match="Cohen's kappa compares two judges; got 3"):
        judge_agreement([qrels, qrels, qrels], statistic="cohen")
    with pytest.raises(ValueError, match="share no judged document"):
        judge_agreement([qrels, {"q2": {"d1": 1}}])
    with pytest.raises(ValueError, match="the qrels of judge '1'"):
        judge_agreement([qrels, {"q2": {"d 1": 1}}])
    with pytest.raises(ValueError, match="at least two runs; got 1"):
        leaderboard_agreement(qrels, qrels, {"a": {"q1": {"d1": 1.0}}})
