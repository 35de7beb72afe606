"""The accumulator across the ranks of ``torch.distributed``: each rank updates its own, compute merges them all."""

from ._accumulator import RankingAccumulator


def import_distributed():
    try:
        import torch.distributed
    except ImportError as error:
        raise ImportError(
            "DistributedRankingAccumulator needs PyTorch: pip install 'sklearn-rankmetrics[torch]'."
        ) from error
    return torch.distributed


class DistributedRankingAccumulator(RankingAccumulator):
    """A :class:`~sklearn_rankmetrics.RankingAccumulator` whose report covers every rank of a PyTorch job.

    Each rank updates with its own batches (tensors on any device, or
    arrays); :meth:`compute` gathers every rank's state
    (``torch.distributed.all_gather_object``), merges them in rank order and
    reduces: every rank gets the report of all the queries, exact, as
    torchmetrics' ``compute`` syncs its states. Outside a process group (or
    with one rank) it is the local report. Query ids are global: a query
    whose rows are spread over ranks is held open on each
    (``open_queries=``) and joined by the merge.

    .. versionadded:: 0.1

    Parameters
    ----------
    metrics : sequence of str, default=("ndcg@10", "map", "mrr")
        Metric names, as for :func:`~sklearn_rankmetrics.ranking_report`.
    ties : {"average", "pessimistic", "optimistic", "stable"}, default="average"
        Order of documents with equal scores.
    zero_division : {0.0, 1.0, np.nan}, default=0.0
        Value of a query where a metric is undefined.
    window : int, default=None
        As for :class:`~sklearn_rankmetrics.RankingAccumulator`.
    window_by : {"queries", "batches"}, default="queries"
        What ``window`` counts; only a batch window merges across ranks.
    max_grade : float, default=None
        The top grade of the labelling scale, for the metrics that divide by
        it (ERR, nERR, INST, INSQ) where their name does not set it, as for
        :class:`~sklearn_rankmetrics.RankingAccumulator`.
    process_group : torch.distributed.ProcessGroup, default=None
        The group to gather from; None: the default group.

    See Also
    --------
    sklearn_rankmetrics.RankingAccumulator : The accumulator of one process.

    Notes
    -----
    Every rank must call :meth:`compute` (it is a collective), as with any
    ``torch.distributed`` gather. The states travel pickled: one float per
    query and metric, plus the rows of held queries.

    Examples
    --------
    >>> import torch
    >>> from sklearn_rankmetrics.streaming import DistributedRankingAccumulator
    >>> accumulator = DistributedRankingAccumulator(["ndcg@10"])
    >>> _ = accumulator.update(torch.tensor([3, 2, 0]), torch.tensor([0.9, 0.3, 0.5]), qid=torch.tensor([1, 1, 1]))
    >>> round(accumulator.compute()["ndcg@10"], 4)  # no process group: this rank's queries
    0.9386
    """

    def __init__(self, metrics=("ndcg@10", "map", "mrr"), *, ties="average", zero_division=0.0, window=None,
                 window_by="queries", max_grade=None, process_group=None):  # fmt: skip
        super().__init__(metrics, ties=ties, zero_division=zero_division, window=window, window_by=window_by,
                         max_grade=max_grade)  # fmt: skip
        self.process_group = process_group

    def synced(self):
        """A :class:`~sklearn_rankmetrics.RankingAccumulator` of every rank's queries, merged in rank order.

        Returns
        -------
        accumulator : RankingAccumulator
            A new accumulator; this one is unchanged.
        """
        distributed = import_distributed()
        local = self.local()
        if not (distributed.is_available() and distributed.is_initialized()):
            return local
        states = [None] * distributed.get_world_size(self.process_group)
        distributed.all_gather_object(states, local, group=self.process_group)
        merged = states[0]
        for state in states[1:]:
            merged.merge(state)
        return merged

    def compute(self, **options):
        """The report of every rank's queries (a collective: every rank calls it).

        Parameters
        ----------
        **options : dict
            ``average``, ``confidence_level``, ``n_resamples``, ``random_state``,
            as for :meth:`RankingAccumulator.compute`.

        Returns
        -------
        report : dict
            The same report on every rank.
        """
        return self.synced().compute(**options)

    def local(self):
        """This rank's state as a plain :class:`~sklearn_rankmetrics.RankingAccumulator` (shared arrays, no group).

        Returns
        -------
        accumulator : RankingAccumulator
            The accumulator of this rank's queries.
        """
        local = RankingAccumulator.__new__(RankingAccumulator)
        local.__setstate__(self.__getstate__())
        return local

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("process_group", None)  # a live group does not pickle: the default group after unpickling
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.process_group = None
