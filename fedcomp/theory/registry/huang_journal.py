"""Claims of the journal version of ComFedL (Huang, Li) that differ from or add to the
conference version (:mod:`fedcomp.theory.registry.huang`)."""
from fedcomp.theory.claims import Claim, register

register(
    Claim(id="huang-journal.eq6", paper="huang-journal", location="Section 1.1, (6)",
          statement="(5) can be replaced by min_w (1/n) sum g(f^i(w)/gamma) with g(.) = "
                    "exp(./gamma).",
          kind="equivalence", predicted="argmin (6) = argmin (5)",
          check="fedcomp.theory.dro:check_comfedl_journal_eq6",
          notes="read literally this is exp(f^i/gamma^2), the KL-DRO with regularisation "
                "gamma^2; the conference version (g = exp) and the journal's own gradient "
                "(exp(f/gamma)/gamma) grad f mean exp(f^i/gamma)"),
    Claim(id="huang-journal.lem1", paper="huang-journal", location="Section 4.1, Lemma 1 (12)-(21)",
          statement="Lemma 1 with the corrected stationarity condition (15) "
                    "f^i - gamma log(n r_i) - gamma + lambda = 0: the min-max (12) equals "
                    "gamma log((1/n) sum exp(f^i/gamma)).",
          kind="equivalence", predicted={"value": "gamma*log((1/n) sum exp(f^i/gamma))"},
          check="fedcomp.theory.dro:check_comfedl_lemma1"),
    Claim(id="huang-journal.fig2-3", paper="huang-journal", location="Section 5.1, Figures 2-3",
          statement="Robust FL on imbalanced MNIST with grid-searched hyperparameters (lr 0.01 for "
                    "all, gamma = 0.2 for ComFedL, DRFL weight lr 0.08, q-FedAvg q = 0.2, tau = 5): "
                    "ComFedL outperforms DRFL, q-FedAvg and FedAvg in average and worst accuracy; "
                    "faster with larger tau and with gamma = 0.1/0.2 than 2/5.",
          kind="experiment", predicted="ComFedL best; faster with larger tau, smaller gamma",
          notes="the conference version used gamma = 0.5 for the comparison"),
    Claim(id="huang-journal.fig4-6", paper="huang-journal", location="Section 5.2, Figures 4-6",
          statement="Distribution-agnostic MAML on heterogeneous CIFAR10 (10 clients, rho = 0.28, "
                    "tau = 5; ComFedL-DAMAML inner lr 0.05, outer 0.1, gamma 0.5): ComFedL-DAMAML "
                    "outperforms FedAvg (lr 0.1), FedMAML (0.1/0.1), TR-MAML (0.05/0.1, weight lr "
                    "0.08) and Ditto (lr 0.2, lambda 0.1); FedAvg is worst; larger tau converges "
                    "faster; robust to gamma.",
          kind="experiment", predicted="ComFedL-DAMAML best, FedAvg worst"),
    Claim(id="huang-journal.sec5.3", paper="huang-journal", location="Section 5.3",
          statement="Hyperparameter grids: learning rate in {0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1} "
                    "(lr 1 makes most methods diverge); gamma in {0.1, 0.5, 1, 5}; DRFL/TR-MAML "
                    "weight lr in {8e-3, 8e-2, 8e-1}; q in {0.1, 0.2, 0.5, 1, 2}; Ditto lambda in "
                    "{0.05, 0.1, 0.5, 1, 5}.",
          kind="experiment", predicted={"diverges at lr": 1.0}),
)
