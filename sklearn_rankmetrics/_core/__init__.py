"""What every metric stands on: rows in (validation, query ids, namespaces, sparse input), the Ranking, operations.

Data flows one way: :func:`~._inputs.rank_queries` turns a metric's inputs into
one validated :class:`~._ranking.Ranking` (one sort for all queries); the
metrics reduce its segments with the operations of the inputs' namespace
(:mod:`._numpy_ops`, :mod:`._namespace_ops`). Nothing here imports from the
layers above.
"""
