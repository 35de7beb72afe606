"""The accuracy metrics as recommender evaluation takes them: with candidates=, sampled_correction=, n_items=.

The ranking metrics (:mod:`sklearn_rankmetrics.metrics`) know nothing of
candidates or sampling. The options are attached here, where both layers are
visible, and these functions are the public ones (the top level's and
``sklearn_rankmetrics.metrics``'): without candidates each runs its ranking
metric untouched.
"""

from ..metrics import _cascade, _dcg, _ir_measures, _precision
from ._candidate_options import accepts_candidates


def with_candidates(function):
    """``function`` with the candidate options, living in this module (so that pickle finds it here)."""
    public = accepts_candidates(function)
    public.__module__ = __name__
    return public


cumulative_gain_score = with_candidates(_dcg.cumulative_gain_score)
dcg_score = with_candidates(_dcg.dcg_score)
ndcg_score = with_candidates(_dcg.ndcg_score)
precision_at_k_score = with_candidates(_precision.precision_at_k_score)
recall_at_k_score = with_candidates(_precision.recall_at_k_score)
r_precision_score = with_candidates(_precision.r_precision_score)
mean_average_precision_score = with_candidates(_precision.mean_average_precision_score)
hit_rate_score = with_candidates(_precision.hit_rate_score)
f1_at_k_score = with_candidates(_precision.f1_at_k_score)
mean_reciprocal_rank_score = with_candidates(_cascade.mean_reciprocal_rank_score)
expected_reciprocal_rank_score = with_candidates(_cascade.expected_reciprocal_rank_score)
bpref_score = with_candidates(_ir_measures.bpref_score)
rank_biased_precision_score = with_candidates(_ir_measures.rank_biased_precision_score)

# The accuracy metrics by name, for the recommender report and the scorers.
ACCURACY_METRICS = {
    function.__name__: function
    for function in (
        cumulative_gain_score,
        dcg_score,
        ndcg_score,
        precision_at_k_score,
        recall_at_k_score,
        r_precision_score,
        mean_average_precision_score,
        hit_rate_score,
        f1_at_k_score,
        mean_reciprocal_rank_score,
        expected_reciprocal_rank_score,
        bpref_score,
        rank_biased_precision_score,
    )
}
