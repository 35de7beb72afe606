"""compare_rankings at its edges: effect sizes without spread, queries left out, p-value floors, the bootstrap
test's level with few queries, runs as a DataFrame, escaped paper tables, exact ranges in messages, JSON.

Each test reproduces a defect found by attacking issue #27's statistics and checks the fix.
"""

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from sklearn_rankmetrics import RankingComparison, compare_rankings, topic_set_size, topic_set_size_anova
from sklearn_rankmetrics._core._resampling import Resamples, bootstrap_means
from sklearn_rankmetrics.stats._anova import tukey_columns
from sklearn_rankmetrics.stats._paired_tests import (
    SMALL_BOOTSTRAP,
    bootstrap_t_columns,
    bootstrap_t_pvalues,
    exact_randomization_counts,
    paired_pvalues,
)

pd = pytest.importorskip("pandas")

PAIRED_TESTS = ["randomization", "t-test", "wilcoxon", "bootstrap"]
TESTS = [*PAIRED_TESTS, "tukey-hsd", "randomized-tukey-hsd"]


def data(n_queries=20, n_systems=3, seed=0, docs=5):
    """Systems of increasing quality on ``n_queries`` queries of ``docs`` documents."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), docs)
    y_true = rng.integers(0, 3, qid.size)
    scores = {f"s{i}": 0.4 * i * y_true + rng.normal(0, 1, qid.size) for i in range(n_systems)}
    return y_true, scores, qid


def constant_difference(n_queries):
    """Two systems whose reciprocal ranks differ by 0.5 on every query (1 against 1/2)."""
    qid, y_true = np.repeat(np.arange(n_queries), 2), np.tile([1, 0], n_queries)
    return y_true, {"a": np.tile([1.0, 2.0], n_queries), "b": np.tile([2.0, 1.0], n_queries)}, qid


def pair_rows(result):
    return result.to_frame(kind="rows").dropna(subset=["baseline"]).reset_index(drop=True)


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


# --- effect sizes without spread, and JSON ------------------------------------------------------------------


@pytest.mark.parametrize("test", TESTS)
def test_effect_size_is_nan_on_one_query_and_infinite_for_a_constant_difference(test):
    # One query: no standard deviation (nor residual) exists; was +/-inf.
    one = quietly(compare_rankings, [1, 0, 0], {"a": [1.0, 2, 3], "b": [3.0, 2, 1]}, qid=[0, 0, 0], test=test)
    assert np.isnan(pair_rows(one).effect_size.iloc[0])
    # Identical systems: no effect, whatever the number of queries.
    same = quietly(compare_rankings, [1, 0, 0], {"a": [1.0, 2, 3], "b": [1.0, 2, 3]}, qid=[0, 0, 0], test=test)
    assert pair_rows(same).effect_size.iloc[0] == 0.0
    # The same non-zero difference on every query: the limit of mean / spread as the spread vanishes.
    y_true, scores, qid = constant_difference(8)
    constant = quietly(compare_rankings, y_true, scores, qid=qid, metrics=["mrr"], test=test, random_state=0)
    assert pair_rows(constant).effect_size.iloc[0] == np.inf


def test_effect_size_of_equal_differences_is_infinite_whatever_their_rounding():
    # 0.1 on every query: the float mean is not exactly 0.1, so the float standard deviation is not exactly 0.
    from sklearn_rankmetrics.stats._paired_tests import effect_sizes, mean_difference, pair_differences

    assert effect_sizes(np.full(3, 0.1), [0.1]) == np.inf and effect_sizes(np.full(7, -0.3), [-0.3]) == -np.inf
    assert np.isnan(effect_sizes(np.array([0.2]), [0.2])) and effect_sizes(np.zeros(1), [0.0]) == 0.0
    # b = a + 0.1, computed: the float differences are 0.1 up to rounding, so their spread is 0.
    a = np.random.default_rng(0).random(9)
    assert np.ptp((a + 0.1) - a) > 0
    d = pair_differences(a + 0.1, a)
    assert effect_sizes(d, [mean_difference(d)]) == np.inf


@pytest.mark.parametrize("test", ["t-test", "tukey-hsd"])
def test_json_round_trips_an_infinite_effect_size_exactly(test):
    y_true, scores, qid = constant_difference(8)
    result = quietly(compare_rankings, y_true, scores, qid=qid, metrics=["mrr"], test=test, random_state=0)
    text = result.to_json()  # raised "Out of range float values are not JSON compliant"
    assert "Infinity" not in text and json.loads(text)["rows"][1]["effect_size"] == "inf"
    restored = RankingComparison.from_json(text)
    assert restored.rows[1]["effect_size"] == np.inf
    assert restored.to_frame(kind="rows").equals(result.to_frame(kind="rows")) and str(restored) == str(result)
    if test == "tukey-hsd":  # significant (p = 0, with a warning): the tables show the effect
        assert "<sup>a (∞)</sup>" in result.to_markdown(effect_sizes=True)
        assert r"\textsuperscript{a ($\infty$)}" in result.to_latex(effect_sizes=True)


# --- the queries compared ---------------------------------------------------------------------------------


def test_n_queries_and_the_footers_count_the_queries_compared():
    y_true, scores, qid = data(n_queries=10, n_systems=2, seed=3)
    y_true[qid < 3] = 0  # three queries without a relevant document: left out under zero_division=nan
    result = compare_rankings(y_true, scores, qid=qid, metrics=["mrr"], zero_division=np.nan, random_state=0)
    row = pair_rows(result).iloc[0]
    assert result.n_queries == 7 and row.n_queries == 7 and row.wins + row.ties + row.losses == 7
    assert str(result).splitlines()[-1].startswith("means over 7 of 10 queries (those defined for every system),")
    assert "; 7 of 10 queries (those defined for every system))." in result.to_markdown()
    assert RankingComparison.from_json(result.to_json()).to_frame(kind="rows").equals(result.to_frame(kind="rows"))
    # Every query defined: as before.
    everything = compare_rankings(*data(n_queries=10, n_systems=2)[:2], qid=qid, metrics=["mrr"], random_state=0)
    assert everything.n_queries == 10 and "means over 10 queries, then" in str(everything)


def test_metrics_defined_on_different_queries_report_their_own_counts():
    y_true, scores, qid = data(n_queries=10, n_systems=2, seed=0, docs=4)
    y_true[qid < 2] = 0
    metrics = ["mrr", "P@4(relevance_threshold=2)"]  # the second needs a label of 2, which some queries lack
    result = compare_rankings(y_true, scores, qid=qid, metrics=metrics, zero_division=np.nan, test="t-test")
    counts = pair_rows(result).set_index("metric").n_queries
    defined = {
        metric: int(np.all([~np.isnan(v) for v in result.per_query[metric].values()], axis=0).sum())
        for metric in metrics
    }
    assert counts.to_dict() == defined and defined["mrr"] != defined[metrics[1]]
    assert result.n_queries == max(defined.values())  # the queries compared by any metric (nested here)
    expected = f"means over {defined['mrr']} (mrr), {defined[metrics[1]]} ({metrics[1]}) of 10 queries"
    assert str(result).splitlines()[-1].startswith(expected)


def test_no_query_left_warns_once_and_without_numpy_warnings():
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    for test in TESTS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = compare_rankings(
                np.zeros_like(y_true), scores, qid=qid, metrics=["ndcg@10"], zero_division=np.nan, test=test
            )
        messages = [str(w.message) for w in caught]
        assert len(messages) == 1, (test, messages)  # was 51, "Mean of empty slice" among them
        assert messages[0].startswith("No query defines 'ndcg@10' for every system")
        row = pair_rows(result).iloc[0]
        assert np.isnan(row["mean"]) and np.isnan(row.delta) and np.isnan(row.effect_size)
        assert (row.pvalue, row.n_queries, row.wins + row.ties + row.losses) == (1.0, 0, 0)
        assert "means over 0 of 5 queries (none defined for every system)" in str(result)


# --- p-value floors ------------------------------------------------------------------------------------------


def test_the_floor_warning_compares_with_alpha_not_the_confidence_level():
    y_true, scores, qid = data(n_queries=3, n_systems=2)
    arguments = {"qid": qid, "test": "bootstrap", "random_state": 0}
    # 3 queries: p >= 2 / 2**3 = 0.25. Was silent at confidence_level=0.5 (it compared with 1 - 0.5).
    with pytest.warns(UserWarning, match=r"With 3 queries the bootstrap test of 'ndcg@10' cannot reach p < 0.05"):
        compare_rankings(y_true, scores, alpha=0.05, confidence_level=0.5, **arguments)
    with warnings.catch_warnings():  # 0.25 < 0.3: p can be significant, whatever confidence_level
        warnings.simplefilter("error")
        result = compare_rankings(y_true, scores, alpha=0.3, confidence_level=0.95, **arguments)
    assert pair_rows(result).pvalue.iloc[0] >= 0.25


@pytest.mark.parametrize(
    ("test", "n_queries", "n_resamples", "floor"),
    [
        ("randomization", 5, 10_000, "0.0625"),  # 2 / 2**5
        ("randomization", 20, 15, "0.0625"),  # 1 / (1 + 15): too few resamples
        ("bootstrap", 5, 10_000, "0.0625"),
        ("randomized-tukey-hsd", 3, 10_000, "0.0278"),  # 1 / 3!**2, three systems
    ],
)
def test_a_test_that_cannot_reach_alpha_says_so(test, n_queries, n_resamples, floor):
    y_true, scores, qid = data(n_queries=n_queries, n_systems=3 if test == "randomized-tukey-hsd" else 2)
    alpha = 0.02 if test == "randomized-tukey-hsd" else 0.05
    with pytest.warns(UserWarning, match=rf"cannot reach p < {alpha}: its smallest p-value is {floor}"):
        result = compare_rankings(
            y_true, scores, qid=qid, test=test, n_resamples=n_resamples, alpha=alpha, random_state=0
        )
    assert (pair_rows(result).pvalue >= float(floor) - 1e-4).all()


# --- the bootstrap test with few queries ---------------------------------------------------------------------


def test_bootstrap_p_value_is_at_least_the_exact_randomization_one_up_to_13_queries():
    rng = np.random.default_rng(0)
    for n_queries in (SMALL_BOOTSTRAP, SMALL_BOOTSTRAP + 1):
        differences = rng.choice([-1.0, 0.0, 1.0], size=(n_queries, 50))
        differences[:, 0] = 0  # identical systems
        moments = bootstrap_means(bootstrap_t_columns(differences), Resamples(999, np.random.default_rng(1)))
        pvalues = np.array(paired_pvalues(differences, "bootstrap", moments=moments))
        bootstrap_t = bootstrap_t_pvalues(differences, moments)
        if n_queries <= SMALL_BOOTSTRAP:
            exact = exact_randomization_counts(differences) / 2**n_queries
            np.testing.assert_array_equal(pvalues[1:], np.maximum(bootstrap_t, exact)[1:])
        else:
            np.testing.assert_array_equal(pvalues[1:], bootstrap_t[1:])
        assert pvalues[0] == 1.0


@pytest.mark.parametrize(
    ("n_queries", "values", "zero_share"),
    # With infinitely many resamples the bootstrap-t alone rejects 0.078, 0.10 and 0.070 of these nulls at 0.05.
    [(6, (-1.0, 0.0, 1.0), 0.5), (7, (-1.0, 0.0, 1.0), 0.5), (13, (-1.0, 1.0), 0.0)],
    ids=["6 queries, {-1, 0, 1}", "7 queries, {-1, 0, 1}", "13 queries, +-1"],
)
def test_bootstrap_test_holds_its_level_for_few_queries_of_few_values(n_queries, values, zero_share):
    # 4,000 data sets (the columns), each tested with 1,999 resamples: the rejection rate stays below
    # 0.05 + 3 standard errors. Symmetric about 0: the randomization test's null, for which it is exact.
    rng = np.random.default_rng(5)
    n_sets, alpha = 4000, 0.05
    p = [(1 - zero_share) / 2, zero_share, (1 - zero_share) / 2] if len(values) == 3 else None
    differences = rng.choice(values, p=p, size=(n_queries, n_sets))
    moments = bootstrap_means(bootstrap_t_columns(differences), Resamples(1999, rng))
    pvalues = np.array(paired_pvalues(differences, "bootstrap", moments=moments))
    rejected = np.mean(pvalues <= alpha)
    assert rejected <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n_sets), rejected


# --- the randomised Tukey HSD enumerates small cases -----------------------------------------------------------


def enumerated_pvalues(matrix):
    """Sakai's randomised Tukey HSD by a loop over every permutation of every query's values."""
    n, k = matrix.shape
    means = matrix.mean(axis=0)
    ranges = []
    for permutations in itertools.product(itertools.permutations(range(k)), repeat=n):
        permuted = np.array([matrix[q, list(p)] for q, p in enumerate(permutations)]).mean(axis=0)
        ranges.append(permuted.max() - permuted.min())
    ranges = np.array(ranges)
    return [np.mean(ranges >= abs(means[b] - means[a]) - 1e-12) for a, b in itertools.combinations(range(k), 2)]


def test_randomized_tukey_enumerates_every_permutation_when_they_fit_in_n_resamples():
    matrix = np.array([[0.2, 0.5, 0.9], [0.1, 0.4, 0.3], [0.6, 0.7, 1.0], [0.3, 0.2, 0.8]])  # 6**4 = 1296
    names = ["a", "b", "c"]
    values = {"m": {name: matrix[:, i] for i, name in enumerate(names)}}
    pairs = list(itertools.combinations(names, 2))
    first = tukey_columns(values, pairs, "randomized-tukey-hsd", 1296, 0.95, np.random.default_rng(0))
    second = tukey_columns(values, pairs, "randomized-tukey-hsd", 5000, 0.95, np.random.default_rng(1))
    np.testing.assert_allclose(first["pvalue"], enumerated_pvalues(matrix), rtol=1e-12)
    np.testing.assert_array_equal(first["pvalue"], second["pvalue"])  # exact: no resampling, no seed
    # One fewer resample than permutations: sampled, (1 + count) / (1 + B).
    sampled = tukey_columns(values, pairs, "randomized-tukey-hsd", 1295, 0.95, np.random.default_rng(0))
    assert not np.array_equal(sampled["pvalue"], first["pvalue"])


def test_randomized_tukey_of_two_systems_enumerated_is_the_exact_randomization_test():
    y_true, scores, qid = data(n_queries=10, n_systems=2, seed=4)
    arguments = {"qid": qid, "metrics": ["ndcg@10", "mrr"], "correction": None, "n_resamples": 2**10}
    tukey = pair_rows(compare_rankings(y_true, scores, test="randomized-tukey-hsd", random_state=0, **arguments))
    flips = pair_rows(compare_rankings(y_true, scores, test="randomization", random_state=1, **arguments))
    np.testing.assert_allclose(tukey.pvalue, flips.pvalue, rtol=1e-12)


# --- several runs -----------------------------------------------------------------------------------------------


def test_a_dataframe_of_runs_takes_its_rows_as_runs():
    y_true, scores, qid = data(n_queries=6, n_systems=2, docs=3)
    rng = np.random.default_rng(0)
    runs = np.stack([scores["s1"] + rng.normal(0, 0.5, scores["s1"].size) for _ in range(3)])
    frame = pd.DataFrame(runs, columns=[f"row{i}" for i in range(runs.shape[1])])
    arguments = {"qid": qid, "metrics": ["ndcg@10"], "test": "t-test", "random_state": 0}
    from_frame = compare_rankings(y_true, {"a": scores["s0"], "b": frame}, **arguments)  # split by column label
    from_list = compare_rankings(y_true, {"a": scores["s0"], "b": list(runs)}, **arguments)
    assert from_frame.to_frame(kind="rows").equals(from_list.to_frame(kind="rows"))
    assert from_frame.to_frame(kind="rows").n_runs.tolist() == [1, 3]


def test_tukey_with_runs_measures_against_the_run_averaged_interaction():
    # The documented error term: the residual of the run-averaged values, which is the system x query interaction
    # mean square of the runs' model divided by the number of runs (not anova()'s pooled residual).
    statsmodels = pytest.importorskip("statsmodels.formula.api")
    anova_lm = pytest.importorskip("statsmodels.stats.anova").anova_lm
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, (15, 8))
    runs = {name: weight * labels + rng.normal(size=(3, 15, 8)) for name, weight in [("a", 0), ("b", 1), ("c", 0.5)]}
    result = compare_rankings(labels, runs, metrics=["ndcg@5"], test="tukey-hsd")
    long = pd.DataFrame(
        [
            (system, query, run, value)
            for system, values in result.run_values["ndcg@5"].items()
            for run, run_values in enumerate(values)
            for query, value in enumerate(run_values)
        ],
        columns=["system", "query", "run", "value"],
    )
    model = anova_lm(statsmodels.ols("value ~ C(system) * C(query) + C(system):C(run)", long).fit(), typ=1)
    interaction = model.loc["C(system):C(query)"]
    mse = interaction["sum_sq"] / interaction["df"] / 3
    for row in pair_rows(result).itertuples():
        assert row.effect_size == pytest.approx(row.delta / np.sqrt(mse), rel=1e-10)
        q = abs(row.delta) / np.sqrt(mse / 15)
        assert row.pvalue == pytest.approx(stats.studentized_range.sf(q, 3, interaction["df"]), rel=1e-6)
    assert result.anova().loc["residual", "mean_sq"] != pytest.approx(mse, rel=0.1)


# --- paper tables --------------------------------------------------------------------------------------------


NAMES = ["*bm25*", "<b>dense</b>", "two\nlines", "x\\y [1] | `z` _w_"]


def test_markdown_escapes_names_and_keeps_each_row_on_one_line():
    y_true, scores, qid = data(n_queries=30, n_systems=4)
    result = compare_rankings(y_true, dict(zip(NAMES, scores.values(), strict=True)), qid=qid, test="t-test")
    lines = result.to_markdown(ci=False).splitlines()
    assert lines[2].startswith("| (a) \\*bm25\\* | ")
    assert lines[3].startswith("| (b) \\<b\\>dense\\</b\\> | ")
    assert lines[4].startswith("| (c) two lines | ")
    assert lines[5].startswith("| (d) x\\\\y \\[1\\] \\| \\`z\\` \\_w\\_ | ")
    assert lines[6] == ""  # four systems, four rows: no name broke a row
    assert "two lines - *bm25*" in str(result)


def test_markdown_escapes_what_github_renders_as_markup_in_a_cell():
    # Filed: "$" was not escaped (GitHub renders $...$ as math). Also GitHub's emoji shortcodes and URL schemes
    # (":"), issue references ("#") and mentions or e-mail addresses ("@"), but not a metric's cutoff (ndcg@10).
    y_true, scores, qid = data(n_queries=10, n_systems=4)
    names = ["$x$ and $$y$$", ":rocket: https://example.org", "#12 @alice", "bob@example.org"]
    result = compare_rankings(
        y_true, dict(zip(names, scores.values(), strict=True)), qid=qid, metrics=["ndcg@10", "P@5"], test="t-test"
    )
    lines = result.to_markdown(ci=False).splitlines()
    assert lines[0] == "| system | ndcg@10 | P@5 |"
    assert lines[2].startswith("| (a) \\$x\\$ and \\$\\$y\\$\\$ | ")
    assert lines[3].startswith("| (b) \\:rocket\\: https\\://example.org | ")
    assert lines[4].startswith("| (c) \\#12 \\@alice | ")
    assert lines[5].startswith("| (d) bob\\@example.org | ")
    # Every $ : # and @ of a name is escaped (an odd number of backslashes before it).
    for line in lines[2:6]:
        name = line.split(" | ")[0]
        for position, character in enumerate(name):
            if character in "$:#@":
                backslashes = len(name[:position]) - len(name[:position].rstrip("\\"))
                assert backslashes % 2 == 1, (name, position)


def test_markdown_legend_escapes_the_metric_names_it_shows():
    # Metrics compared on different queries name themselves in the legend, escaped as in the header.
    from sklearn_rankmetrics.stats._comparison import COLUMNS

    counts = {"$m$": 9, "P@5": 12}
    rows = [
        {**dict.fromkeys(COLUMNS), "system": system, "metric": metric, "mean": 0.5, "n_queries": count, "n_runs": 1}
        for metric, count in counts.items()
        for system in ("a", "b")
    ]
    per_query = {"qid": np.arange(12), **{metric: {"a": np.zeros(12), "b": np.zeros(12)} for metric in counts}}
    comparison = RankingComparison(rows=rows, n_queries=12, per_query=per_query)
    markdown = comparison.to_markdown(ci=False)
    assert markdown.splitlines()[0] == "| system | \\$m\\$ | P@5 |"
    assert "9 (\\$m\\$), 12 (P@5) of 12 queries" in markdown.splitlines()[-1]


def test_latex_escapes_angle_brackets_and_bars_in_names_and_the_legend():
    y_true, scores, qid = data(n_queries=30, n_systems=4)
    result = compare_rankings(y_true, dict(zip(NAMES, scores.values(), strict=True)), qid=qid, test="t-test")
    latex = result.to_latex(ci=False)
    assert r"(b) \textless{}b\textgreater{}dense\textless{}/b\textgreater{} & " in latex
    assert r"(d) x\textbackslash{}y [1] \textbar{} `z` \_w\_ & " in latex
    assert "(c) two lines & " in latex
    assert r"adjusted p \textless{} 0.05" in latex
    assert not {"<", ">", "|"} & set(latex.replace(r"\\", ""))


def test_alpha_prints_as_given():
    y_true, scores, qid = data(n_queries=20, n_systems=2)
    result = compare_rankings(y_true, scores, qid=qid, test="t-test", alpha=0.0125, confidence_level=0.975)
    assert "* p < 0.0125 (t-test, holm)" in str(result)  # was 0.013
    markdown = result.to_markdown()
    assert "adjusted p < 0.0125 (" in markdown and "Brackets: 97.5% bootstrap interval" in markdown


# --- bad input ----------------------------------------------------------------------------------------------


def test_empty_metrics_are_refused_with_the_fix():
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    with pytest.raises(ValueError, match=r"metrics is empty: compare_rankings needs at least one metric name"):
        compare_rankings(y_true, scores, qid=qid, metrics=[])


@pytest.mark.parametrize(
    ("metrics", "first", "second"),
    [(["ndcg@10", "NDCG@10"], "ndcg@10", "NDCG@10"), (["mrr", "ndcg@10", "recip_rank"], "mrr", "recip_rank")],
)
def test_one_metric_under_two_spellings_is_refused(metrics, first, second):
    y_true, scores, qid = data(n_queries=5, n_systems=2)
    with pytest.raises(ValueError, match=f"metrics names the same metric twice: '{first}' and '{second}' compute"):
        compare_rankings(y_true, scores, qid=qid, metrics=metrics)
    result = compare_rankings(y_true, scores, qid=qid, metrics=["ndcg@10", "ndcg@5", "ndcg"], test="t-test")
    assert len(pair_rows(result)) == 3  # other cutoffs: other metrics


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: topic_set_size(float("inf")), "effect_size must be a finite number; got inf."),
        (
            lambda: topic_set_size_anova(0.1, variance=float("inf"), n_systems=3),
            r"variance must be in (0, inf); got inf.",
        ),
        (lambda: topic_set_size(0.3, alpha=0), "alpha must be in (0, 1); got 0.0."),
        (lambda: topic_set_size(0.3, alpha=1), "alpha must be in (0, 1); got 1.0."),
        (lambda: compare_rankings(*data(4, 2)[:2], qid=data(4, 2)[2], alpha=0), "alpha must be in (0, 1); got 0.0."),
        (
            lambda: compare_rankings(*data(4, 2)[:2], qid=data(4, 2)[2], confidence_level=1),
            "confidence_level must be in (0, 1); got 1.0.",
        ),
    ],
)
def test_range_messages_state_the_bounds_they_enforce(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert str(error.value) == message


def test_from_json_names_what_is_missing():
    y_true, scores, qid = data(n_queries=6, n_systems=2)
    document = json.loads(quietly(compare_rankings, y_true, scores, qid=qid, random_state=0).to_json())
    for key in ("rows", "systems", "per_query", "alpha"):
        broken = {name: value for name, value in document.items() if name != key}
        with pytest.raises(ValueError, match=rf"the JSON lacks the entry '{key}' that to_json writes"):
            RankingComparison.from_json(json.dumps(broken))
    document["systems"] = ["s0"]  # one name for two systems' values
    with pytest.raises(ValueError, match="the JSON does not hold a comparison as to_json writes it"):
        RankingComparison.from_json(json.dumps(document))


def test_exact_permutations_fit_the_factorial_power():
    from sklearn_rankmetrics.stats._paired_tests import exact_permutations

    assert exact_permutations(4, 3, 6**4) and not exact_permutations(4, 3, 6**4 - 1)
    assert exact_permutations(13, 2, 2**13) and not exact_permutations(2000, 10, 10_000)
    assert math.factorial(3) ** 4 == 1296
