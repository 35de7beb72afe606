"""Sphinx configuration of the sklearn-rankmetrics site: ``make docs`` builds it into docs/_build/html."""

import os
import sys
import warnings
from pathlib import Path

from sphinx.pycode import ModuleAnalyzer

import sklearn_rankmetrics
import sklearn_rankmetrics.trec

project = "sklearn-rankmetrics"
copyright = "the sklearn-rankmetrics developers"
version = release = sklearn_rankmetrics.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
templates_path = ["_templates"]

# The metric tables of the user guide, generated from the registry (docs/generated is not under version control).
GENERATED = Path(__file__).parent / "generated"
GENERATED.mkdir(exist_ok=True)
from sklearn_rankmetrics.registry._registry import conventions_table, metric_table  # noqa: E402

(GENERATED / "metric_table.md").write_text(metric_table())
(GENERATED / "conventions_table.md").write_text(conventions_table())

# The user guide is Markdown whose code blocks are doctests (pytest runs them); MyST renders them.
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# API reference: one page per public name, generated from its numpydoc docstring.
autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False


def describe_constants(module):
    """reST for each dict that ``module`` exports: the ``#:`` comment where it is defined, then its keys.

    autodoc reads that comment only in the module it documents, where an import defines the name
    (the pages of ``trec.MEASURES`` and ``trec.NICKNAMES`` stayed empty); the data template adds it.
    A dict of tuples (``trec.NICKNAMES``) also says what each key holds.
    """
    described = {}
    for name in module.__all__:
        value = getattr(module, name)
        if not isinstance(value, dict):
            continue
        # The submodules that hold the value: the one that defines it has the comment.
        comments = (
            ModuleAnalyzer.for_module(found_name).find_attr_docs().get(("", name))
            for found_name, found in sorted(sys.modules.items())
            if found_name.startswith(f"{module.__name__}.") and getattr(found, name, None) is value
        )
        lines = [*next(filter(None, comments), []), ""]
        if all(isinstance(entry, tuple) for entry in value.values()):
            for key, entries in value.items():
                lines += [f"``{key}``", "   " + ", ".join(f"``{entry}``" for entry in entries)]
        else:
            lines.append(f"The {len(value)} names: " + ", ".join(f"``{key}``" for key in value) + ".")
        described[f"{module.__name__}.{name}"] = "\n".join(lines)
    return described


autosummary_context = {"constants": describe_constants(sklearn_rankmetrics.trec)}

# The gallery: every script of examples/ runs at build time, so its output and figures are real.
os.environ.setdefault("MPLBACKEND", "Agg")
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/",  # run every example, not only plot_*.py
    "reference_url": {"sklearn_rankmetrics": None},
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sklearn_rankmetrics",),
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
}
# The examples run LightGBM beside joblib workers; keep each to one OpenMP thread, as the tests do.
os.environ.setdefault("OMP_NUM_THREADS", "1")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg", category=UserWarning)


def format_warning(message, category, filename, lineno, line=None):
    """A warning as the gallery prints it: the script's name, never the build machine's path to it."""
    return f"{Path(filename).name}:{lineno}: {category.__name__}: {message}\n"


warnings.formatwarning = format_warning

html_theme = "pydata_sphinx_theme"
html_title = "sklearn-rankmetrics"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["custom.css"]


def skip_routing_setters(app, what, name, obj, skip, options):
    """scikit-learn generates set_{method}_request on estimators; its own documentation covers them."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_routing_setters)
