"""Equal up to rounding is equal: the one tolerance of _core/_tolerance.py."""

import numpy as np
import pytest

from sklearn_rankmetrics._core._tolerance import (
    TIE_ULPS,
    equal_up_to_rounding,
    round_ties,
    rounding_tolerance,
    values_scale,
)


def test_values_a_few_ulps_apart_are_equal_and_others_are_not():
    assert equal_up_to_rounding(0.5400000000000001, 0.5399999999999999)
    assert equal_up_to_rounding(0.1 + 0.2, 0.3)
    assert not equal_up_to_rounding(0.54, 0.54 + 1e-12)
    assert not equal_up_to_rounding(np.nan, np.nan)
    assert equal_up_to_rounding(np.inf, np.inf) and not equal_up_to_rounding(np.inf, 1e308)
    # differences of values of scale 1 compared with that scale: 2e-16 is rounding, 1e-13 is not
    assert equal_up_to_rounding(2e-16, 0.0, scale=1.0) and not equal_up_to_rounding(1e-13, 0.0, scale=1.0)
    assert rounding_tolerance(1.0) == TIE_ULPS * np.finfo(float).eps


def test_round_ties_joins_neighbours_within_the_tolerance_and_keeps_the_order():
    values = np.array([0.3, 0.5400000000000001, 0.2, 0.5399999999999999, np.nan, 0.54])
    rounded = round_ties(values)
    assert rounded[1] == rounded[3] == rounded[5] == 0.5399999999999999
    assert rounded[0] == 0.3 and rounded[2] == 0.2 and np.isnan(rounded[4])
    assert values[1] == 0.5400000000000001  # the input is never modified
    assert list(np.argsort(round_ties([3.0, 1.0, 2.0]))) == [1, 2, 0]
    assert values_scale([np.nan, -3.0, 2.0, np.inf]) == 3.0
    assert round_ties([1.0]).tolist() == [1.0]


@pytest.mark.parametrize("seed", range(5))
def test_means_in_another_order_are_equal_up_to_rounding(seed):
    rng = np.random.default_rng(seed)
    values = rng.random(10_000)  # per-query values of a metric; numpy sums pairwise
    forward, backward = values.mean(), values[rng.permutation(len(values))].mean()
    assert equal_up_to_rounding(forward, backward)
    assert round_ties([forward, backward])[0] == round_ties([forward, backward])[1]
