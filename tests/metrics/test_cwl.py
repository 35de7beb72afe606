"""INSQ and INST at the edges of their options: exact rational arithmetic as the reference."""

from fractions import Fraction

import numpy as np
import pytest

from sklearn_rankmetrics.metrics._cwl import insq_score, inst_score, scaled_square_tail


def exact_cwl_rate(gains, k, go_on):
    """The C/W/L rate over ranks 1 .. k in exact rationals: gains and go_on(rank, gain found) are Fractions."""
    gains = gains + [Fraction(0)] * (k - len(gains))
    reach, found, total, rate = Fraction(1), Fraction(0), Fraction(0), Fraction(0)
    for rank, gain in enumerate(gains[:k], start=1):
        total += reach
        rate += reach * gain
        found += gain
        reach *= go_on(rank, found)
    return rate / total


def exact_insq(gains, target, k):
    return exact_cwl_rate(gains, k, lambda i, found: ((i + 2 * target - 1) / (i + 2 * target)) ** 2)


def exact_inst(gains, target, k):
    return exact_cwl_rate(gains, k, lambda i, found: ((i + 2 * target - found - 1) / (i + 2 * target - found)) ** 2)


@pytest.mark.parametrize("target", [1e3, 1e7, 1e12, 1e15, 1e50, 1e300])
@pytest.mark.parametrize("k", [1, 3, 5, 50])
def test_insq_and_inst_keep_full_precision_for_large_targets(target, k):
    # The sum over the ranks past the documents was a difference of trigamma functions that cancels when the
    # target is large next to k (above 1 at target=1e300); every float here is an exact rational.
    labels = [4, 0, 2, 1, 0, 3]
    gains = [Fraction(label, 4) for label in labels]
    scores = np.arange(len(labels), 0, -1.0)
    exact_target = Fraction(target)
    for ours, exact in ((insq_score, exact_insq), (inst_score, exact_inst)):
        value = ours(labels, scores, target=target, max_grade=4, k=k)
        assert value == pytest.approx(float(exact(gains, exact_target, k)), rel=1e-13, abs=0), ours.__name__


def test_scaled_square_tail_is_exact_at_every_scale():
    # start**2 * sum_{j < n} 1 / (start + j)**2 against mpmath: a direct sum of positive terms for a few terms, the
    # difference of trigamma functions at enough digits to survive its cancellation for many (or inf).
    mpmath = pytest.importorskip("mpmath")
    for start in (1e-300, 1e-8, 0.5, 1.0, 31.5, 32.0, 1e3, 1e8, 1e16, 1e100, 1e300):
        x = mpmath.mpf(start)
        for n in (1, 2, 31, 32, 33, 100, 2000):
            with mpmath.workdps(30):
                exact = mpmath.fsum(x**2 / (x + j) ** 2 for j in range(n))
            assert scaled_square_tail(start, n) == pytest.approx(float(exact), rel=2e-15), (start, n)
        with mpmath.workdps(40 + 2 * int(max(np.log10(start), 0))):
            for n in (10**6, 10**12, 2**62, None):
                tail = mpmath.psi(1, x) - (0 if n is None else mpmath.psi(1, x + n))
                assert scaled_square_tail(start, n) == pytest.approx(float(x**2 * tail), rel=2e-15), (start, n)
