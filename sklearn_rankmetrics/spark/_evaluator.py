"""RankingEvaluator: a Spark ML Evaluator of any of the library's metrics, so that CrossValidator tunes by it."""

from ._report import import_spark, ranking_report, ranking_report_from_lists

import_spark()

from pyspark import keyword_only  # noqa: E402
from pyspark.ml.evaluation import Evaluator  # noqa: E402
from pyspark.ml.param import Param, Params, TypeConverters  # noqa: E402
from pyspark.ml.util import DefaultParamsReadable, DefaultParamsWritable  # noqa: E402


def string_param(name, doc):
    return Param(Params._dummy(), name, doc, typeConverter=TypeConverters.toString)


class RankingEvaluator(Evaluator, DefaultParamsReadable, DefaultParamsWritable):
    """Evaluator of Spark ML rankings by any metric of the library: graded NDCG@k, MAP, ERR, ...

    A drop-in for ``pyspark.ml.evaluation.RankingEvaluator`` where graded
    relevance or another metric is needed, and a way to tune a model (an
    ALS recommender, a ranker) with ``CrossValidator`` or
    ``TrainValidationSplit`` by such a metric. It reads either layout:

    - rows: one row per (query, document), as ``ALSModel.transform`` gives
      them: ``qidCol`` (the user), ``labelCol`` (the graded relevance, such as
      the held-out rating) and ``predictionCol`` (the score), measured by
      :func:`sklearn_rankmetrics.spark.ranking_report`;
    - lists: one row per user, when ``predictionCol`` holds an array: the
      recommended ids in rank order (or ALS's structs), ``labelCol`` the
      relevant ids and ``gradesCol`` their grades (None: binary), measured by
      :func:`sklearn_rankmetrics.spark.ranking_report_from_lists`.

    .. versionadded:: 0.1

    Parameters
    ----------
    metricName : str, default="ndcg@10"
        A metric name, as for :func:`sklearn_rankmetrics.ranking_report`
        (``"ndcg@10"``, ``"map"``, ``"ndcg_exp@5"``, ``"err@10(max_grade=4)"``).
    labelCol : str, default="label"
        Relevance labels (rows), or arrays of relevant ids (lists).
    predictionCol : str, default="prediction"
        Scores (rows), or arrays of recommended ids, best first (lists).
    qidCol : str, default="qid"
        Query (user) ids, for rows; ignored for lists.
    gradesCol : str, default=None
        Arrays of the relevant ids' grades, for lists; None: binary.
    zeroDivision : float, default=0.0
        Value of a query without a relevant document: 0.0, 1.0 or nan.
    ties : str, default="average"
        Order of equal scores, as for the report.

    See Also
    --------
    ranking_report : The report behind ``evaluate``, with every metric at once.

    Notes
    -----
    Every metric of the library is larger-is-better, so ``isLargerBetter``
    is True. ``copy(extra)`` and ``evaluate(dataset, params)`` follow
    pyspark.ml's Params semantics (a copy with the extra values set; the
    evaluator itself unchanged), and the evaluator saves and loads with
    ``DefaultParamsWritable`` / ``DefaultParamsReadable``, as a
    ``CrossValidator`` that is saved needs.

    Examples
    --------
    >>> from sklearn_rankmetrics.spark import RankingEvaluator
    >>> evaluator = RankingEvaluator(metricName="ndcg@10", qidCol="user", labelCol="rating")
    >>> evaluator.getMetricName(), evaluator.isLargerBetter()
    ('ndcg@10', True)
    >>> evaluator.copy({evaluator.metricName: "map"}).getMetricName()
    'map'
    """

    metricName = string_param("metricName", "metric name, as for sklearn_rankmetrics.ranking_report")
    labelCol = string_param("labelCol", "relevance labels (rows) or arrays of relevant ids (lists)")
    predictionCol = string_param("predictionCol", "scores (rows) or arrays of recommended ids, best first (lists)")
    qidCol = string_param("qidCol", "query (user) ids, for rows")
    gradesCol = string_param("gradesCol", "arrays of the relevant ids' grades, for lists (unset: binary)")
    zeroDivision = Param(Params._dummy(), "zeroDivision", "value of a query without a relevant document",
                         typeConverter=TypeConverters.toFloat)  # fmt: skip
    ties = string_param("ties", "order of equal scores: average, pessimistic, optimistic or stable")

    @keyword_only
    def __init__(self, *, metricName="ndcg@10", labelCol="label", predictionCol="prediction", qidCol="qid",
                 gradesCol=None, zeroDivision=0.0, ties="average"):  # fmt: skip
        super().__init__()
        self._setDefault(metricName="ndcg@10", labelCol="label", predictionCol="prediction", qidCol="qid",
                         zeroDivision=0.0, ties="average")  # fmt: skip
        self._set(**self._input_kwargs)

    @keyword_only
    def setParams(self, *, metricName="ndcg@10", labelCol="label", predictionCol="prediction", qidCol="qid",
                  gradesCol=None, zeroDivision=0.0, ties="average"):  # fmt: skip
        """Set the evaluator's params (those passed).

        Parameters
        ----------
        metricName, labelCol, predictionCol, qidCol, gradesCol, zeroDivision, ties
            As for the constructor.

        Returns
        -------
        self : RankingEvaluator
            The evaluator.
        """
        return self._set(**self._input_kwargs)

    def setMetricName(self, value):
        """Set ``metricName``."""
        return self._set(metricName=value)

    def getMetricName(self):
        """The metric name."""
        return self.getOrDefault(self.metricName)

    def setLabelCol(self, value):
        """Set ``labelCol``."""
        return self._set(labelCol=value)

    def getLabelCol(self):
        """The label column."""
        return self.getOrDefault(self.labelCol)

    def setPredictionCol(self, value):
        """Set ``predictionCol``."""
        return self._set(predictionCol=value)

    def getPredictionCol(self):
        """The prediction column."""
        return self.getOrDefault(self.predictionCol)

    def setQidCol(self, value):
        """Set ``qidCol``."""
        return self._set(qidCol=value)

    def getQidCol(self):
        """The query id column."""
        return self.getOrDefault(self.qidCol)

    def setGradesCol(self, value):
        """Set ``gradesCol``."""
        return self._set(gradesCol=value)

    def getGradesCol(self):
        """The grades column, or None."""
        return self.getOrDefault(self.gradesCol) if self.isDefined(self.gradesCol) else None

    def setZeroDivision(self, value):
        """Set ``zeroDivision``."""
        return self._set(zeroDivision=value)

    def getZeroDivision(self):
        """The value of a query without a relevant document."""
        return self.getOrDefault(self.zeroDivision)

    def setTies(self, value):
        """Set ``ties``."""
        return self._set(ties=value)

    def getTies(self):
        """The tie policy."""
        return self.getOrDefault(self.ties)

    def isLargerBetter(self):
        """True: every metric of the library grows with the quality of the ranking.

        Returns
        -------
        larger_is_better : bool
            True.
        """
        return True

    def _evaluate(self, dataset):
        from pyspark.sql.types import ArrayType

        name, prediction = self.getMetricName(), self.getPredictionCol()
        if prediction not in dataset.columns:
            raise ValueError(f"The dataset has no column {prediction!r} (predictionCol); its columns are "
                             f"{dataset.columns}.")  # fmt: skip
        if isinstance(dataset.schema[prediction].dataType, ArrayType):
            report = ranking_report_from_lists(
                dataset,
                metrics=[name],
                recommendations_col=prediction,
                relevant_col=self.getLabelCol(),
                grades_col=self.getGradesCol(),
                zero_division=self.getZeroDivision(),
            )
        else:
            report = ranking_report(
                dataset,
                metrics=[name],
                qid_col=self.getQidCol(),
                label_col=self.getLabelCol(),
                score_col=prediction,
                ties=self.getTies(),
                zero_division=self.getZeroDivision(),
            )
        return float(report[name])
