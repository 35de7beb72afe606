"""The names of the tests and corrections, in this library's words and in its peers': one vocabulary.

Every comparison (:func:`compare_rankings`, :func:`compare_per_query`,
:func:`compare_runs` and the ``rankmetrics compare`` command) reads ``test``
and ``correction`` here. Besides the canonical names it takes, in any case and
with ``_``, ``-`` or a space alike:

- ranx 0.3.21's ``stat_test`` names (``ranx.compare``): ``"fisher"`` (its
  Fisher randomization test: the paired sign-flip test, ``"randomization"``),
  ``"student"`` (``scipy.stats.ttest_rel``: ``"t-test"``) and ``"tukey"``
  (``"tukey-hsd"``; ranx calls ``scipy.stats.tukey_hsd``, the one-way test
  that ignores that every system answers the same queries, where
  ``"tukey-hsd"`` is the two-way test of the system x query ANOVA, so their
  p-values differ);
- PyTerrier's ``test="t"`` (``scipy.stats.ttest_rel``) and ``"wilcoxon"``;
- statsmodels' spellings of the corrections (``multipletests(method=...)``,
  which PyTerrier passes its ``correction`` to): ``"b"``, ``"bonf"``,
  ``"h"``, ``"fdr_i"``, ``"fdr_p"``, and ``"bh"`` and
  ``"benjamini-hochberg"`` for ``"fdr_bh"`` (not ``"fdr"``, which names a
  family of corrections); ``"westfall-young"`` for
  ``"maxT"``; ``"none"`` for None.

A name that is none of these is a ValueError that lists the names and, for a
near miss, the name meant; statsmodels' corrections that are not offered
(Sidak, Holm-Sidak, Hommel, Benjamini-Yekutieli, ...) are named as such.
"""

import difflib

from .._core._validation import plain

TESTS = ("randomization", "t-test", "wilcoxon", "bootstrap", "tukey-hsd", "randomized-tukey-hsd")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh", "maxT", None)

TEST_ALIASES = {
    **{name: name for name in TESTS},
    # ranx 0.3.21 (ranx.compare's stat_test)
    "fisher": "randomization",
    "student": "t-test",
    "tukey": "tukey-hsd",
    # PyTerrier (pt.Experiment's test)
    "t": "t-test",
    # other spellings
    "permutation": "randomization",
    "randomisation": "randomization",
    "sign-flip": "randomization",
    "ttest": "t-test",
    "paired-t-test": "t-test",
    "bootstrap-t": "bootstrap",
    "hsd": "tukey-hsd",
    "randomised-tukey-hsd": "randomized-tukey-hsd",
    "randomized-tukey": "randomized-tukey-hsd",
    "randomised-tukey": "randomized-tukey-hsd",
}
CORRECTION_ALIASES = {
    "holm": "holm",
    "h": "holm",
    "bonferroni": "bonferroni",
    "b": "bonferroni",
    "bonf": "bonferroni",
    "fdr-bh": "fdr_bh",
    "bh": "fdr_bh",
    "benjamini-hochberg": "fdr_bh",
    "fdr-i": "fdr_bh",
    "fdr-p": "fdr_bh",
    "fdri": "fdr_bh",
    "fdrp": "fdr_bh",
    "maxt": "maxT",
    "westfall-young": "maxT",
    "none": None,
}
# statsmodels' multipletests methods that no comparison here offers.
NOT_OFFERED = {
    "s": "Sidak",
    "sidak": "Sidak",
    "hs": "Holm-Sidak",
    "holm-sidak": "Holm-Sidak",
    "sh": "Simes-Hochberg",
    "simes-hochberg": "Simes-Hochberg",
    "ho": "Hommel",
    "hommel": "Hommel",
    "fdr-by": "Benjamini-Yekutieli",
    "fdr-n": "Benjamini-Yekutieli",
    "fdr-tsbky": "two-stage FDR",
    "fdr-tsbh": "two-stage FDR",
}


def normalized(name):
    """A name as the tables hold it: lower case, with ``-`` for ``_`` and spaces."""
    return name.strip().lower().replace("_", "-").replace(" ", "-")


def resolve_test(test):
    """The canonical name of a test given in any of the accepted vocabularies, or a ValueError."""
    if isinstance(test, str) and normalized(test) in TEST_ALIASES:
        return TEST_ALIASES[normalized(test)]
    raise ValueError(
        f"test must be one of {', '.join(map(repr, TESTS))} (or a peer's name for one: ranx's 'fisher', "
        f"'student', 'tukey'; PyTerrier's 't'); got {plain(test)!r}." + suggestion(test, TEST_ALIASES)
    )


def resolve_correction(correction):
    """The canonical name of a correction (None for none) given in any accepted vocabulary, or a ValueError."""
    if correction is None:
        return None
    if isinstance(correction, str) and normalized(correction) in CORRECTION_ALIASES:
        return CORRECTION_ALIASES[normalized(correction)]
    names = "'holm', 'bonferroni', 'fdr_bh', 'maxT', None"
    if isinstance(correction, str) and normalized(correction) in NOT_OFFERED:
        raise ValueError(
            f"correction={correction!r} ({NOT_OFFERED[normalized(correction)]}) is not offered; the corrections "
            f"are {names}. 'holm' holds the family-wise error rate under any dependence between the tests, "
            "'fdr_bh' controls the false discovery rate."
        )
    raise ValueError(
        f"correction must be one of {names} (or statsmodels' and PyTerrier's spellings of them, such as 'bh' or "
        f"'b'); got {plain(correction)!r}." + suggestion(correction, CORRECTION_ALIASES)
    )


def suggestion(name, aliases):
    """`` Did you mean 'x'?`` for the accepted name nearest to ``name`` (ours first, else a peer's), or ""."""
    if not isinstance(name, str):
        return ""
    canonical = {normalized(str(meant)): meant for meant in aliases.values() if meant is not None}
    close = difflib.get_close_matches(normalized(name), list(canonical), n=1)
    if close:
        return f" Did you mean {canonical[close[0]]!r}?"
    close = difflib.get_close_matches(normalized(name), [alias for alias in aliases if len(alias) > 2], n=1)
    return f" Did you mean {close[0]!r} ({aliases[close[0]]!r})?" if close else ""
