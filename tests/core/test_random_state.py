"""random_state, one reading everywhere: None, an int, a RandomState or a numpy Generator (issue 36, item 15)."""

import numpy as np
import pytest

from sklearn_rankmetrics._core._resampling import random_state_from


def test_a_generator_seeds_a_random_state_with_one_number_drawn_from_it():
    expected = np.random.RandomState(int(np.random.default_rng(0).integers(2**32))).random_sample(5)
    np.testing.assert_array_equal(random_state_from(np.random.default_rng(0)).random_sample(5), expected)
    shared = np.random.default_rng(0)
    first, second = random_state_from(shared).random_sample(5), random_state_from(shared).random_sample(5)
    assert not np.array_equal(first, second)  # a Generator passed again moves on


def test_an_int_or_a_random_state_reads_as_scikit_learn_reads_it():
    np.testing.assert_array_equal(random_state_from(3).random_sample(3), np.random.RandomState(3).random_sample(3))
    given = np.random.RandomState(1)
    assert random_state_from(given) is given


@pytest.mark.parametrize("value", [np.random.SeedSequence(0), np.random.PCG64(0), 1.5, True, "0"])
def test_what_seeds_nothing_is_refused_naming_random_state(value):
    with pytest.raises(TypeError, match="random_state must be None, an integer, a numpy Generator"):
        random_state_from(value)
    with pytest.raises(ValueError, match=r"random_state must be an integer in \[0, 2\*\*32 - 1\]; got -1"):
        random_state_from(-1)
