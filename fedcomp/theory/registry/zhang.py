"""Claims of Zhang et al., Federated Compositional Deep AUC Maximization (AUC paper).

The paper's eps-accuracy is (1/T) sum_t E||grad Phi(xbar_t)||^2 <= eps'^2 (Remark 1); fedcomp's
convention is E||grad||^2 <= eps, so eps' = sqrt(eps). The rate and experiment checks are
attached by the AUC engineers (:mod:`fedcomp.theory.registry.checks_auc`), the constant of
Lemma 2 by the constants area; the reformulation (1) is checked in :mod:`fedcomp.theory.dro` and
the complexity statements in :mod:`fedcomp.theory.complexity`.
"""
from fedcomp.theory.claims import Claim, register

register(
    Claim(id="zhang.eq1", paper="zhang", location="Section 3.1, (1)",
          statement="Ying et al.'s min-max AUC loss (1): min over w, w1, w2, max over w3 of "
                    "E L_AUC is the square-loss AUC surrogate (the saddle point is w1 = E[h|+], "
                    "w2 = E[h|-], w3 = E[h|-] - E[h|+]; value p(1-p)(E(1 - h+ + h-)^2 - 1)); "
                    "it decouples pairwise samples.",
          kind="equivalence",
          predicted={"saddle": "a = E[h|+], b = E[h|-], alpha = b - a",
                     "value": "p(1-p)(E(1-h+ +h-)^2 - 1)"},
          check="fedcomp.theory.dro:check_auc_eq1",
          notes="holds when p equals the positive fraction of the data; L_AUC is "
                "2p(1-p)-strongly concave in w3 (Assumption 4 with mu = 2p(1-p))"),
    Claim(id="zhang.eq4", paper="zhang", location="Section 3.1-3.2, (2)-(4)",
          statement="The compositional deep AUC model (2) (AUC loss of w~ = w - rho grad_w "
                    "L_CE(w; a, b)) is the compositional minimax problem (3) with g(x) = x - rho "
                    "Delta(x), f = L_AUC, and (4) with g^(k) = E_xi g^(k)(.; xi), f^(k) = "
                    "E_zeta f^(k)(., .; zeta) is its federated form.",
          kind="equivalence", predicted="(2) = (3) = (4) for K = 1",
          check="fedcomp.theory.dro:check_auc_composition",
          notes="(2) writes the CE step on the same sample (a, b) as the AUC loss; (4) samples "
                "inner and outer independently, i.e. uses the expected CE gradient (Yuan et al.'s "
                "model). The two objectives differ for rho > 0."),
    Claim(id="zhang.lem2", paper="zhang", location="Section 5 and Lemma 2 (Appendix A)",
          statement="Under Assumptions 1-4, Phi(x) = max_y (1/K) sum_k f^(k)(gbar(x), y) is "
                    "L_Phi-smooth with L_Phi = 2 C_g^2 L_f^2/mu + C_f L_g.",
          kind="constant", predicted={"L_Phi": "2*C_g**2*L_f**2/mu + C_f*L_g"},
          notes="the text says Phi^(k) is L_Phi-smooth; Phi (15) is meant"),
    Claim(id="zhang.thm1", paper="zhang", location="Theorem 1 and Remark 1",
          statement="LocalSCGDAM (Algorithm 1) with eta = O(sqrt(K/T)) and communication period "
                    "p = O(T^(1/4)/K^(3/4)): (1/T) sum_t E||grad Phi(xbar_t)||^2 = O(1/sqrt(KT)) "
                    "(linear speed-up in K) with T/p = O((KT)^(3/4)) communication rounds.",
          kind="rate", predicted="(KT)^(-1/2); rounds (KT)^(3/4)",
          notes="bound (16): terms 1/(eta T), eta/K, and p^(2j) eta^(2j) for j = 1..5"),
    Claim(id="zhang.rem1", paper="zhang", location="Remark 1 (complexities)",
          statement="For (1/T) sum_t E||grad Phi||^2 <= eps'^2 set eta = O(K eps'^2) and "
                    "p = O(1/(K eps')): sample complexity O(1/(K eps'^4)) per device, "
                    "communication O(eps'^-3).",
          kind="complexity",
          predicted={"paper eps'": {"samples per device": "K^-1 eps'^-4", "rounds": "eps'^-3"},
                     "E||grad||^2 <= eps": {"samples per device": "K^-1 eps^-2",
                                            "rounds": "eps^-1.5"}},
          check="fedcomp.theory.complexity:check_localscgdam",
          notes="p >= 1 needs K <= 1/eps' (= eps^-1/2), not stated"),
    Claim(id="zhang.sec1", paper="zhang", location="Section 1 (introduction) and abstract claims",
          statement="The communication period can be as large as O(T^(1/4)/K^(3/4)) so that the "
                    "algorithm achieves O(1/sqrt(KT)) and O(T^(3/4)/K^(3/4)) communication "
                    "complexity.",
          kind="complexity", predicted={"rounds": "T^(3/4)/K^(3/4)"},
          check="fedcomp.theory.complexity:check_zhang_intro",
          notes="T/p = K^(3/4) T^(3/4) (Remark 1 states this correctly)"),
    Claim(id="zhang.table1", paper="zhang", location="Table 1 (section 6.2)",
          statement="LocalSCGDAM reaches a higher test AUC than CoDA, LocalSGDAM, LocalSGDM and "
                    "LocalSGDM_RL on CATvsDOG, CIFAR10, CIFAR100, STL10, FashionMNIST and Melanoma "
                    "for communication periods p = 4, 8, 16 (4 devices, ResNet20/DenseNet121).",
          kind="experiment",
          predicted={"LocalSCGDAM": {"CATvsDOG": [0.933, 0.936, 0.928],
                                     "CIFAR10": [0.914, 0.914, 0.916],
                                     "CIFAR100": [0.702, 0.704, 0.703],
                                     "STL10": [0.820, 0.817, 0.801],
                                     "FashionMNIST": [0.980, 0.980, 0.980],
                                     "Melanoma": [0.876, 0.880, 0.870]},
                     "claim": "LocalSCGDAM best in every cell"},
          notes="the table itself has a tie at FashionMNIST p = 4 (LocalSGDM_RL 0.980 = "
                "LocalSCGDAM 0.980), so 'outperforms all competing methods for all cases' is not "
                "strict there; every other cell has LocalSCGDAM strictly best"),
    Claim(id="zhang.fig4", paper="zhang", location="Section 6.2, Figure 4",
          statement="On CATvsDOG with imbalance ratios 0.01, 0.05, 0.2 LocalSCGDAM outperforms the "
                    "competing methods; at ratio 0.01 all AUC-based methods beat the cross-entropy "
                    "baseline significantly.",
          kind="experiment", predicted="LocalSCGDAM best for every ratio"),
    Claim(id="zhang.fig5", paper="zhang", location="Section 6.2, Figure 5",
          statement="On STL10 with imbalanced local and global distributions LocalSCGDAM "
                    "outperforms SCAFFOLD and FedProx by a large margin.",
          kind="experiment", predicted="LocalSCGDAM above SCAFFOLD and FedProx"),
)
