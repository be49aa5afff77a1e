"""Test AUC of the experiment's evaluation against a brute-force pairwise count (all 25e6
positive-negative pairs of the Fashion-MNIST test set), on logits and on sigmoid scores."""
import numpy as np
import torch
torch.set_num_threads(1)
from fedcomp.neural import experiments as E, algorithms as A, data as D
from fedcomp.neural.metrics import roc_auc
torch.manual_seed(0)
arms = E.get("localscgdam-fashionmnist").build(False, "cpu", 0, None, 40)
arm = [a for a in arms if a.label == "localsgdm/p=4"][0]
res = A.run(arm.problem, arm.algorithm, 40, arm.eta, arm.local_steps, x0=arm.x0, seed=0, **arm.hyper)
(_, _), (xte, yte) = D.load_fashion_mnist()
y = D.binary_labels(yte, 10)
logit = E._scores(arm.problem.model, res.x_bar, E._tensor(xte, "cpu"))[:, 0].astype(np.float64)
sig = 1 / (1 + np.exp(-logit))
def brute(s):
    pos, neg = s[y == 1], s[y == 0]
    tot = 0.0
    for i in range(0, len(pos), 500):
        d = pos[i:i + 500, None] - neg[None, :]
        tot += (d > 0).sum() + 0.5 * (d == 0).sum()
    return tot / (len(pos) * len(neg))
print("evaluate():", arm.evaluate(res.x_bar, None))
print("roc_auc logit", roc_auc(y, logit), "brute logit", brute(logit))
print("roc_auc sigmoid", roc_auc(y, sig), "brute sigmoid", brute(sig))
print("n_pos", y.sum(), "n_neg", (1 - y).sum())
