"""Training judgements joined to the candidates of training runs: each candidate's relevance, each query's R."""

import numpy as np

from ..trec._judging import check_judged_once
from ..trec._sources import as_qrels, comparable
from ._lists import candidate_codes


def judged_candidates(table, qrels, *, unretrieved=False):
    """The relevance of each candidate of ``table`` (a RunsTable; 0 where unjudged) and each query's count of
    relevant documents, -1 for the queries that the qrels do not hold (no training query).

    With ``unretrieved``, also the query codes and judgements of the judged
    documents that no run retrieved (for queries of the table).
    """
    qrels = as_qrels(qrels)
    lists = table.lists
    vocabulary, qrels_query = comparable(table.query_ids, qrels.query_id)
    place = np.minimum(np.searchsorted(vocabulary, qrels_query), max(len(vocabulary) - 1, 0))
    known = (vocabulary[place] == qrels_query) if len(vocabulary) else np.zeros(len(qrels_query), dtype=bool)
    n_relevant = np.full(max(lists.n_queries, 1), -1, dtype=np.int64)
    n_relevant[np.unique(place[known])] = 0
    np.add.at(n_relevant, place[known], qrels.relevance[known] >= 1)
    candidate_doc, qrels_doc = comparable(table.candidate_doc, qrels.doc_id[known])
    query = np.concatenate((lists.candidate_query, place[known]))
    codes, _ = candidate_codes(query, np.concatenate((candidate_doc, qrels_doc)))
    n = lists.n_candidates
    candidate_of_code = np.full(int(codes.max(initial=-1)) + 1, -1, dtype=np.intp)
    candidate_of_code[codes[:n]] = np.arange(n)
    judged = candidate_of_code[codes[n:]]
    check_judged_once(codes[n:], qrels.doc_id[known], lambda row: table.query_ids[place[known][row]])
    relevance = np.zeros(n, dtype=np.int64)
    relevance[judged[judged >= 0]] = qrels.relevance[known][judged >= 0]
    if unretrieved:
        return relevance, n_relevant, (place[known][judged < 0], qrels.relevance[known][judged < 0])
    return relevance, n_relevant
