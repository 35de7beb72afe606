"""make_ranking, the svmlight loaders and the bundled lambdarank data."""

import fnmatch
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_rankmetrics
from sklearn_rankmetrics import load_svmlight_ranking, make_ranking, qid_from_sizes
from sklearn_rankmetrics.datasets import load_lambdarank
from sklearn_rankmetrics.datasets._lambdarank import DATA


def test_make_ranking_shapes_sizes_and_reproducibility():
    X, y, qid = make_ranking(n_queries=50, n_docs=(3, 9), n_features=7, random_state=0)
    assert X.shape == (len(y), 7) and qid.shape == y.shape
    sizes = np.bincount(qid)
    assert len(sizes) == 50 and sizes.min() >= 3 and sizes.max() <= 9 and len(set(sizes)) > 1
    assert np.any(np.diff(qid) < 0)  # shuffled by default: queries are not contiguous
    X2, y2, _ = make_ranking(n_queries=50, n_docs=(3, 9), n_features=7, random_state=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    _, _, ordered = make_ranking(n_queries=5, n_docs=4, shuffle=False, random_state=0)
    np.testing.assert_array_equal(ordered, np.repeat(np.arange(5), 4))


def test_make_ranking_label_distribution_is_controlled():
    _, y, _ = make_ranking(n_queries=400, n_grades=3, grade_proportions=[0.6, 0.3, 0.1], random_state=0)
    np.testing.assert_allclose(np.bincount(y) / len(y), [0.6, 0.3, 0.1], atol=0.01)
    _, y, _ = make_ranking(n_queries=400, random_state=0)
    shares = np.bincount(y) / len(y)
    assert np.all(np.diff(shares) < 0) and len(shares) == 5  # skewed towards irrelevant documents


def test_make_ranking_features_carry_signal():
    X, y, _ = make_ranking(n_queries=200, n_features=10, n_informative=3, noise=0.1, random_state=0)
    correlation = [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(10)]
    assert min(correlation[:3]) > max(correlation[3:])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_queries": 0}, "n_queries must be an integer >= 1"),
        ({"n_docs": (5, 2)}, r"n_docs must be an int or a \(low, high\) pair"),
        ({"n_docs": 0}, "n_docs_low must be an integer >= 1"),
        ({"n_features": 3, "n_informative": 4}, "n_informative=4 must not exceed n_features=3"),
        ({"n_grades": 1}, "n_grades must be an integer >= 2"),
        ({"grade_proportions": [1, 1]}, "grade_proportions must hold 5 non-negative shares"),
    ],
)
def test_make_ranking_rejects_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_ranking(**kwargs)


def test_qid_from_sizes():
    np.testing.assert_array_equal(qid_from_sizes([2, 0, 1]), [0, 0, 2])
    with pytest.raises(ValueError, match="sizes must be a 1-D array of non-negative integers"):
        qid_from_sizes([1.5, 2])


def test_load_lightgbm_files_with_their_query_sizes(lambdarank_dir):
    X, y, qid = load_svmlight_ranking(lambdarank_dir / "rank.test")  # finds rank.test.query beside it
    sizes = np.loadtxt(lambdarank_dir / "rank.test.query", dtype=int)
    assert X.shape[0] == len(y) == len(qid) == sizes.sum()
    np.testing.assert_array_equal(np.bincount(qid), sizes)


def test_load_letor_qid_fields_and_mismatched_query_files(tmp_path):
    path = tmp_path / "letor.txt"
    path.write_text("2 qid:10 1:1 2:0.5\n0 qid:10 1:0.2\n1 qid:3 2:1\n")
    _, y, qid = load_svmlight_ranking(path)
    np.testing.assert_array_equal(qid, [10, 10, 3])
    np.testing.assert_array_equal(y, [2, 0, 1])
    sizes = tmp_path / "sizes.txt"
    sizes.write_text("2\n2\n")
    with pytest.raises(ValueError, match=r"gives 4 rows in 2 queries, but .* has 3 rows"):
        load_svmlight_ranking(path, query_path=sizes)


def test_lambdarank_subsets_have_the_documented_counts():
    X, y, qid = load_lambdarank()  # subset="train"
    assert X.shape == (3005, 300) and X.dtype == np.float64 and isinstance(X, np.ndarray)
    assert y.dtype == qid.dtype == np.int64
    np.testing.assert_array_equal(np.bincount(y), [645, 1211, 858, 222, 69])
    np.testing.assert_array_equal(np.unique(qid), np.arange(201))
    X_test, y_test, qid_test = load_lambdarank(subset="test")
    assert X_test.shape == (768, 300)
    np.testing.assert_array_equal(np.bincount(y_test), [206, 256, 252, 44, 10])
    np.testing.assert_array_equal(np.unique(qid_test), np.arange(201, 251))
    assert (X.min(), X.max()) == (0.0, 1.0) and np.isclose((X != 0).mean(), 0.316, atol=0.001)


def test_lambdarank_test_ids_never_collide_and_both_is_the_concatenation():
    train, test, both = (load_lambdarank(subset=subset) for subset in ("train", "test", "both"))
    assert np.intersect1d(train[2], test[2]).size == 0
    for part_train, part_test, whole in zip(train, test, both, strict=True):
        np.testing.assert_array_equal(np.concatenate([part_train, part_test]), whole)
    assert np.all(np.diff(both[2]) >= 0)  # each query's rows are contiguous, in file order


def test_lambdarank_is_lightgbms_files_unchanged(lambdarank_dir):
    # The files as LightGBM ships them, read by the svmlight loader with their .query files.
    X, y, qid = load_svmlight_ranking(lambdarank_dir / "rank.train")
    X_test, y_test, qid_test = load_svmlight_ranking(
        lambdarank_dir / "rank.test", n_features=300, qid_offset=qid.max() + 1
    )
    expected = sp.vstack([X, X_test]).toarray(), np.concatenate([y, y_test]), np.concatenate([qid, qid_test])
    for loaded, original in zip(load_lambdarank(subset="both"), expected, strict=True):
        np.testing.assert_array_equal(loaded, original)


def test_lambdarank_returns_fresh_arrays():
    X = load_lambdarank(subset="test")[0]
    X[:] = -1.0
    assert load_lambdarank(subset="test")[0].min() == 0.0


def test_lambdarank_rejects_an_unknown_subset():
    with pytest.raises(ValueError, match="subset must be one of 'train', 'test', 'both'; got 'valid'"):
        load_lambdarank(subset="valid")


def test_every_bundled_data_file_is_package_data():
    # A file missing from pyproject's package-data would be absent from the wheel and the sdist.
    tomllib = pytest.importorskip("tomllib")
    pyproject = Path(sklearn_rankmetrics.__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("an installed copy: no pyproject.toml beside it")
    package_data = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]
    patterns = package_data["sklearn_rankmetrics.datasets"]
    files = [entry.name for entry in DATA.iterdir() if entry.is_file()]
    assert {"LICENSE", "rank.train.gz", "rank.train.query", "rank.test.gz", "rank.test.query"} <= set(files)
    assert [name for name in files if not any(fnmatch.fnmatch(f"data/{name}", p) for p in patterns)] == []


def test_make_ranking_takes_a_numpy_generator_as_random_state():
    first, second = (make_ranking(n_queries=5, n_docs=4, random_state=np.random.default_rng(0)) for _ in range(2))
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
