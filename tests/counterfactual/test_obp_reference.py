"""off_policy_value equals Open Bandit Pipeline 0.5.7's slate estimators to 1e-10 on the same logged slates."""

from itertools import permutations

import numpy as np
import pytest
from obp_slate import load_obp_slate_estimators

from sklearn_rankmetrics.counterfactual import off_policy_value

OBP = load_obp_slate_estimators()


def logged_slates(seed, n_slates=300, length=4, n_actions=6):
    """Slates drawn by a Plackett-Luce logging policy, with each policy's slate, item-position and prefix
    probabilities, computed exactly (the marginals by enumerating every ranking)."""
    rng = np.random.default_rng(seed)
    rankings = np.array(list(permutations(range(n_actions), length)))
    logits_b, logits_e = rng.normal(size=(2, n_slates, n_actions))

    def prefix_probabilities(logits):
        # P(top-l prefix) of every ranking: products of softmax choices among the items not yet placed.
        weights = np.exp(logits)[:, rankings]  # (slates, rankings, length)
        placed = np.cumsum(weights, axis=2) - weights
        choice = weights / (np.exp(logits).sum(axis=1)[:, None, None] - placed)
        return np.cumprod(choice, axis=2)

    prefix_b, prefix_e = prefix_probabilities(logits_b), prefix_probabilities(logits_e)
    chosen = np.array([rng.choice(len(rankings), p=prefix_b[i, :, -1]) for i in range(n_slates)])
    actions = rankings[chosen]  # (slates, length)

    def marginal(prefix):
        # P(the logged item at slot l) = the sum over the rankings that put it there.
        full = prefix[:, :, -1]
        return np.array(
            [[full[i, rankings[:, slot] == actions[i, slot]].sum() for slot in range(length)] for i in range(n_slates)]
        )

    rows = np.arange(n_slates)
    data = {
        "slate_id": np.repeat(rows, length),
        "position": np.tile(np.arange(length), n_slates),
        "action": actions.reshape(-1),
        "reward": (rng.random(n_slates * length) < 0.3).astype(float),
        "pscore": np.repeat(prefix_b[rows, chosen, -1], length),
        "evaluation_pscore": np.repeat(prefix_e[rows, chosen, -1], length),
        "pscore_item_position": marginal(prefix_b).reshape(-1),
        "evaluation_pscore_item_position": marginal(prefix_e).reshape(-1),
        "pscore_cascade": prefix_b[rows, chosen].reshape(-1),
        "evaluation_pscore_cascade": prefix_e[rows, chosen].reshape(-1),
    }
    # Cascade-DR's inputs: a reward model for every item at every slot, and the evaluation policy's choice
    # probabilities at each slot given the logged prefix.
    q_hat = rng.random((n_slates * length, n_actions))
    exp_e = np.exp(logits_e)
    taken = np.zeros((n_slates, n_actions), dtype=bool)
    dist = np.zeros((n_slates, length, n_actions))
    for slot in range(length):
        free = np.where(taken, 0.0, exp_e)
        dist[:, slot] = free / free.sum(axis=1, keepdims=True)
        taken[rows, actions[:, slot]] = True
    data["q_hat"], data["evaluation_action_dist"] = q_hat, dist.reshape(-1, n_actions)
    # Shuffle the rows: off_policy_value finds each slate's slots by qid and position.
    return data, rng.permutation(n_slates * length), n_actions


IPS = ("pscore", "evaluation_policy_pscore", "pscore", "evaluation_pscore")
ITEM_POSITION = ("pscore_item_position", "evaluation_policy_pscore_item_position")
CASCADE = ("pscore_cascade", "evaluation_policy_pscore_cascade")
# Our estimator: (obp's class, obp's two pscore arguments, the data's two pscore columns).
ESTIMATORS = {
    "sips": ("SlateStandardIPS", *IPS),
    "snsips": ("SelfNormalizedSlateStandardIPS", *IPS),
    "iips": ("SlateIndependentIPS", *ITEM_POSITION, "pscore_item_position", "evaluation_pscore_item_position"),
    "sniips": (
        "SelfNormalizedSlateIndependentIPS",
        *ITEM_POSITION,
        "pscore_item_position",
        "evaluation_pscore_item_position",
    ),
    "rips": ("SlateRewardInteractionIPS", *CASCADE, "pscore_cascade", "evaluation_pscore_cascade"),
    "snrips": ("SelfNormalizedSlateRewardInteractionIPS", *CASCADE, "pscore_cascade", "evaluation_pscore_cascade"),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("estimator", list(ESTIMATORS))
def test_equals_obp(estimator, seed):
    data, shuffle, _ = logged_slates(seed)
    name, obp_pscore, obp_evaluation, ours, ours_evaluation = ESTIMATORS[estimator]
    expected = getattr(OBP, name)(len_list=4).estimate_policy_value(
        slate_id=data["slate_id"],
        reward=data["reward"],
        position=data["position"],
        **{obp_pscore: data[ours], obp_evaluation: data[ours_evaluation]},
    )
    found = off_policy_value(
        data["reward"][shuffle],
        qid=data["slate_id"][shuffle],
        position=data["position"][shuffle] + 1,
        pscore=data[ours][shuffle],
        evaluation_pscore=data[ours_evaluation][shuffle],
        estimator=estimator,
    )
    assert found == pytest.approx(expected, abs=1e-10, rel=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_cascade_dr_equals_obp(seed):
    data, shuffle, n_actions = logged_slates(seed)
    expected = OBP.SlateCascadeDoublyRobust(len_list=4, n_unique_action=n_actions).estimate_policy_value(
        slate_id=data["slate_id"],
        action=data["action"],
        reward=data["reward"],
        position=data["position"],
        pscore_cascade=data["pscore_cascade"],
        evaluation_policy_pscore_cascade=data["evaluation_pscore_cascade"],
        q_hat=data["q_hat"].reshape(-1),
        evaluation_policy_action_dist=data["evaluation_action_dist"].reshape(-1),
    )
    found = off_policy_value(
        data["reward"][shuffle],
        qid=data["slate_id"][shuffle],
        position=data["position"][shuffle] + 1,
        pscore=data["pscore_cascade"][shuffle],
        evaluation_pscore=data["evaluation_pscore_cascade"][shuffle],
        estimator="cascade-dr",
        action=data["action"][shuffle],
        q_hat=data["q_hat"][shuffle],
        evaluation_action_dist=data["evaluation_action_dist"][shuffle],
    )
    assert found == pytest.approx(expected, abs=1e-10, rel=1e-10)


def test_dm_is_the_first_slots_expected_reward_model():
    # obp has no slate direct method: a loop over the slates is the reference.
    data, _, _ = logged_slates(3, n_slates=50)
    found = off_policy_value(
        data["reward"],
        qid=data["slate_id"],
        position=data["position"] + 1,
        estimator="dm",
        q_hat=data["q_hat"],
        evaluation_action_dist=data["evaluation_action_dist"],
    )
    first = data["position"] == 0
    expected = np.mean([(data["q_hat"][i] * data["evaluation_action_dist"][i]).sum() for i in np.flatnonzero(first)])
    assert found == pytest.approx(expected, rel=1e-12)
