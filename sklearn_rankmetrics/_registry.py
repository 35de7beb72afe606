"""Every metric by its short name: the vocabulary of scorer names and reports.

A name is a base name, an optional cutoff and optional keyword options, as in
``"ndcg@10"`` or ``"map@5(denominator='capped')"``.
"""

import ast
import difflib
import re

from ._cascade import (
    _expected_reciprocal_rank,
    _reciprocal_rank,
    expected_reciprocal_rank_score,
    mean_reciprocal_rank_score,
)
from ._dcg import _cumulative_gain, _dcg, _ndcg, cumulative_gain_score, dcg_score, ndcg_score
from ._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ._precision import (
    _average_precision,
    _precision,
    _r_precision,
    _recall,
    mean_average_precision_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

METRICS = {
    "cg": cumulative_gain_score,
    "dcg": dcg_score,
    "ndcg": ndcg_score,
    "map": mean_average_precision_score,
    "mrr": mean_reciprocal_rank_score,
    "precision": precision_at_k_score,
    "recall": recall_at_k_score,
    "r_precision": r_precision_score,
    "err": expected_reciprocal_rank_score,
}

# Scorer names: a metric and the options its name implies. "ndcg_exp" is NDCG with
# LightGBM's and XGBoost's exponential gain.
SCORER_NAMES = {
    **{name: (metric, {}) for name, metric in METRICS.items()},
    "dcg_exp": (dcg_score, {"gain": "exponential"}),
    "ndcg_exp": (ndcg_score, {"gain": "exponential"}),
    # Diversity metrics take the (n_samples, n_subtopics) judgement matrix as y.
    "alpha_ndcg": (alpha_ndcg_score, {}),
    "err_ia": (intent_aware_err_score, {}),
    "s_recall": (subtopic_recall_score, {}),
}

# The per-query computation behind each public metric, for sharing one ranking.
KERNELS = {
    cumulative_gain_score: _cumulative_gain,
    dcg_score: _dcg,
    ndcg_score: _ndcg,
    mean_average_precision_score: _average_precision,
    mean_reciprocal_rank_score: _reciprocal_rank,
    precision_at_k_score: _precision,
    recall_at_k_score: _recall,
    r_precision_score: _r_precision,
    expected_reciprocal_rank_score: _expected_reciprocal_rank,
}

NAME = re.compile(r"^(?P<base>[a-z_]+?)(?:@(?P<k>[1-9][0-9]*))?(?:\((?P<options>.*)\))?$")


def parse_metric_name(name):
    """The metric function and the options that a name such as ``"ndcg@10"`` stands for."""
    match = NAME.match(name) if isinstance(name, str) else None
    if match is None or match["base"] not in SCORER_NAMES:
        base = match["base"] if match else str(name)
        close = difflib.get_close_matches(base, SCORER_NAMES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"{name!r} is not a ranking metric name.{hint} Valid names are {', '.join(sorted(SCORER_NAMES))}, "
            "each optionally followed by @k (as in 'ndcg@10')."
        )
    score_func, preset = SCORER_NAMES[match["base"]]
    options = {**preset, **parse_options(match["options"] or "", name)}
    if match["k"]:
        options["k"] = int(match["k"])
    return score_func, options


def parse_options(text, name):
    """Keyword options written as in a Python call, ``a=1, b='x'``, with ``nan`` allowed."""
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if call.args:
            raise ValueError("positional option")
        return {
            keyword.arg: float("nan")
            if isinstance(keyword.value, ast.Name) and keyword.value.id == "nan"
            else ast.literal_eval(keyword.value)
            for keyword in call.keywords
        }
    except (SyntaxError, ValueError) as error:
        raise ValueError(
            f'The options of {name!r} must be keyword=literal pairs, as in "ndcg@10(zero_division=1.0)".'
        ) from error


def canonical_name(score_func, kwargs):
    """The registered name that fits ``score_func`` and ``kwargs`` best, and the options it implies."""
    matches = [
        (name, preset)
        for name, (function, preset) in SCORER_NAMES.items()
        if function is score_func and all(kwargs.get(key) == value for key, value in preset.items())
    ]
    if not matches:
        return score_func.__name__, {}
    return max(matches, key=lambda match: len(match[1]))
