"""Run files named: the files of a folder or of a glob pattern, and names that tell paths apart.

``compare_runs`` and the ``rankmetrics`` command name each run by its file's
name (``bm25.run``), or by as many of its path's last components as tell it
apart from the others (``bm25/run.txt`` and ``dense/run.txt``).
"""

import errno
import glob
import os
from collections import Counter


def run_files(path, *, besides=None):
    """The run files a path names: a folder's files (not those starting with a dot, not its subfolders),
    the files a glob pattern matches (a pattern that is no existing path), or the path itself, sorted; a
    FileNotFoundError for a path that names nothing.

    ``besides``: the qrels file, which a folder or a pattern may hold too; it is not a run.
    """
    text = os.fspath(path)
    if os.path.isdir(text):
        files = [os.path.join(text, name) for name in os.listdir(text) if not name.startswith(".")]
        files = sorted(file for file in files if os.path.isfile(file) and not same_file(file, besides))
        if not files:
            raise ValueError(f"{text!r} is a folder with no run file in it.")
        return files
    if glob.has_magic(text) and not os.path.exists(text):
        files = sorted(file for file in glob.glob(text) if os.path.isfile(file) and not same_file(file, besides))
        if not files:
            raise ValueError(f"the pattern {text!r} matches no run file.")
        return files
    if not os.path.exists(text):  # said here, where a lone missing run would otherwise read as too few runs
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), text)
    return [text]


def same_file(path, other):
    """Whether ``other`` (None, a path, or anything else) is the file at ``path``."""
    if not isinstance(other, str | os.PathLike):
        return False
    return os.path.realpath(path) == os.path.realpath(other)


def names_of_paths(paths):
    """``{name: path}``: each file's name, or as many of its last path components as tell it apart from the others."""
    real = Counter(os.path.realpath(path) for path in paths)
    twice = [path for path in paths if real[os.path.realpath(path)] > 1]
    if twice:
        raise ValueError(f"the run file {twice[0]!r} is given twice: give each run once.")
    parts = [os.path.normpath(path).split(os.sep) for path in paths]
    depth = [1] * len(paths)
    while True:
        names = ["/".join(part[-length:]) for part, length in zip(parts, depth, strict=True)]
        counts = Counter(names)
        clashing = [index for index, name in enumerate(names) if counts[name] > 1]
        if not clashing:
            return dict(zip(names, paths, strict=True))
        grown = [index for index in clashing if depth[index] < len(parts[index])]
        if not grown:  # one path is the tail of another ("run" and "x/run" from two folders): their paths name them
            return dict(zip(paths, paths, strict=True))
        for index in grown:
            depth[index] += 1
