"""Displays render with the Agg backend and draw exactly the computed values."""

import io
import sys

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from sklearn_rankmetrics import (
    QueryComparisonDisplay,
    RankingCurveDisplay,
    compare_rankings,
    make_ranking,
    mean_average_precision_score,
    ndcg_score,
)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def rendered(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def data(seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(40), 15)
    y_true = rng.integers(0, 4, qid.size)
    return y_true, {"good": y_true + rng.normal(0, 1, qid.size), "noisy": rng.normal(0, 1, qid.size)}, qid


@pytest.mark.parametrize(("metric", "function", "options"), [
    ("ndcg", ndcg_score, {}),
    ("ndcg_exp", ndcg_score, {"gain": "exponential"}),
    ("map", mean_average_precision_score, {"ties": "pessimistic"}),
])  # fmt: skip
def test_curves_draw_the_metric_at_every_k(metric, function, options):
    y_true, systems, qid = data()
    extra = {"ties": options["ties"]} if "ties" in options else {}
    display = RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric=metric, k=range(1, 11), **extra)
    assert [line.get_label() for line in display.lines_] == ["good", "noisy"]
    for line, (name, scores) in zip(display.lines_, systems.items(), strict=True):
        expected = [function(y_true, scores, qid=qid, k=k, **options) for k in range(1, 11)]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-12)
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 11))
        np.testing.assert_allclose(display.scores[name], expected, rtol=1e-12)
    assert display.ax_.get_ylabel() == f"mean {metric}@k" and display.figure_ is display.ax_.figure
    rendered(display.figure_)


def test_from_estimator_adds_a_curve_to_existing_axes():
    X, y, qid = make_ranking(n_queries=30, n_docs=(5, 20), random_state=0)
    model = LinearRegression().fit(X, y)
    first = RankingCurveDisplay.from_predictions(y, y, qid=qid, name="oracle", k=[1, 5, 10])
    second = RankingCurveDisplay.from_estimator(model, X, y, qid=qid, k=[1, 5, 10], ax=first.ax_)
    assert second.ax_ is first.ax_ and len(first.ax_.get_lines()) == 2
    assert second.lines_[0].get_label() == "LinearRegression"
    np.testing.assert_allclose(
        second.lines_[0].get_ydata(), [ndcg_score(y, model.predict(X), qid=qid, k=k) for k in (1, 5, 10)]
    )
    rendered(second.figure_)


def test_comparison_display_draws_the_sorted_differences_and_the_scatter():
    y_true, systems, qid = data(1)
    comparison = compare_rankings(
        y_true, systems, qid=qid, metrics=["ndcg@10", "mrr"], baseline="noisy", random_state=0
    )
    expected = np.sort(
        ndcg_score(y_true, systems["good"], qid=qid, k=10, average=False)
        - ndcg_score(y_true, systems["noisy"], qid=qid, k=10, average=False)
    )
    bars = QueryComparisonDisplay.from_comparison(comparison, metric="ndcg@10")
    np.testing.assert_allclose([patch.get_height() for patch in bars.ax_.patches], expected, rtol=1e-12)
    np.testing.assert_allclose(bars.differences, expected, rtol=1e-12)
    assert [line.get_ydata()[0] for line in bars.ax_.get_lines()] == [0.0]  # the zero line
    rendered(bars.figure_)
    scatter = QueryComparisonDisplay.from_comparison(comparison, metric="mrr", kind="scatter")
    offsets = scatter.ax_.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], comparison.per_query["mrr"]["noisy"])
    np.testing.assert_allclose(offsets[:, 1], comparison.per_query["mrr"]["good"])
    rendered(scatter.figure_)


def test_display_errors():
    y_true, systems, qid = data()
    with pytest.raises(ValueError, match="k must be a non-empty sequence of integers >= 1"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, k=[0, 1])
    with pytest.raises(ValueError, match="sets a cutoff; name the metric alone"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric="ndcg@10")
    comparison = compare_rankings(y_true, systems, qid=qid, metrics=["mrr"], random_state=0)
    with pytest.raises(ValueError, match="'other' is not a system"):
        QueryComparisonDisplay.from_comparison(comparison, system="other", baseline="good")


def test_a_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    y_true, systems, qid = data()
    with pytest.raises(ImportError, match=r"pip install 'sklearn-rankmetrics\[plot\]'"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, k=[1])


def test_curve_display_says_when_a_metric_has_no_cutoff_or_an_option_is_its_own():
    # These reached the shared kernel and failed there: "_bpref() got an unexpected keyword argument 'k'".
    y_true, systems, qid = data()
    with pytest.raises(ValueError, match=r"'bpref' has no cutoff \(bpref_score examines every document\)"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric="bpref")
    with pytest.raises(ValueError, match="sets average, which RankingCurveDisplay sets: it draws the mean"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric="map", average=False)
    with pytest.raises(ValueError, match="sets return_residual, an option of rank_biased_precision_score"):
        RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric="rbp", return_residual=True)
    display = RankingCurveDisplay.from_predictions(y_true, systems, qid=qid, metric="ndcg(ties='stable')", k=[1])
    assert set(display.scores) == set(systems)
    matplotlib.pyplot.close(display.figure_)
