"""Off-policy value of a ranking (slate) policy from a stochastic logging policy: SIPS, IIPS, RIPS, DM, Cascade-DR."""

import numpy as np

from .._core._validation import as_float_array, check_finite, check_flag, check_option, plain
from ._log import Sessions, check_length, check_positions, check_probabilities, impression_codes

ESTIMATORS = ("sips", "iips", "rips", "snsips", "sniips", "snrips", "dm", "cascade-dr")
# What the pscores are for each estimator, in errors and the docstring.
KINDS = {"sips": "the whole slate's", "iips": "the item-position marginal", "rips": "the top-l prefix's"}


def slate_layout(reward, qid, position):
    """Checked rewards and the slates as :class:`~._log.Sessions` (rows in (slate, position) order)."""
    reward = as_float_array(reward, "reward")
    check_finite(reward, "reward")
    codes = impression_codes(qid, len(reward), of="reward")
    if position is None:
        raise TypeError("position is required: the 1-based rank of each row in its slate.")
    position = check_positions(position, len(reward))
    return reward, Sessions(codes, position)


def check_slate_constant(values, slates, name):
    """Raise unless ``values`` (as a slates x positions matrix) are the same on every position of a slate."""
    matrix = slates.matrix(values, fill=np.nan)
    varies = slates.mask & (matrix != matrix[:, :1])
    if varies.any():
        row = int(slates.order[slates.starts[np.flatnonzero(varies.any(axis=1))[0]]])
        raise ValueError(
            f"{name} must be the slate's joint probability, the same on all its rows for estimator 'sips'; it varies "
            f"in the slate of row {row}."
        )


def check_non_increasing(matrix, mask, name, slates):
    """Raise unless each slate's prefix probabilities (rows: slates) never increase down the positions."""
    rises = mask[:, 1:] & (matrix[:, 1:] > matrix[:, :-1])
    if rises.any():
        row = int(slates.order[slates.starts[np.flatnonzero(rises.any(axis=1))[0]]])
        raise ValueError(
            f"{name} must be the probability of the top-l prefix, which never increases with l; it does in the slate "
            f"of row {row}."
        )


def action_matrices(action, q_hat, evaluation_action_dist, n_rows):
    """Checked ``action`` (n_rows,), ``q_hat`` and ``evaluation_action_dist`` (n_rows, n_actions)."""
    if q_hat is None or evaluation_action_dist is None:
        raise TypeError("the 'dm' and 'cascade-dr' estimators need q_hat and evaluation_action_dist.")
    q_hat = as_float_array(q_hat, "q_hat", ndim=(2,))
    check_finite(q_hat, "q_hat")
    dist = as_float_array(evaluation_action_dist, "evaluation_action_dist", ndim=(2,))
    check_finite(dist, "evaluation_action_dist")
    if q_hat.shape != dist.shape or len(q_hat) != n_rows:
        raise ValueError(
            f"q_hat and evaluation_action_dist must both have shape (n_rows, n_actions) = ({n_rows}, n_actions); got "
            f"{q_hat.shape} and {dist.shape}."
        )
    if (dist < 0).any() or not np.allclose(dist.sum(axis=1), 1.0):
        raise ValueError("evaluation_action_dist must hold probabilities that sum to 1 on every row.")
    if action is None:
        return None, q_hat, dist
    actions = as_float_array(action, "action")
    check_length(actions, "action", n_rows, of="reward")
    bad = (actions < 0) | (actions >= q_hat.shape[1]) | (actions != np.floor(actions))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"action must hold integers in [0, n_actions) = [0, {q_hat.shape[1]}); got {plain(actions[row])!r} at "
            f"row {row}."
        )
    return actions.astype(np.int64), q_hat, dist


def off_policy_value(
    reward,
    *,
    qid,
    position,
    pscore=None,
    evaluation_pscore=None,
    estimator="sips",
    action=None,
    q_hat=None,
    evaluation_action_dist=None,
    average=True,
):
    """Value of an evaluation ranking policy estimated from slates logged by a stochastic logging policy.

    One row per slot of a logged slate (ranking), ``qid`` naming the slate;
    the value is the expected sum of the slot rewards of a slate chosen by
    the evaluation policy.

    Parameters
    ----------
    reward : array-like of shape (n_rows,)
        Reward observed at each slot (a click, ...).
    qid : array-like of shape (n_rows,)
        Slate of each row (obp's ``slate_id``).
    position : array-like of shape (n_rows,)
        1-based slot of each row, exactly 1, ..., n in each slate (obp counts
        from 0: add 1).
    pscore : array-like of shape (n_rows,), default=None
        The logging policy's probability of what was shown, in (0, 1]: for
        ``"sips"`` (and ``"snsips"``) the whole slate's (the same on all its
        rows; obp's ``pscore``); for ``"iips"`` the probability of the row's
        item at the row's slot (obp's ``pscore_item_position``); for
        ``"rips"`` and ``"cascade-dr"`` that of the slate's top-l prefix down
        to the row (obp's ``pscore_cascade``). Not used by ``"dm"``.
    evaluation_pscore : array-like of shape (n_rows,), default=None
        The evaluation policy's probability of the same, in [0, 1].
    estimator : {"sips", "iips", "rips", "snsips", "sniips", "snrips", "dm", "cascade-dr"}, default="sips"
        The estimator (the names are obp's ``estimator_name``); see Notes.
    action : array-like of shape (n_rows,), default=None
        The logged item of each row, an integer in [0, n_actions), for
        ``"cascade-dr"``.
    q_hat : array-like of shape (n_rows, n_actions), default=None
        For ``"dm"`` and ``"cascade-dr"``: the reward model's
        :math:`\\hat Q_l(x, a_{1:l-1}, a)`, the expected sum of the rewards
        from slot l on, for every item ``a`` at the row's slot after the
        logged prefix.
    evaluation_action_dist : array-like of shape (n_rows, n_actions), default=None
        For ``"dm"`` and ``"cascade-dr"``: the evaluation policy's
        probability of each item at the row's slot given the logged prefix.
    average : bool, default=True
        The estimate; False: each slate's term, whose mean is the estimate
        (for the self-normalised estimators, with the normalisers of the
        whole log), in the order of the sorted distinct ``qid``.

    Returns
    -------
    value : float or ndarray of shape (n_slates,)
        The estimated policy value, or each slate's term.

    See Also
    --------
    ips_score : Metrics from clicks under the position-based model.

    Notes
    -----
    With :math:`w` the importance weight ``evaluation_pscore / pscore`` of
    each row (slate ``i``, slot ``l``) and :math:`n` slates:

    - ``"sips"`` (standard): :math:`\\frac1n\\sum_{i,l} w_i r_{il}`, the
      slate's joint weight; unbiased with no assumption on the user.
    - ``"iips"`` (independent item-position): :math:`\\frac1n\\sum_{i,l}
      w_{il} r_{il}`, each slot's marginal weight; unbiased when each slot's
      reward depends on its own item only (Li et al. 2018).
    - ``"rips"`` (reward interaction): each slot weighted by its top-l
      prefix; unbiased under the cascade assumption, a slot's reward
      depending on the items above it (McInerney et al. 2020).
    - ``"snsips"``, ``"sniips"``, ``"snrips"``: the same over the mean weight
      (of the slates for SIPS, of the slates reaching slot l for IIPS and
      RIPS, as obp); consistent, not unbiased.
    - ``"dm"`` (direct method): :math:`\\frac1n\\sum_i \\sum_a
      \\pi_e(a|x_i)\\hat Q_1(x_i, a)` at slot 1.
    - ``"cascade-dr"`` (Kiyohara et al. 2022):
      :math:`\\frac1n\\sum_{i,l} [w_{i,1:l}(r_{il} - \\hat Q_l(a_{il}))
      + w_{i,1:l-1} \\sum_a \\pi_e(a|\\cdot)\\hat Q_l(a)]` with prefix weights
      (:math:`w_{i,1:0} = 1`): unbiased under the cascade assumption if
      either the weights or :math:`\\hat Q` are right.

    Every estimator assumes the logging policy gave every slate the
    evaluation policy may show a probability above 0 (common support), and
    independent slates. SIPS, IIPS and RIPS equal Open Bandit Pipeline
    0.5.7's ``SlateStandardIPS``, ``SlateIndependentIPS`` and
    ``SlateRewardInteractionIPS`` (and their self-normalised forms, and
    ``SlateCascadeDoublyRobust``) on slates of one length, as the tests check.
    On slates of different lengths, ``"snsips"`` divides by the mean weight
    of all the slates, the self-normalised form of SIPS; obp's
    ``SelfNormalizedSlateStandardIPS`` gives another value there (the other
    estimators still agree with obp).

    References
    ----------
    .. [1] J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette,
       "Counterfactual Evaluation of Slate Recommendations with Sequential
       Reward Interactions", KDD 2020.
    .. [2] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay
       and Z. Wen, "Offline Evaluation of Ranking Policies with Click
       Models", KDD 2018.
    .. [3] H. Kiyohara, Y. Saito, T. Matsuhiro, Y. Narita, N. Shimizu and
       Y. Yamamoto, "Doubly Robust Off-Policy Evaluation for Ranking
       Policies under the Cascade Behavior Model", WSDM 2022.

    Examples
    --------
    >>> from sklearn_rankmetrics.counterfactual import off_policy_value
    >>> reward = [1, 0, 0, 1]
    >>> qid = [1, 1, 2, 2]
    >>> position = [1, 2, 1, 2]
    >>> pscore = [0.5, 0.5, 0.25, 0.25]  # each slate's probability under the logging policy
    >>> evaluation_pscore = [0.25, 0.25, 0.5, 0.5]
    >>> off_policy_value(reward, qid=qid, position=position, pscore=pscore,
    ...                  evaluation_pscore=evaluation_pscore, estimator="sips")
    1.25
    """
    estimator = check_option("estimator", estimator, ESTIMATORS)
    check_flag("average", average)
    reward, slates = slate_layout(reward, qid, position)
    n_rows, mask = len(reward), slates.mask
    rewards = slates.matrix(reward)
    if estimator == "dm":
        _, q_hat, dist = action_matrices(action, q_hat, evaluation_action_dist, n_rows)
        expected = (q_hat * dist).sum(axis=1)
        terms = slates.matrix(expected) * (np.arange(slates.longest) == 0)
    else:
        if pscore is None or evaluation_pscore is None:
            raise TypeError(f"estimator {estimator!r} needs pscore and evaluation_pscore.")
        pscore = check_probabilities(pscore, "pscore", n_rows)
        evaluation_pscore = check_probabilities(evaluation_pscore, "evaluation_pscore", n_rows, zero=True)
        behaviour, target = slates.matrix(pscore, fill=1.0), slates.matrix(evaluation_pscore)
        if estimator in ("sips", "snsips"):
            check_slate_constant(pscore, slates, "pscore")
            check_slate_constant(evaluation_pscore, slates, "evaluation_pscore")
        elif estimator in ("rips", "snrips", "cascade-dr"):
            check_non_increasing(behaviour, mask, "pscore", slates)
            check_non_increasing(target, mask, "evaluation_pscore", slates)
        weights = np.where(mask, target / behaviour, 0.0)
        if estimator.startswith("sn"):
            weights = weights / normalisers(weights, mask, by_slot=estimator != "snsips")
        terms = weights * rewards
        if estimator == "cascade-dr":
            terms = cascade_dr_terms(
                slates, weights, rewards, *action_matrices(action, q_hat, evaluation_action_dist, n_rows)
            )
    values = (terms * mask).sum(axis=1)
    return float(values.mean()) if average else values


def normalisers(weights, mask, *, by_slot):
    """The mean importance weight: of the slates (their first slot's), or of each slot over the slates reaching it."""
    if not by_slot:
        return weights[:, :1].mean()
    return (weights * mask).sum(axis=0) / np.maximum(mask.sum(axis=0), 1)


def cascade_dr_terms(slates, weights, rewards, action, q_hat, dist):
    """Each cell's Cascade-DR term: the prefix weight times the reward's residual, plus the previous prefix weight
    times the reward model's expectation under the evaluation policy."""
    if action is None:
        raise TypeError("estimator 'cascade-dr' needs action: the logged item of each row.")
    observed = slates.matrix(q_hat[np.arange(len(action)), action])
    expected = slates.matrix((q_hat * dist).sum(axis=1))
    previous = np.ones_like(weights)
    previous[:, 1:] = weights[:, :-1]
    return weights * (rewards - observed) + previous * expected
