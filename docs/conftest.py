"""pytest runs the doctests of the Markdown pages; the build's inputs and outputs are not tests."""

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "auto_examples/*", "generated/*"]
