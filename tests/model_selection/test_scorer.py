"""Scorers: names, repr, query ids by either route, response methods and errors."""

import copy
import inspect
import pickle
import re

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression

from sklearn_rankmetrics import (
    expected_reciprocal_rank_score,
    get_ranking_scorer,
    get_ranking_scorer_names,
    make_ranking,
    make_ranking_scorer,
    mean_average_precision_score,
    ndcg_score,
    ranking_report,
    recall_at_k_score,
)
from sklearn_rankmetrics.registry._names import parse_metric_name


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=15, n_docs=(3, 12), random_state=0)
    return X, y, qid, LinearRegression().fit(X, y)


@pytest.mark.parametrize("name", get_ranking_scorer_names())
@pytest.mark.parametrize(
    "suffix", ["", "@1", "@10", "@10(zero_division=1.0)", "(zero_division=nan)", "@3(ties='pessimistic')"]
)
def test_names_round_trip_through_repr(name, suffix):
    # ERR-IA, P-IA and AP-IA average ties or keep them in input order.
    if name in ("err_ia", "p_ia", "ap_ia") and "pessimistic" in suffix:
        with pytest.raises(ValueError, match="ties must be one of 'stable', 'average'; got 'pessimistic'"):
            get_ranking_scorer(name + suffix)
        return
    function = parse_metric_name(name)[0]
    if "k" not in inspect.signature(function).parameters and "@" in suffix:  # bpref, compat, opa
        with pytest.raises(ValueError, match=f"but {name} examines every document: it has no k"):
            get_ranking_scorer(name + suffix)
        return
    scorer = get_ranking_scorer(name + suffix)
    assert repr(scorer) == name + suffix
    assert get_ranking_scorer(repr(scorer)) == scorer


def test_repr_omits_options_equal_to_the_metric_default():
    assert repr(get_ranking_scorer("ndcg(ties='average', k=None)")) == "ndcg"
    assert repr(get_ranking_scorer("alpha_ndcg@5(ties='stable', alpha=0.5)")) == "alpha_ndcg@5"
    assert repr(get_ranking_scorer("ndcg(ties='stable')")) == "ndcg(ties='stable')"


def test_repr_shows_non_default_options_with_the_canonical_name():
    assert repr(make_ranking_scorer(ndcg_score, k=10, gain="exponential")) == "ndcg_exp@10"
    assert repr(make_ranking_scorer(ndcg_score, k=10, zero_division=0.0)) == "ndcg@10"
    scorer = make_ranking_scorer(
        mean_average_precision_score, k=5, denominator="capped", greater_is_better=False, qid_column="qid"
    )
    assert repr(scorer) == "map@5(denominator='capped', greater_is_better=False, qid_column='qid')"
    assert get_ranking_scorer(repr(scorer)) == scorer
    assert repr(make_ranking_scorer(expected_reciprocal_rank_score, k=20, max_grade=4)) == "err@20(max_grade=4)"


def test_a_custom_metric_is_named_after_its_function(data):
    X, y, qid, model = data

    def top_label(y_true, y_score, *, qid, sample_weight=None, k=None):
        return float(np.max(y_true))

    scorer = make_ranking_scorer(top_label, k=3)
    assert repr(scorer) == "top_label@3"
    assert scorer(model, X, y, qid=qid) == y.max()


def test_scorer_value_is_the_metric_of_the_predictions(data):
    X, y, qid, model = data
    expected = ndcg_score(y, model.predict(X), qid=qid, k=5)
    assert get_ranking_scorer("ndcg@5")(model, X, y, qid=qid) == expected
    assert get_ranking_scorer("ndcg@5")(model, X, y, groups=qid) == expected
    assert get_ranking_scorer("ndcg@5")(model, X, y, qid=qid, groups=qid) == expected
    negated = make_ranking_scorer(ndcg_score, k=5, greater_is_better=False)
    assert negated(model, X, y, qid=qid) == -expected


def test_sample_weight_reaches_the_metric(data):
    X, y, qid, model = data
    weight = (qid % 3 + 1).astype(float)
    expected = ndcg_score(y, model.predict(X), qid=qid, sample_weight=weight)
    assert get_ranking_scorer("ndcg")(model, X, y, qid=qid, sample_weight=weight) == expected


def test_query_ids_from_a_column_of_X(data):
    X, y, qid, model = data
    expected = ndcg_score(y, model.predict(X), qid=qid, k=10)

    class DropsFirstColumn:
        def predict(self, X):
            return model.predict(np.asarray(X)[:, 1:])

    with_qid = np.column_stack([qid, X])
    assert make_ranking_scorer(ndcg_score, k=10, qid_column=0)(DropsFirstColumn(), with_qid, y) == expected
    frame = pd.DataFrame(with_qid, columns=["qid", *(f"f{i}" for i in range(X.shape[1]))])
    assert get_ranking_scorer("ndcg@10(qid_column='qid')")(DropsFirstColumn(), frame, y) == expected


@pytest.mark.parametrize("routing", [True, False])
def test_no_query_ids_raises_and_names_both_routes(data, routing):
    X, y, _, model = data
    with sklearn.config_context(enable_metadata_routing=routing):
        route = (
            "routing is on, but the caller did not pass them" if routing else "routing is off.*enable_metadata_routing"
        )
        with pytest.raises(ValueError, match=rf"ndcg@10 needs the query id of each row.*{route}.*qid_column"):
            get_ranking_scorer("ndcg@10")(model, X, y)


def test_query_id_errors(data):
    X, y, qid, model = data
    with pytest.raises(ValueError, match="received both qid and groups and they differ"):
        get_ranking_scorer("map")(model, X, y, qid=qid, groups=qid[::-1])
    with pytest.raises(ValueError, match=r"qid_column='qid' is not a column of X; X has the columns \['a'\]"):
        make_ranking_scorer(ndcg_score, qid_column="qid")(model, pd.DataFrame({"a": y}), y)
    with pytest.raises(ValueError, match="qid_column=70 is out of range for X with 20 columns"):
        make_ranking_scorer(ndcg_score, qid_column=70)(model, X, y)
    with pytest.raises(ValueError, match="qid_column='qid' names a column, but X has no column names"):
        make_ranking_scorer(ndcg_score, qid_column="qid")(model, X, y)
    with pytest.raises(TypeError, match="unexpected metadata"):
        get_ranking_scorer("map")(model, X, y, qid=qid, foo=1)


def test_unknown_names_and_options_raise():
    with pytest.raises(
        ValueError, match=r"'ndgc@10' is not a ranking metric name. Did you mean 'ndcg@10'\?.*Valid names"
    ):
        get_ranking_scorer("ndgc@10")
    with pytest.raises(ValueError, match=r"'ndcg@0' has k=0, but k must be an integer >= 1"):
        get_ranking_scorer("ndcg@0")
    with pytest.raises(ValueError, match="must be keyword=literal pairs"):
        get_ranking_scorer("ndcg@10(1.0)")
    with pytest.raises(TypeError, match="ndcg_score takes no option 'denominator'"):
        make_ranking_scorer(ndcg_score, denominator="capped")
    with pytest.raises(TypeError, match="A scorer returns the mean over queries: it takes no average option"):
        make_ranking_scorer(ndcg_score, average=False)
    with pytest.raises(TypeError, match="score_func must be a metric function"):
        make_ranking_scorer("ndcg")
    with pytest.raises(ValueError, match="response_method must be one of"):
        make_ranking_scorer(ndcg_score, response_method="score")


def test_scorers_pickle_copy_and_compare(data):
    X, y, qid, model = data
    scorer = get_ranking_scorer("err@20(max_grade=4)")
    for twin in (pickle.loads(pickle.dumps(scorer)), copy.deepcopy(scorer)):
        assert twin == scorer
        assert hash(twin) == hash(scorer)
        assert twin(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    assert get_ranking_scorer("ndcg@10") != get_ranking_scorer("ndcg@5")


class TestResponseMethod:
    def test_binary_classifier_ranks_by_positive_probability(self, data):
        X, y, qid, _ = data
        binary = (y >= 2).astype(int)
        model = LogisticRegression().fit(X, binary)
        expected = ndcg_score(binary, model.predict_proba(X)[:, 1], qid=qid)
        assert get_ranking_scorer("ndcg")(model, X, binary, qid=qid) == expected

    def test_multiclass_classifier_ranks_by_expected_grade(self, data):
        X, y, qid, _ = data
        model = LogisticRegression(max_iter=500).fit(X, y)
        expected_grade = model.predict_proba(X) @ model.classes_
        assert get_ranking_scorer("ndcg")(model, X, y, qid=qid) == ndcg_score(y, expected_grade, qid=qid)

    def test_explicit_method(self, data):
        X, y, qid, _ = data
        model = LogisticRegression(max_iter=500).fit(X, (y > 0).astype(int))
        scorer = make_ranking_scorer(ndcg_score, response_method="decision_function")
        assert scorer(model, X, y, qid=qid) == ndcg_score(y, model.decision_function(X), qid=qid)

    def test_string_classes_need_numeric_grades(self, data):
        X, y, qid, _ = data
        model = LogisticRegression(max_iter=500).fit(X, np.array(["a", "b", "c", "d", "e"])[y])
        with pytest.raises(ValueError, match="expected grade of a multiclass classifier needs numeric classes"):
            get_ranking_scorer("ndcg")(model, X, y, qid=qid)


def test_metadata_requests_follow_sklearn_conventions():
    routing = get_ranking_scorer("ndcg").get_metadata_routing()
    assert routing.consumes("score", ["qid", "groups", "sample_weight"]) == {"qid", "groups"}
    scorer = get_ranking_scorer("ndcg").set_score_request(sample_weight=True, groups=False)
    assert scorer.get_metadata_routing().consumes("score", ["qid", "groups", "sample_weight"]) == {
        "qid",
        "sample_weight",
    }
    with pytest.raises(TypeError, match="set_score_request accepts qid, groups, sample_weight, candidates; got foo"):
        get_ranking_scorer("ndcg").set_score_request(foo=True)


def test_dummy_model_scores_like_its_constant_prediction(data):
    X, y, qid, _ = data
    model = DummyRegressor().fit(X, y)  # all scores tied: the expected NDCG of a random ranking
    assert get_ranking_scorer("ndcg")(model, X, y, qid=qid) == ndcg_score(y, np.zeros(len(y)), qid=qid)


NOT_A_NAME = "is not a ranking metric name"


def bad_cutoff(text):
    return f"has the cutoff {text!r}, but k must be an integer >= 1 (as in 'ndcg@10')"


@pytest.mark.parametrize(
    ("typed", "near", "why"),
    [
        ("ndcg@1O", "ndcg@10", bad_cutoff("1O")),  # the letter O for a zero
        ("NDCG@l0", "NDCG@10", bad_cutoff("l0")),
        ("ndgc@10", "ndcg@10", NOT_A_NAME),
        ("ndcg@1O(zero_division=1.0)", "ndcg@10(zero_division=1.0)", bad_cutoff("1O")),
        ("ndcg_cut10", "ndcg_cut_10", NOT_A_NAME),
        ("recip_rnk", "recip_rank", NOT_A_NAME),
        ("mapp", "map", NOT_A_NAME),
    ],
)
def test_a_near_miss_name_suggests_the_near_name(typed, near, why):
    assert repr(get_ranking_scorer(near))  # the suggestion is a valid name
    with pytest.raises(
        ValueError, match=rf"'{re.escape(typed)}' {re.escape(why)}\. Did you mean '{re.escape(near)}'\?"
    ):
        get_ranking_scorer(typed)


@pytest.mark.parametrize(
    ("name", "said", "near"),
    [
        ("ndcg@-1", "the cutoff '-1'", None),
        ("ndcg@10.0", "the cutoff '10.0'", "ndcg@10"),
        ("ndcg@ 10", "the cutoff ' 10'", "ndcg@10"),
        ("ndcg@10 ", "the cutoff '10 '", "ndcg@10"),
        ("map@x", "the cutoff 'x'", None),
        ("ndcg@", "nothing after '@'", "ndcg"),
        ("ndcg@0", "k=0", None),
    ],
)
def test_a_bad_cutoff_raises_a_value_error_that_says_k_must_be_an_integer(name, said, near):
    hint = "" if near is None else f" Did you mean {near!r}?"
    message = f"{name!r} has {said}, but k must be an integer >= 1 (as in 'ndcg@10').{hint}"
    for call in (
        get_ranking_scorer,
        parse_metric_name,
        lambda name: ranking_report([1, 0], [0.5, 0.2], metrics=[name]),
    ):
        with pytest.raises(ValueError) as raised:
            call(name)
        assert str(raised.value) == message


METRIC_LIKE = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(["ndcg", "NDCG", "map", "P", "R", "ndcg_cut", "ndcg_cut_10", "p_5", "bpref", "r2", "ndgc", ""]),
        st.sampled_from(["@", "", "_", "@@"]),
        st.text(alphabet="0123456789OolIS .-+x_e", max_size=6),
        st.sampled_from(["", "(k=1)", "(zero_division=1.0)", "(ties='stable')", "(", ")", "()", "(k=1"]),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=30), METRIC_LIKE))
def test_any_text_either_parses_or_raises_a_value_or_type_error(text):
    try:
        parse_metric_name(text)
    except (ValueError, TypeError):
        pass


@pytest.mark.parametrize("name", ["r2", "accuracy", "neg_mean_squared_error", "average_precision"])
def test_a_scikit_learn_scorer_name_says_it_ignores_query_groups(name):
    with pytest.raises(
        ValueError, match=rf"'{name}' is a scikit-learn scorer, which .* ignores the query groups"
    ) as raised:
        get_ranking_scorer(name)
    assert "Why not scoring='ndcg@10'?" in str(raised.value)
    assert "Did you mean" not in str(raised.value)


@pytest.mark.parametrize("name", ["r3", "px", "rx@10"])
def test_a_longer_name_is_not_offered_a_one_letter_alias(name):
    with pytest.raises(ValueError, match="is not a ranking metric name") as raised:
        get_ranking_scorer(name)
    assert "Did you mean" not in str(raised.value)


def test_a_near_miss_option_value_suggests_the_near_value():
    message = r"denominator must be one of 'relevant', 'capped'; got 'caped'\. Did you mean 'capped'\?"
    with pytest.raises(ValueError, match=message):
        get_ranking_scorer("recall@10(denominator='caped')")
    with pytest.raises(ValueError, match=message):
        recall_at_k_score([1, 0], [0.5, 0.2], k=1, denominator=np.str_("caped"))
    with pytest.raises(ValueError, match=r"ties must be one of .*; got 'avg'\. Did you mean 'average'\?$"):
        get_ranking_scorer("ndcg(ties='avg')")
    with pytest.raises(ValueError, match=r"ties must be one of .*; got 'xyz'\.$"):  # nothing near enough
        get_ranking_scorer("ndcg(ties='xyz')")


def test_a_near_miss_option_suggests_the_near_option():
    with pytest.raises(TypeError, match=r"ndcg_score takes no option 'zero_divison'\. Did you mean 'zero_division'\?"):
        get_ranking_scorer("ndcg@10(zero_divison=1.0)")
    with pytest.raises(TypeError, match=r"takes no option 'foo'\. Its options are k, relevance_threshold, ties, zero"):
        get_ranking_scorer("map(foo=1)")
