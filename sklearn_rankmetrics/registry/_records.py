"""The table of every metric: one record each, with its names in every peer tool and their conventions.

Add a metric here once; the registry (:mod:`._registry`) derives the scorer
names, the report's metrics, the error messages and the docs' tables from it.
"""

from ..metrics._cascade import _expected_reciprocal_rank, _reciprocal_rank
from ..metrics._cwl import _insq, _inst, insq_score, inst_score
from ..metrics._dcg import _cumulative_gain, _dcg, _ndcg
from ..metrics._diversity import alpha_ndcg_score, intent_aware_err_score, subtopic_recall_score
from ..metrics._intent_aware import (
    intent_aware_average_precision_score,
    intent_aware_precision_score,
    normalized_intent_aware_err_score,
    novelty_rank_biased_precision_score,
)
from ..metrics._ir_measures import _bpref, _rank_biased_precision, interpolated_precision_score
from ..metrics._normalized import _ncg, _normalized_err, _q_measure, ncg_score, normalized_err_score, q_measure_score
from ..metrics._overlap import _compatibility, compatibility_score, rank_biased_overlap
from ..metrics._pairs import _ordered_pair_accuracy, ordered_pair_accuracy_score
from ..metrics._precision import _average_precision, _f1, _hit_rate, _precision, _r_precision, _recall
from ..recommenders._accuracy import (
    bpref_score,
    cumulative_gain_score,
    dcg_score,
    expected_reciprocal_rank_score,
    f1_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    rank_biased_precision_score,
    recall_at_k_score,
)
from ..recommenders._coverage import catalog_coverage
from ..recommenders._fairness import expected_exposure_loss
from ..recommenders._list_diversity import intra_list_diversity_score, serendipity_score
from ..recommenders._popularity import (
    average_popularity_score,
    gini_index,
    long_tail_share_score,
    novelty_score,
    shannon_entropy,
    user_coverage,
)
from ._metric_info import register

# LightGBM and XGBoost break score ties in input order and score a query without a relevant document 1.
BOOSTERS = {"ties": "stable", "zero_division": 1.0}
TORCHMETRICS = {
    "zero_division": 0.0,
    "inputs": ("tie_free", "positive"),
    "note": "empty_target_action='neg' (its default; 'pos' is zero_division=1.0); torchmetrics orders tied scores "
    "arbitrarily and counts a document scored <= 0 as not retrieved; it computes in float32",
}
TREC_EVAL = {
    "ties": "stable",
    "note": "one row per retrieved document (label 0 if unjudged) and per judged document not retrieved (score -inf), "
    "the rows of tied scores in trec_eval's order (descending docno); evaluate_run reproduces trec_eval itself",
}
# ir_measures' measures that its pytrec_eval provider computes: trec_eval's conventions.
IR_MEASURES = {**TREC_EVAL, "note": "through pytrec_eval: " + TREC_EVAL["note"]}
RANX = {
    "inputs": ("tie_free",),
    "note": "the qrels every row, the run the rows not scored -inf; ranx orders tied scores by an unstable sort, "
    "which no tie policy reproduces",
}
# INSQ and INST: ir_measures' names of their options, and the depth both tools sum their ranks to (cwl_eval's max_n).
IR_MEASURES_CWL_OPTIONS = {"T": "target", "max_rel": "max_grade"}
IR_MEASURES_CWL = {
    "k": 1000,
    "inputs": ("tie_free",),
    "note": "INST(T=2, max_rel=3) reads as target=2, max_grade=3 (ir_measures requires max_rel; its min_rel must be "
    "0); through cwl_eval",
}
CWL_EVAL = {
    "k": 1000,
    "max_grade": 1.0,
    "ties": "stable",
    "inputs": ("unit_labels",),
    "note": "its column INST-T=2 (INSQ-T=2) is target=2; it reads each document's gain in [0, 1] from the qrels: the "
    "labels are those gains; a ranked list it is given in order",
}
NDEVAL = {"inputs": ("tie_free",), "note": "the defaults (ndeval computes to rank 20 at most)"}
# The diversity measures of ir_measures: its pyndeval provider, ndeval's conventions.
IR_MEASURES_NDEVAL = {**NDEVAL, "note": "through pyndeval: " + NDEVAL["note"]}
RECBOLE = {"note": "not run here: RecBole (and its PyTorch stack) is not installed; the name and definition only"}
ELLIOT = {"note": "not run here: Elliot (its pinned TensorFlow stack) is not installed; the name and definition only"}

RECORDS = (
    register(
        "cg",
        cumulative_gain_score,
        _cumulative_gain,
        definition="Sum of the gains of the top k documents, without discount.",
        reference="Järvelin & Kekäläinen, TOIS 2002",
        spellings={},
    ),
    register(
        "dcg",
        dcg_score,
        _dcg,
        definition="Sum over the top k of gain(label) / log2(rank + 1).",
        reference="Järvelin & Kekäläinen, TOIS 2002; Burges et al., ICML 2005 (exponential gain)",
        spellings={"ranx": ("dcg", "dcg@k", "dcg_burges", "dcg_burges@k")},
        conventions={
            "ranx": {**RANX, "note": "dcg is linear gain; dcg_burges is gain='exponential'; " + RANX["note"]},
            "sklearn": {"note": "sklearn.metrics.dcg_score of each query as one row of 2-D input"},
        },
        variants={"dcg_exp": {"gain": "exponential"}, "dcg_burges": {"gain": "exponential"}},
    ),
    register(
        "ndcg",
        ndcg_score,
        _ndcg,
        definition="DCG@k divided by the DCG@k of the ideal ranking of the query's labels.",
        reference="Järvelin & Kekäläinen, TOIS 2002; trec_eval's ndcg and ndcg_cut",
        spellings={
            "trec_eval": ("ndcg", "ndcg_cut_k", "ndcg_cut.k"),
            "ir_measures": ("nDCG", "nDCG@k"),
            "ranx": ("ndcg", "ndcg@k", "ndcg_burges", "ndcg_burges@k"),
            "lightgbm": ("ndcg@k",),
            "xgboost": ("ndcg", "ndcg@k", "ndcg-", "ndcg@k-"),
            "torchmetrics": ("RetrievalNormalizedDCG", "retrieval_normalized_dcg"),
        },
        conventions={
            "lightgbm": {"gain": "exponential", **BOOSTERS, "note": "its ndcg metric prints ndcg@k for each eval_at"},
            "xgboost": {"gain": "exponential", **BOOSTERS, "note": "ndcg@k- scores such a query 0"},
            "torchmetrics": {
                "zero_division": 0.0,
                "note": "both average tied scores exactly; torchmetrics computes in float32",
            },
            "ranx": {**RANX, "note": "ndcg is linear gain; ndcg_burges is gain='exponential'; " + RANX["note"]},
            "trec_eval": TREC_EVAL,
            "ir_measures": IR_MEASURES,
            "sklearn": {"note": "sklearn.metrics.ndcg_score of each query as one row of 2-D input"},
        },
        variants={"ndcg_exp": {"gain": "exponential"}, "ndcg_burges": {"gain": "exponential"}},
    ),
    register(
        "map",
        mean_average_precision_score,
        _average_precision,
        definition="Mean over the relevant documents in the top k of the precision at their rank, "
        "divided by R (all relevant documents).",
        reference="trec_eval's map and map_cut; Manning et al., Introduction to IR, 2008, ch. 8",
        spellings={
            "trec_eval": ("map", "map_cut_k", "map_cut.k"),
            "ir_measures": ("AP", "AP@k"),
            "ranx": ("map", "map@k"),
            "lightgbm": ("map@k",),
            "xgboost": ("map", "map@k", "map-", "map@k-"),
            "torchmetrics": ("RetrievalMAP", "retrieval_average_precision"),
        },
        conventions={
            "lightgbm": {"denominator": "capped", **BOOSTERS},
            "xgboost": {
                "denominator": "capped",
                **BOOSTERS,
                "inputs": ("binary",),
                "note": "XGBoost refuses other labels; map@k- scores such a query 0",
            },
            "torchmetrics": {
                **TORCHMETRICS,
                "inputs": (*TORCHMETRICS["inputs"], "no_cutoff"),
                "note": TORCHMETRICS["note"] + "; its AP@k divides by the relevant documents found in the top k, "
                "which no option reproduces",
            },
            "ranx": RANX,
            "trec_eval": TREC_EVAL,
            "ir_measures": IR_MEASURES,
        },
    ),
    register(
        "mrr",
        mean_reciprocal_rank_score,
        _reciprocal_rank,
        definition="1 / the rank of the first relevant document in the top k (0 if none).",
        reference="Voorhees, TREC-8 QA track, 1999; trec_eval's recip_rank",
        spellings={
            "trec_eval": ("recip_rank",),
            "ir_measures": ("RR", "RR@k"),
            "ranx": ("mrr", "mrr@k"),
            "torchmetrics": ("RetrievalMRR", "retrieval_reciprocal_rank"),
        },
        conventions={
            "torchmetrics": TORCHMETRICS,
            "trec_eval": TREC_EVAL,
            "ir_measures": {
                **IR_MEASURES,
                "note": "RR through pytrec_eval (trec_eval's conventions, ties by descending docno), RR@k through MS "
                "MARCO's evaluation, which breaks ties by ascending docno: the rows of tied scores in that order",
            },
            "ranx": RANX,
        },
    ),
    register(
        "precision",
        precision_at_k_score,
        _precision,
        definition="Relevant documents in the top k, divided by k.",
        reference="trec_eval's P",
        spellings={
            "trec_eval": ("P_k", "P.k"),
            "ir_measures": ("P@k",),
            "ranx": ("precision@k",),
            "xgboost": ("pre@k",),
            "torchmetrics": ("RetrievalPrecision", "retrieval_precision"),
        },
        conventions={
            "torchmetrics": TORCHMETRICS,
            "trec_eval": TREC_EVAL,
            "ir_measures": IR_MEASURES,
            "ranx": RANX,
            "xgboost": {
                "ties": "stable",
                "zero_division": 0.0,
                "denominator": "capped",
                "inputs": ("binary",),
                "note": "XGBoost 3.2 divides by min(k, the query's documents), scores a query without a relevant "
                "document 0 and refuses other labels",
            },
        },
    ),
    register(
        "recall",
        recall_at_k_score,
        _recall,
        definition="Relevant documents in the top k, divided by R.",
        reference="trec_eval's recall",
        spellings={
            "trec_eval": ("recall_k", "recall.k"),
            "ir_measures": ("R@k",),
            "ranx": ("recall@k",),
            "torchmetrics": ("RetrievalRecall", "retrieval_recall"),
        },
        conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL, "ir_measures": IR_MEASURES, "ranx": RANX},
    ),
    register(
        "r_precision",
        r_precision_score,
        _r_precision,
        definition="Precision at rank R, the number of relevant documents.",
        reference="trec_eval's Rprec",
        spellings={
            "trec_eval": ("Rprec",),
            "ir_measures": ("Rprec",),
            "ranx": ("r-precision",),
            "torchmetrics": ("RetrievalRPrecision", "retrieval_r_precision"),
        },
        conventions={
            "torchmetrics": {
                **TORCHMETRICS,
                "inputs": (*TORCHMETRICS["inputs"], "no_cutoff"),
                "note": TORCHMETRICS["note"] + "; its R-precision takes no top_k",
            },
            "trec_eval": TREC_EVAL,
            "ir_measures": IR_MEASURES,
            "ranx": RANX,
        },
    ),
    register(
        "err",
        expected_reciprocal_rank_score,
        _expected_reciprocal_rank,
        definition="Expected 1 / rank at which a cascade user stops, stopping at a document with "
        "probability (2^label - 1) / 2^max_grade.",
        reference="Chapelle et al., CIKM 2009; gdeval's err@k",
        spellings={"ir_measures": ("ERR@k",)},
        conventions={
            "ir_measures": {
                "max_grade": 4,
                "ties": "stable",
                "note": "through gdeval, which fixes the top grade at 4 (it refuses a judgement above 4), ranks tied "
                "scores by descending docno, prints 5 decimals and needs a cutoff; a query without a relevant document "
                "has no value there",
            }
        },
    ),
    register(
        "hit_rate",
        hit_rate_score,
        _hit_rate,
        definition="1 if a relevant document is in the top k, else 0.",
        reference="trec_eval's success; ranx's hit_rate",
        spellings={
            "trec_eval": ("success_k", "success.k"),
            "ir_measures": ("Success@k",),
            "ranx": ("hit_rate@k",),
            "torchmetrics": ("RetrievalHitRate", "retrieval_hit_rate"),
            "common": ("HR@k",),
        },
        conventions={"torchmetrics": TORCHMETRICS, "trec_eval": TREC_EVAL, "ir_measures": IR_MEASURES, "ranx": RANX},
    ),
    register(
        "f1",
        f1_at_k_score,
        _f1,
        definition="Harmonic mean of precision@k and recall@k.",
        reference="van Rijsbergen, Information Retrieval, 1979; ranx's f1",
        spellings={"ranx": ("f1@k",)},
        conventions={"ranx": RANX},
    ),
    register(
        "bpref",
        bpref_score,
        _bpref,
        definition="Mean over relevant documents of 1 - (judged non-relevant ranked above) / min(R, N).",
        reference="Buckley & Voorhees, SIGIR 2004; trec_eval's bpref",
        spellings={"trec_eval": ("bpref",), "ir_measures": ("Bpref",), "ranx": ("bpref",)},
        conventions={
            "trec_eval": TREC_EVAL,
            "ir_measures": IR_MEASURES,
            "ranx": {
                **RANX,
                "inputs": ("tie_free", "relevant"),
                "note": "ranx 0.3.21 can score every query 0 in a run that holds a query without a relevant document; "
                + RANX["note"],
            },
        },
    ),
    register(
        "rbp",
        rank_biased_precision_score,
        _rank_biased_precision,
        definition="(1 - p) times the sum over ranks of p^(rank - 1) for each relevant document (p=0.8; binary gains).",
        reference="Moffat & Zobel, TOIS 2008",
        spellings={"ir_measures": ("RBP",), "ranx": ("rbp.p",)},
        peer_options={"ir_measures": {"rel": "relevance_threshold"}},
        conventions={
            "ir_measures": {
                "k": 1000,
                "ties": "stable",
                "note": "through cwl_eval, which needs rel= (RBP(rel=1): relevance_threshold=1), to rank 1000",
            },
            "ranx": {
                **RANX,
                "graded": "raw",
                "note": "ranx spells RBP rbp.95 for p=0.95 (here rbp@95 is a cutoff, as everywhere) and takes the "
                "grades themselves as gains; " + RANX["note"],
            },
            "trec_eval": {
                "p": 0.9,
                "graded": True,
                "note": "not run here: pytrec_eval (trec_eval 9) has no rbp. trec_eval's rbp is another computation "
                "than this name: in evaluate_run it is 'rbp.p=0.9' (the name 'rbp' there is this metric, as "
                "everywhere in the library); the trec_eval command's -m rbp is trec_eval's",
            },
        },
    ),
    register(
        "nerr",
        normalized_err_score,
        _normalized_err,
        definition="ERR@k divided by the ERR@k of the ideal ranking of the query's labels.",
        reference="Chapelle et al., CIKM 2009; Sakai & Song, SIGIR 2011; NTCIREVAL's nERR@l, PT-Ranking's nERR@k",
        spellings={"ntcireval": ("nERR@k",)},
        conventions={
            "ntcireval": {
                "max_grade": 4,
                "ties": "stable",
                "note": "its stop probability g / (g_max + 1) is ours with gain values 2^l - 1, max_grade the top "
                "level of its gain vector (levels 1 to 4 here); it ranks a list given in order",
            }
        },
    ),
    register(
        "ncg",
        ncg_score,
        _ncg,
        definition="CG@k divided by the CG@k of the ideal ranking of the query's labels.",
        reference="TREC Deep Learning track overviews (NCG@k, Craswell et al. 2021); requested as ir_measures issue 19",
        spellings={},
    ),
    register(
        "Q",
        q_measure_score,
        _q_measure,
        definition="Mean over the relevant ranks r of (C(r) + beta cg(r)) / (r + beta cg*(r)), over R (or min(k, R)).",
        reference="Sakai, NTCIR-4 2004; NTCIREVAL's Q-measure",
        spellings={"ntcireval": ("Q-measure", "Q@k")},
        conventions={
            "ntcireval": {
                "ties": "stable",
                "note": "the labels are its gain values; Q@l is k=l; it ranks a list given in order",
            }
        },
        array_api=False,
    ),
    register(
        "compat",
        compatibility_score,
        _compatibility,
        definition="Rank-biased overlap of the ranking with its most compatible ideal ranking, over the ideal's own.",
        reference="Clarke, Vtyurina & Smucker, TOIS 39(3) 2021; ir_measures' Compat",
        spellings={"ir_measures": ("Compat",), "common": ("compatibility",)},
        conventions={
            "ir_measures": {
                "ties": "stable",
                "inputs": ("positive",),
                "note": "the same p and normalize; equal where every retrieved document scores above 0 and no two "
                "documents of one label tie, or the tied ones come in ascending docno order in both the rows and the "
                "qrels. ir_measures gives the documents not retrieved the score 0 in its ideal ranking (above "
                "retrieved ones of their label that score below 0), and breaks score ties by ascending docno in the "
                "ranking but by the qrels' order in the ideal ranking",
            }
        },
        array_api=False,
    ),
    register(
        "opa",
        ordered_pair_accuracy_score,
        _ordered_pair_accuracy,
        definition="Share of the query's pairs with different labels that the scores order rightly, ties counting 1/2.",
        reference="TF-Ranking's OPAMetric; CatBoost's PairAccuracy",
        spellings={"catboost": ("PairAccuracy",), "tf_ranking": ("OPAMetric", "ordered_pair_accuracy")},
        conventions={
            "catboost": {
                "ties": "pessimistic",
                "note": "per query (one group_id), its pairs those of different labels",
            },
            "tf_ranking": {
                "ties": "pessimistic",
                "note": "not run here: TensorFlow Ranking (and TensorFlow) is not installed; the tests check the "
                "example of its OPAMetric docstring",
            },
        },
        undefined="without a pair of different labels",
        array_api=False,
    ),
    register(
        "insq",
        insq_score,
        _insq,
        definition="C/W/L expected rate of gain with continuation ((i + 2T - 1) / (i + 2T))^2.",
        reference="Moffat, Scholer & Thomas, ADCS 2012; cwl_eval",
        spellings={"ir_measures": ("INSQ",)},
        peer_options={"ir_measures": IR_MEASURES_CWL_OPTIONS},
        conventions={"ir_measures": IR_MEASURES_CWL, "cwl_eval": CWL_EVAL},
        array_api=False,
    ),
    register(
        "inst",
        inst_score,
        _inst,
        definition="C/W/L expected rate of gain with continuation ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T "
        "less the gain found down to rank i.",
        reference="Moffat, Bailey, Scholer & Thomas, ADCS 2015; cwl_eval",
        spellings={"ir_measures": ("INST",)},
        peer_options={"ir_measures": IR_MEASURES_CWL_OPTIONS},
        conventions={"ir_measures": IR_MEASURES_CWL, "cwl_eval": CWL_EVAL},
        array_api=False,
    ),
    register(
        "interpolated_precision",
        interpolated_precision_score,
        None,
        definition="Largest precision at any rank whose recall reaches each recall level (11 levels by default).",
        reference="trec_eval's iprec_at_recall; Manning et al., Introduction to IR, 2008, ch. 8",
        spellings={"trec_eval": ("iprec_at_recall",), "ir_measures": ("IPrec",)},
        conventions={
            "trec_eval": {
                **TREC_EVAL,
                "interpolation": "trec_eval9",
                "note": "trec_eval 9 (pytrec_eval) takes the floor(x R + 0.9)-th relevant document; trec_eval 10 "
                "rounds x R (the default, which evaluate_run and the trec_eval command reproduce); "
                + TREC_EVAL["note"],
            },
            "ir_measures": {**IR_MEASURES, "interpolation": "trec_eval9", "note": "through pytrec_eval: trec_eval 9"},
        },
        family="curve",
    ),
    register(
        "alpha_ndcg",
        alpha_ndcg_score,
        None,
        definition="nDCG with gains discounted by (1 - alpha) for each subtopic already covered above.",
        reference="Clarke et al., SIGIR 2008; NIST ndeval's alpha-nDCG",
        spellings={"ir_measures": ("alpha_nDCG@k",), "ndeval": ("alpha-nDCG@k",)},
        conventions={
            "ndeval": {**NDEVAL, "inputs": ("tie_free", "binary")},
            "ir_measures": {**IR_MEASURES_NDEVAL, "inputs": ("tie_free", "binary")},
        },
        family="diversity",
    ),
    register(
        "err_ia",
        intent_aware_err_score,
        None,
        definition="Mean over the query's intents, weighted, of ERR with stop probability 1/2 per relevant document.",
        reference="Chapelle et al., Information Retrieval 2011 (ndeval's ERR-IA is another, alpha-decayed quantity)",
        spellings={},
        family="diversity",
    ),
    register(
        "s_recall",
        subtopic_recall_score,
        None,
        definition="Share of the query's subtopics covered by the top k.",
        reference="Zhai et al., SIGIR 2003; NIST ndeval's strec",
        spellings={"ir_measures": ("StRecall@k",), "ndeval": ("strec@k",)},
        conventions={
            "ndeval": {**NDEVAL, "inputs": ("tie_free", "binary")},
            "ir_measures": {**IR_MEASURES_NDEVAL, "inputs": ("tie_free", "binary")},
        },
        family="diversity",
    ),
    register(
        "p_ia",
        intent_aware_precision_score,
        None,
        definition="Mean over the query's intents of P@k, a document relevant to an intent when judged > 0 for it.",
        reference="Agrawal et al., WSDM 2009; NIST ndeval's P-IA@k",
        spellings={"ir_measures": ("P_IA@k",), "ndeval": ("P-IA@k",)},
        conventions={"ndeval": NDEVAL, "ir_measures": IR_MEASURES_NDEVAL},
        family="diversity",
    ),
    register(
        "ap_ia",
        intent_aware_average_precision_score,
        None,
        definition="Mean over the query's intents of AP, a document relevant to an intent when judged > 0 for it.",
        reference="NIST ndeval's MAP-IA",
        spellings={"ir_measures": ("AP_IA", "MAP_IA"), "ndeval": ("MAP-IA",)},
        conventions={"ndeval": NDEVAL, "ir_measures": IR_MEASURES_NDEVAL},
        family="diversity",
    ),
    register(
        "nerr_ia",
        normalized_intent_aware_err_score,
        None,
        definition="Intent-aware ERR with alpha-decayed gains, divided by that of ndeval's greedy ideal ranking.",
        reference="Chapelle et al., CIKM 2009; NIST ndeval's nERR-IA@k",
        spellings={"ir_measures": ("nERR_IA@k",), "ndeval": ("nERR-IA@k",)},
        conventions={"ndeval": NDEVAL, "ir_measures": IR_MEASURES_NDEVAL},
        family="diversity",
    ),
    register(
        "nrbp",
        novelty_rank_biased_precision_score,
        None,
        definition="(1 - (1 - alpha) beta) / N times the sum over ranks of beta^(r - 1) times the alpha-gain at r, "
        "N the query's intents.",
        reference="Clarke, Kolla & Vechtomova, ICTIR 2009; NIST ndeval's NRBP and nNRBP",
        spellings={"ir_measures": ("NRBP", "nNRBP"), "ndeval": ("NRBP", "nNRBP")},
        conventions={"ndeval": NDEVAL, "ir_measures": IR_MEASURES_NDEVAL},
        variants={"nnrbp": {"normalize": True}},
        variant_definitions={
            "nnrbp": "nNRBP: the sum over ranks of beta^(r - 1) times the alpha-gain at r, over the same sum of "
            "ndeval's greedy ideal ranking."
        },
        family="diversity",
    ),
    register(
        "catalog_coverage",
        catalog_coverage,
        None,
        definition="Share of the catalogue that the top k of all users (queries) show.",
        reference="Ge et al., RecSys 2010; RecBole's ItemCoverage",
        spellings={"recbole": ("ItemCoverage",)},
        conventions={"recbole": RECBOLE},
        family="recommender",
    ),
    register(
        "rbo",
        rank_biased_overlap,
        None,
        definition="Extrapolated rank-biased overlap of two systems' rankings of the same documents.",
        reference="Webber, Moffat & Zobel, TOIS 28(4) 2010, eq. 32; the rbo package's rbo_ext",
        spellings={"rbo": ("rbo_ext",)},
        conventions={"rbo": {"inputs": ("tie_free",), "note": "-inf leaves a document out of a list"}},
        family="comparison",
    ),
    register(
        "gini_index",
        gini_index,
        None,
        definition="Gini coefficient of the items' exposure counts in the users' top k over the catalogue.",
        reference="RecBole's GiniIndex; Elliot's Gini",
        spellings={"recbole": ("GiniIndex",), "elliot": ("Gini",)},
        conventions={"recbole": RECBOLE, "elliot": ELLIOT},
        family="recommender",
    ),
    register(
        "shannon_entropy",
        shannon_entropy,
        None,
        definition="Shannon entropy (nats) of the items' shares of all top-k places.",
        reference="Shannon 1948; Elliot's SEntropy (in bits); RecBole's ShannonEntropy divides it by the items shown",
        spellings={"recbole": ("ShannonEntropy",), "elliot": ("SEntropy",)},
        conventions={
            "recbole": {"note": RECBOLE["note"] + "; its get_entropy divides the entropy by the distinct items shown"},
            "elliot": {"note": ELLIOT["note"] + "; in bits: divide by ln 2"},
        },
        family="recommender",
    ),
    register(
        "novelty",
        novelty_score,
        None,
        definition="Mean over users of the mean -log2 p_i of the top k, p_i the item's share of training users.",
        reference="Zhou et al., PNAS 2010; Elliot's EFD without its rank discount",
        spellings={"common": ("self-information",)},
        family="recommender",
    ),
    register(
        "arp",
        average_popularity_score,
        None,
        definition="Mean over users of the mean popularity of the items in the top k.",
        reference="Abdollahpouri et al., FLAIRS 2019; RecBole's AveragePopularity; Elliot's ARP",
        spellings={"recbole": ("AveragePopularity",), "elliot": ("ARP",)},
        conventions={"recbole": RECBOLE, "elliot": ELLIOT},
        family="recommender",
    ),
    register(
        "aplt",
        long_tail_share_score,
        None,
        definition="Mean over users of the share of the top k from the long tail (outside the short head).",
        reference="Abdollahpouri et al., FLAIRS 2019; Elliot's APLT; RecBole's TailPercentage",
        spellings={"recbole": ("TailPercentage",), "elliot": ("APLT",)},
        conventions={"recbole": RECBOLE, "elliot": ELLIOT},
        family="recommender",
    ),
    register(
        "user_coverage",
        user_coverage,
        None,
        definition="Share of users whose top k shows at least min_items items.",
        reference="Elliot's UserCoverage and UserCoverageAtN",
        spellings={"elliot": ("UserCoverage", "UserCoverageAtN")},
        conventions={"elliot": ELLIOT},
        family="recommender",
    ),
    register(
        "ild",
        intra_list_diversity_score,
        None,
        definition="Mean over users of the mean pairwise distance between the items of the top k.",
        reference="Ziegler et al., WWW 2005; Vargas & Castells, RecSys 2011",
        spellings={"common": ("intra_list_diversity",)},
        family="recommender",
    ),
    register(
        "serendipity",
        serendipity_score,
        None,
        definition="Mean over users of the share of the top k that is relevant and not in a baseline's top k.",
        reference="Ge et al., RecSys 2010; Kaminskas & Bridge, TiiS 2016",
        spellings={"elliot": ("SRDP",)},
        conventions={"elliot": ELLIOT},
        family="recommender",
    ),
    register(
        "expected_exposure",
        expected_exposure_loss,
        None,
        definition="Squared distance between the items' (or groups') expected exposure and equal exposure "
        "per relevance grade.",
        reference="Diaz et al., Evaluating Stochastic Rankings with Expected Exposure, CIKM 2020",
        spellings={"common": ("EE-L", "ee_loss")},
        family="recommender",
    ),
)
