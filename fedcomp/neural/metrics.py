"""Test metrics (numpy / scipy; no torch needed).

* :func:`roc_auc` - area under the ROC curve by the Mann-Whitney statistic with mid-ranks for
  ties (scipy.stats.rankdata), the quantity the AUC paper's Table 1 reports.
* :func:`average_precision` - AP = sum_n (R_n - R_{n-1}) P_n over the distinct score thresholds
  (the step-wise AUPRC of FCSG Table 2, as scikit-learn defines it).
* :func:`accuracy`, :func:`tpr_gap` (equality-of-opportunity violation, FedDRO section 6).
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def roc_auc(labels, scores) -> float:
    """ROC AUC of scores for binary labels (1 positive); nan when a class is absent."""
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    r = rankdata(s)
    return float((r[y].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def average_precision(labels, scores) -> float:
    """Average precision (area under the step-wise precision-recall curve)."""
    y = np.asarray(labels).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    n_pos = int(y.sum())
    if n_pos == 0:
        return float("nan")
    order = np.argsort(-s, kind="mergesort")
    s, y = s[order], y[order]
    tp = np.cumsum(y)
    # keep the last index of each run of equal scores (one threshold per distinct score)
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]
    tp = tp[last]
    precision = tp / (last + 1.0)
    recall = tp / n_pos
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def accuracy(labels, predictions) -> float:
    return float(np.mean(np.asarray(labels) == np.asarray(predictions)))


def tpr_gap(labels, predictions, groups) -> float:
    """max_j |TPR_j - TPR| over the protected groups j (labels/predictions in {0, 1})."""
    y, p, g = (np.asarray(a) for a in (labels, predictions, groups))
    pos = y == 1
    tpr = p[pos].mean() if pos.any() else np.nan
    gaps = [abs(p[pos & (g == j)].mean() - tpr) for j in np.unique(g) if (pos & (g == j)).any()]
    return float(max(gaps)) if gaps else float("nan")
