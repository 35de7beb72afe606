"""One fusion, from rows to fused scores: options checked, lists ranked and normalised, method applied.

Shared by :func:`fuse` (runs), :func:`fuse_scores` and :class:`FusionRanker`
(score columns of a grouped table), so that every route computes the same.
"""

import numbers
from dataclasses import dataclass, replace

import numpy as np

from .._core._query_ids import encode_qid
from .._core._validation import check_option, plain
from ._lists import table_lists
from ._methods import fused_scores
from ._names import METHODS, method_name, method_params, normalization_name
from ._normalize import check_missing, fill_values, filled_rows, normalized_scores
from ._ties import TIES, rank_lists
from ._training import TrainingRows, learn


@dataclass(frozen=True)
class Spec:
    """A checked fusion: the method (a canonical name or a callable), its parameters, and the options."""

    method: object
    normalization: str | None
    params: dict
    weights: object
    ties: str
    missing: object

    @property
    def trained(self):
        """The statistic the method learns from training judgements (None: none)."""
        return None if callable(self.method) else METHODS[self.method].trained

    def weight_array(self, n_runs, names=None):
        """The weights as one float per run (1 each for None)."""
        return check_weights(self.weights, n_runs, names)


def fusion_spec(method, normalization, weights, ties, missing, params):
    """Check the options of a fusion; ``params`` maps each method parameter to its value (None: not given)."""
    method = method_name(method)
    normalization = normalization_name(normalization)
    ties = check_option("ties", ties, TIES)
    missing = check_missing(missing)
    resolved = method_params(method, params)
    check_params(resolved)
    if callable(method) and weights is not None:
        raise ValueError(
            "weights are not used by a callable method, which receives every run's column: leave them None."
        )
    return Spec(method, normalization, resolved, weights, ties, missing)


def check_params(params):
    """The methods' parameters in their ranges: k >= 0, 0 < phi < 1, sigma >= 0, gamma real, w and n_segments >= 1."""
    for name, value in params.items():
        integer = name in ("w", "n_segments")
        kind = numbers.Integral if integer else numbers.Real
        if isinstance(value, bool) or not isinstance(value, kind) or not np.isfinite(value):
            raise TypeError(f"{name} must be {'an integer' if integer else 'a finite number'}; got {plain(value)!r}.")
        low, high, rule = {
            "k": (0, np.inf, "k >= 0"),
            "phi": (0, 1, "0 < phi < 1"),
            "sigma": (0, np.inf, "sigma >= 0"),
            "gamma": (-np.inf, np.inf, "any gamma"),
            "w": (0, np.inf, "w >= 0"),
            "n_segments": (1, np.inf, "n_segments >= 1"),
        }[name]
        open_bounds = name == "phi"
        if (value <= low or value >= high) if open_bounds else (value < low or value > high):
            raise ValueError(f"{name} must satisfy {rule}; got {plain(value)!r}.")


def check_weights(weights, n_runs, names=None):
    """One finite weight per run: a sequence in the runs' order, or a dict by run name (runs given as a dict)."""
    if weights is None:
        return np.ones(n_runs)
    if isinstance(weights, dict):
        if names is None:
            raise TypeError("weights can be a dict name -> weight only when the runs are a dict name -> run.")
        by_name = {str(name): weight for name, weight in weights.items()}
        if set(by_name) != set(names):
            raise ValueError(
                f"weights must give one weight to each run, {', '.join(map(repr, names))}; got keys "
                f"{', '.join(map(repr, by_name))}."
            )
        weights = [by_name[name] for name in names]
    try:
        array = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"weights must be numbers, one per run ({n_runs}), or a dict name -> number; got {plain(weights)!r}."
        ) from None
    if array.shape != (n_runs,):
        raise ValueError(f"weights must hold one number per run ({n_runs}); got shape {array.shape}.")
    if not np.isfinite(array).all():
        raise ValueError(f"weights must be finite numbers; got {plain(list(array))!r}.")
    return array


@dataclass
class FusionRows:
    """The rows to fuse in rank order (:class:`~._ties.Ranked`), their normalised scores and the filled ones."""

    lists: object
    ranked: object
    score: np.ndarray
    fill: tuple | None

    def scored(self):
        """Run, candidate and (normalised) score of every scored row, the filled ones included."""
        if self.fill is None:
            return self.lists.run, self.lists.candidate, self.score
        run, _, candidate, score = self.fill
        return (
            np.concatenate((self.lists.run, run)),
            np.concatenate((self.lists.candidate, candidate)),
            np.concatenate((self.score, score)),
        )


def prepare(lists, spec, *, scores=True):
    """Rank the lists under the spec's ties, normalise their scores and fill the missing documents.

    ``scores=False``: for a method that reads only the ranks, the raw scores,
    unnormalised and unfilled (but an inverted min-max, which ranks anew).
    """
    if spec.ties != "trec_eval":  # only trec_eval's order of ties reads the document ids: no copies to carry
        lists = replace(lists, doc=None)
    ranked = rank_lists(lists, ties=spec.ties)
    if not ranked.in_input_order:
        lists = lists.take(ranked.order)
    if not scores and spec.normalization != "min-max-inverted":
        return FusionRows(lists, ranked, lists.score, None)
    score = normalized_scores(lists, ranked, spec.normalization)
    if spec.normalization == "min-max-inverted":  # the lowest scores now rank first: rank again, as ranx does
        lists = replace(lists, score=score)
        ranked = rank_lists(lists, ties=spec.ties)
        lists = lists.take(ranked.order)
        score = lists.score
    fill = fill_values(lists, score, spec.normalization, spec.missing)
    return FusionRows(lists, ranked, score, None if fill is None else filled_rows(lists, fill))


def reads_scores(spec):
    """Whether the spec's method reads the (normalised, filled) scores, not only the ranks."""
    return callable(spec.method) or METHODS[spec.method].kind == "score" or spec.method == "segfuse"


def train(spec, lists, relevance, n_relevant):
    """The statistics that the spec's method learns from training rows (None for an unsupervised method).

    ``relevance``: the judgement of each candidate; ``n_relevant``: the
    number of relevant documents of each query (-1: not a training query).
    """
    if spec.trained is None:
        return None
    return learned(spec, training_rows(spec, lists, relevance, n_relevant), n_relevant)


def training_rows(spec, lists, relevance, n_relevant):
    """The :class:`~._training.TrainingRows` of ``lists``: in the positions of the fusion's own ranking."""
    rows = prepare(lists, replace(spec, missing=None), scores=False)
    relevance = relevance[rows.lists.candidate]
    return TrainingRows.of(
        rows.lists, rows.ranked, relevance, n_relevant, ties=spec.ties, for_map=spec.trained == "map"
    )


def learned(spec, rows, n_relevant):
    """What the spec's method learns from :class:`~._training.TrainingRows`."""
    return learn(spec.trained, rows, n_relevant, ties=spec.ties, n_segments=spec.params.get("n_segments"))


def fuse_lists(lists, spec, weights, trained):
    """The fused score of every candidate of ``lists``."""
    if spec.trained is not None and trained is None:
        raise ValueError(
            f"method {spec.method!r} learns from training judgements: give qrels= (and train_runs=, the runs on the "
            "training queries), or fit a FusionRanker on labelled rows."
        )
    return fused_scores(prepare(lists, spec, scores=reads_scores(spec)), spec.method, spec.params, weights, trained)


def fuse_table(scores, qid, spec, weights, trained):
    """The fused score of every row of a table of score columns (``-inf`` for a row that no column scores)."""
    lists, rows = table_lists(scores, qid)
    fused = np.full(scores.shape[0], -np.inf)
    fused[rows] = fuse_lists(lists, spec, weights, trained)
    return fused


def train_table(spec, scores, qid, labels):
    """What the spec's method learns from a labelled table (a row relevant when its label is at least 1)."""
    lists, rows = table_lists(scores, qid)
    codes = np.zeros(len(labels), dtype=np.intp) if qid is None else encode_qid(qid, len(labels))
    n_relevant = np.bincount(codes, labels >= 1, minlength=int(codes.max(initial=0)) + 1).astype(np.int64)
    return train(spec, lists, labels[rows], n_relevant)
