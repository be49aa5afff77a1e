"""Claims of Khanduri et al. (FedDRO paper).

Notation and convention are the paper's own (K clients, E||grad Phi||^2 <= eps). Checks of the
rate claims (Theorems 4.2, 4.3, 5.2) and the measured complexity claims (Corollaries 4.4, 5.3,
Remark 4.5) are attached by :mod:`fedcomp.theory.registry.checks_rates`; the ``.derivation``
companions check that the stated complexities follow from the theorems' parameter choices
(:mod:`fedcomp.theory.complexity`); the DRO reformulations are checked in
:mod:`fedcomp.theory.dro`.
"""
from fedcomp.theory.claims import Claim, register

_DRO = "fedcomp.theory.dro"
_CX = "fedcomp.theory.complexity"

register(
    Claim(id="khanduri.thm4.1", paper="khanduri", location="Theorem 4.1",
          statement="Vanilla FedAvg (Algorithm 1, Case I and Case II) does not converge to a "
                    "stationary point of Phi for fixed I > 1 and every small constant eta: the "
                    "limit of ||grad Phi(xbar_t)|| stays bounded away from 0 as eta -> 0.",
          kind="counterexample", predicted="limit gap > 0 for every I > 1 as eta -> 0",
          check="fedcomp.counterexamples.thm41:check"),
)

register(
    # ---------------------------------------------------------------- section 2.1: DRO
    Claim(id="khanduri.eq4", paper="khanduri", location="Section 2.1, (3)-(4)",
          statement="The KL-regularised DRO min_x max_{p in P_m} sum p_i l_i(x) - lambda "
                    "sum p_i log(m p_i) is equivalent to min_x log((1/m) sum exp(l_i(x)/lambda)), "
                    "a CO problem with g = (1/m) sum exp(l_i/lambda), f = log, h = 0.",
          kind="equivalence",
          predicted={"inner max value": "lambda*log((1/m) sum exp(l_i/lambda))",
                     "maximiser": "softmax(l/lambda)"},
          check=f"{_DRO}:check_kl_eq4",
          notes="(4) is printed without the factor lambda: the min-max value divided by lambda "
                "(same minimisers and stationary points for fixed lambda). In the FL form (2), "
                "g = (1/K) sum_k g_k equals the sample mean only with equal client sizes. "
                "g = mean exp(l/lambda) overflows float64 once l/lambda > ~709."),
    Claim(id="khanduri.eq5", paper="khanduri", location="Section 2.1, (3) and (5)",
          statement="The chi-square-regularised DRO (3) with D = (m/2) sum (p_i - 1/m)^2 is "
                    "equivalent to min_x -(1/(2 lambda m)) sum l_i^2 + (1/(2 lambda)) "
                    "((1/m) sum l_i)^2, with g = mean l, f(g) = g^2/(2 lambda), "
                    "h = -(1/(2 lambda m)) sum l_i^2.",
          kind="equivalence",
          predicted={"inner max value": "-(1/(2 lambda m)) sum l^2 + (mean l)^2/(2 lambda)"},
          check=f"{_DRO}:check_chi2_eq5",
          notes="fedcomp finding: printed (5) = -Var(l)/(2 lambda); the min-max value is "
                "mean(l) + Var(l)/(2 lambda) while min l >= mean l - lambda (the maximiser "
                "p_i = 1/m + (l_i - mean l)/(lambda m) is in the simplex), otherwise the "
                "water-filling projection value."),
    Claim(id="khanduri.sec2.fl", paper="khanduri", location="Section 2.1, after (5)",
          statement="Both (4) and (5) can be restated in the FL setting of (2) "
                    "(g = (1/K) sum_k g_k with g_k the mean over client k's samples).",
          kind="equivalence",
          predicted="FL form = DRO (3) with the uniform reference 1/m",
          check=f"{_DRO}:check_fl_restatement",
          notes="exact for equal client sizes; otherwise the FL form is the DRO with reference "
                "weights 1/(K m_k) (or g_k must be weighted by K m_k/m)"),
    # ---------------------------------------------------------------- section 3
    Claim(id="khanduri.lem3.5", paper="khanduri", location="Lemma 3.5",
          statement="Under Assumption 3.2, Phi = h + f(g) is L_Phi-smooth with "
                    "L_Phi = L_h + B_f L_g + B_g^2 L_f.",
          kind="constant", predicted={"L_Phi": "L_h + B_f*L_g + B_g**2*L_f"}),
    # ---------------------------------------------------------------- section 4
    # ---------------------------------------------------------------- section 5
    # ---------------------------------------------------------------- Table 1 and related work
    Claim(id="khanduri.table1", paper="khanduri", location="Table 1",
          statement="Batch, per-client sample (COMP.) and communication complexities of "
                    "ComFedL, Local-SCGDM, FCSG, Acc-FCSG-M, FedNest, FedBiOAcc, FedMBO, SimFBO, "
                    "Fed-DR-SCGD, GCIVR, FedDRO and DS-FedDRO in the convention "
                    "E||grad||^2 <= eps.",
          kind="complexity", predicted="the table as printed (see khanduri.table1.<algorithm>)",
          check=f"{_CX}:check_table1",
          notes="rows whose source paper is among the five are derived from it"),
    Claim(id="khanduri.table1.comfedl", paper="khanduri", location="Table 1, row ComFedL",
          statement="ComFedL (Huang et al. 2021): CO-ND, SGD, batch O(eps^-2), "
                    "comp. O(eps^-4), comm. O(eps^-2).",
          kind="complexity", predicted={"batch": "eps^-2", "comp": "eps^-4", "comm": "eps^-2"},
          check=f"{_CX}:check_table1_comfedl"),
    Claim(id="khanduri.table1.local-scgdm", paper="khanduri", location="Table 1, row Local-SCGDM",
          statement="Local-SCGDM (Gao et al. 2022): CO-ND, momentum SGD, batch O(1), "
                    "comp. O(eps^-2), comm. O(eps^-1.5).",
          kind="complexity", predicted={"batch": "1", "comp": "eps^-2", "comm": "eps^-1.5"},
          notes="source paper not among the five; consistent with the AUC paper's remark that "
                "Gao et al. lack linear speed-up (no K^-1)"),
    Claim(id="khanduri.table1.fcsg", paper="khanduri", location="Table 1, row FCSG",
          statement="FCSG (Wu et al. 2024): CO-ND, SGD, batch O(eps^-1), comp. O(K^-1 eps^-3), "
                    "comm. O(eps^-1.5).",
          kind="complexity", predicted={"batch": "eps^-1", "comp": "K^-1 eps^-3",
                                        "comm": "eps^-1.5"},
          check=f"{_CX}:check_table1_fcsg"),
    Claim(id="khanduri.table1.acc-fcsg-m", paper="khanduri", location="Table 1, row Acc-FCSG-M",
          statement="Acc-FCSG-M (Wu et al. 2024): CO-ND, VR, batch O(eps^-1), "
                    "comp. O(K^-1 eps^-2.5), comm. O(eps^-1).",
          kind="complexity", predicted={"batch": "eps^-1", "comp": "K^-1 eps^-2.5",
                                        "comm": "eps^-1"},
          check=f"{_CX}:check_table1_acc_fcsg_m"),
    Claim(id="khanduri.table1.fednest", paper="khanduri", location="Table 1, row FedNest",
          statement="FedNest (Tarzanagh et al. 2022): bilevel, VR, batch O(1), comp. O(eps^-2), "
                    "comm. O(eps^-2).",
          kind="complexity", predicted={"batch": "1", "comp": "eps^-2", "comm": "eps^-2"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.fedbioacc", paper="khanduri", location="Table 1, row FedBiOAcc",
          statement="FedBiOAcc (Li et al. 2024): bilevel, VR, batch O(1), comp. "
                    "O(K^-1 eps^-1.5), comm. O(eps^-1).",
          kind="complexity", predicted={"batch": "1", "comp": "K^-1 eps^-1.5", "comm": "eps^-1"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.fedmbo", paper="khanduri", location="Table 1, row FedMBO",
          statement="FedMBO (Huang et al. 2023): bilevel, SGD, batch O(ln(1/eps)), comp. "
                    "O(K^-1 eps^-2), comm. O(eps^-2).",
          kind="complexity", predicted={"batch": "ln(1/eps)", "comp": "K^-1 eps^-2",
                                        "comm": "eps^-2"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.simfbo", paper="khanduri", location="Table 1, row SimFBO",
          statement="SimFBO (Yang et al. 2024): bilevel, SGD, batch O(1), comp. O(K^-1 eps^-2), "
                    "comm. O(eps^-1).",
          kind="complexity", predicted={"batch": "1", "comp": "K^-1 eps^-2", "comm": "eps^-1"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.fed-dr-scgd", paper="khanduri", location="Table 1, row Fed-DR-SCGD",
          statement="Fed-DR-SCGD (Gao 2024): multi-level CO, VR, batch O(1), comp. "
                    "O(K^-1 eps^-1.5), comm. O(eps^-1).",
          kind="complexity", predicted={"batch": "1", "comp": "K^-1 eps^-1.5", "comm": "eps^-1"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.gcivr", paper="khanduri", location="Table 1, row GCIVR",
          statement="GCIVR (Haddadpour et al. 2022): CO + non-CO, VR, batches sqrt(m) (inner) and "
                    "m (outer), comp. O(sqrt(m) eps^-1 ^ eps^-1.5), comm. O(eps^-1) (finite sum "
                    "of m samples).",
          kind="complexity", predicted={"comp": "min(sqrt(m) eps^-1, eps^-1.5)", "comm": "eps^-1"},
          notes="source paper not among the five: not derivable here"),
    Claim(id="khanduri.table1.feddro", paper="khanduri", location="Table 1, row FedDRO",
          statement="FedDRO: CO + non-CO, SGD, batch O(1), comp. O(K^-1 eps^-2), comm. "
                    "O(eps^-1.5).",
          kind="complexity", predicted={"batch": "1", "comp": "K^-1 eps^-2", "comm": "eps^-1.5"},
          check=f"{_CX}:check_table1_feddro"),
    Claim(id="khanduri.table1.ds-feddro", paper="khanduri", location="Table 1, row DS-FedDRO",
          statement="DS-FedDRO: CO + non-CO, SGD, batch O(1), comp. O(K^-1 eps^-2), comm. "
                    "O(eps^-1).",
          kind="complexity", predicted={"batch": "1", "comp": "K^-1 eps^-2", "comm": "eps^-1"},
          check=f"{_CX}:check_table1_ds_feddro"),
    Claim(id="khanduri.sec2.related", paper="khanduri", location="Section 2.1, related work",
          statement="Huang et al. (2021), Haddadpour et al. (2022), Tarzanagh et al. (2022), "
                    "Gao et al. (2022) and Wu et al. (2024) do not guarantee linear speed-up with "
                    "the number of clients.",
          kind="complexity", predicted={"Wu et al. (2024) per-client samples has K^-1": False},
          check=f"{_CX}:check_feddro_related_work",
          notes="contradicted for Wu et al. by the paper's own Table 1 (O(K^-1 eps^-3))"),
    # ---------------------------------------------------------------- section 6: experiments
    Claim(id="khanduri.fig1", paper="khanduri", location="Section 6, Figure 1",
          statement="On CIFAR10-ST and CIFAR100-ST (ResNet20, K = 8 clients, batch 16 per client, "
                    "I = 1, learning rate tuned in {0.001, 0.01, 0.05, 0.1} and dropped 10x after "
                    "90 rounds, DS-FedDRO server rates 1.3/1.4, 3 seeds) FedDRO and DS-FedDRO "
                    "reach higher training accuracy and comparable or better test accuracy than "
                    "FastDRO, PDSGD, FedAvg (Case II) and MBSGD; DS-FedDRO slightly outperforms "
                    "FedDRO; FedAvg is significantly worse.",
          kind="experiment", predicted="FedDRO, DS-FedDRO above the baselines; FedAvg lowest"),
    Claim(id="khanduri.fig2", paper="khanduri", location="Section 6, Figure 2",
          statement="On Adult with equality-of-opportunity constraints (logistic regression) "
                    "FedDRO and DS-FedDRO reach higher test accuracy than GCIVR and the "
                    "unconstrained parallel SGD with comparable constraint violation.",
          kind="experiment", predicted="higher accuracy at comparable constraint violation"),
    Claim(id="khanduri.fig3", paper="khanduri", location="Section 6, Figures 3-4",
          statement="Increasing I first improves FedDRO and DS-FedDRO (CIFAR10-ST/CIFAR100-ST, "
                    "Adult) and then saturates because of client drift.",
          kind="experiment", predicted="performance vs I rises then saturates"),
)
