"""Claims of Wu et al., Federated Conditional Stochastic Optimization (FCSG paper).

The paper's eps-stationarity is (1/T) sum_t E||grad F(xbar_t)||^2 <= eps'^2; statements are
given in its own eps' with the conversion to fedcomp's E||grad||^2 <= eps (eps' = sqrt(eps)) in
``predicted``. N clients = K. The text extraction of this paper lost symbols (fractions, sums,
square roots); the readings used are stated in :mod:`fedcomp.theory.complexity`.
Rate checks are attached by the engineers who build FCSG; complexity and constant-consistency
checks are in :mod:`fedcomp.theory.complexity`.
"""
from fedcomp.theory.claims import Claim, register

_CX = "fedcomp.theory.complexity"

register(
    # ---------------------------------------------------------------- FCSG
    Claim(id="wu.thm4.1", paper="wu", location="Theorem 4.1",
          statement="FCSG with alpha <= 1/(6 q S_F): (1/T) sum_t E||grad F(xbar_t)||^2 <= "
                    "2[F(xbar_0) - F(xbar_T)]/(alpha T) + 2 L_g^2 S_f^2 sigma_g^2/m + "
                    "2 alpha S_F L_f^2 L_g^2/N + 42 (q-1) q alpha^2 L_f^2 L_g^2 S_F^2.",
          kind="rate", predicted={"bias term exponent in m": -1}),
    Claim(id="wu.cor4.2", paper="wu", location="Corollary 4.2",
          statement="FCSG with alpha = sqrt(N/T)/(6 S_F), q = (T/N^3)^(1/4): "
                    "(1/T) sum_t E||grad F||^2 <= O(1/sqrt(NT)) + O(1/m).",
          kind="rate", predicted={"E||grad||^2 exponent in T": -0.5,
                                  "E||grad||^2 exponent in N": -0.5,
                                  "bias exponent in m": -1}),
    Claim(id="wu.cor4.2.constants", paper="wu", location="Corollary 4.2 from Theorem 4.1",
          statement="The constants of Corollary 4.2 (12 S_F [F0 - F*], L_f^2 L_g^2/6, "
                    "19 L_f^2 L_g^2/9 over sqrt(NT)) follow from Theorem 4.1 with its parameters.",
          kind="constant",
          predicted={"first": "12 S_F", "2 alpha S_F L^2/N": "1/6", "q-term": "19/9"},
          check=f"{_CX}:check_wu_cor42_constants",
          notes="derived 1/3 for the 2 alpha S_F L^2/N term (printed 1/6)"),
    Claim(id="wu.rem4.3", paper="wu", location="Remark 4.3",
          statement="FCSG with B = b = O(1), m = O(eps'^-2): T = O(N^-1 eps'^-4) (linear "
                    "speed-up), communication T/q = (NT)^(3/4) = O(eps'^-3), sample complexity "
                    "m T = O(N^-1 eps'^-6).",
          kind="complexity",
          predicted={"paper eps'": {"T": "N^-1 eps'^-4", "rounds": "eps'^-3",
                                    "samples per client": "N^-1 eps'^-6"},
                     "E||grad||^2 <= eps": {"T": "K^-1 eps^-2", "rounds": "eps^-1.5",
                                            "samples per client": "K^-1 eps^-3"}},
          check=f"{_CX}:check_fcsg",
          notes="q >= 1 needs N <= eps'^-1 (= eps^-1/2), not stated"),
    # ---------------------------------------------------------------- FCSG-M
    Claim(id="wu.thm4.4", paper="wu", location="Theorem 4.4",
          statement="FCSG-M with alpha <= 1/(6 q S_F) and beta = 5 S_F eta: (1/T) sum_t "
                    "E||grad F||^2 <= 2[F(xbar_0) - F(xbar_T)]/(alpha T) + (96 S_F^2/5) q^2 "
                    "alpha^2 [L_f^2 L_g^2 (1 + 1/N) + 3 L_f^2 L_g^2] + 4 L_g^2 S_f^2 sigma_g^2/m "
                    "+ 8 L_f^2 L_g^2/(beta B T) + 8 beta L_f^2 L_g^2/N.",
          kind="rate", predicted={"bias term exponent in m": -1}),
    Claim(id="wu.thm4.4.beta", paper="wu", location="Theorem 4.4 (momentum parameter)",
          statement="Theorem 4.4 sets beta = 5 S_F eta.",
          kind="constant", predicted="eta is the step size",
          check=f"{_CX}:check_wu_thm44_beta",
          notes="the FCSG paper calls its step size alpha; eta is undefined (read beta = 5 S_F "
                "alpha, as in the derivation)"),
    Claim(id="wu.cor4.5", paper="wu", location="Corollary 4.5",
          statement="FCSG-M with alpha = sqrt(N/T)/(6 S_F), q = (T/N^3)^(1/4): "
                    "(1/T) sum_t E||grad F||^2 <= O(1/sqrt(NT)) + O(1/m) (constants 12 S_F, "
                    "112/3, 4 L_g^2 S_f^2 sigma_g^2, 48/5, 20/3).",
          kind="rate", predicted={"E||grad||^2 exponent in T": -0.5,
                                  "E||grad||^2 exponent in N": -0.5}),
    Claim(id="wu.cor4.5.constants", paper="wu", location="Corollary 4.5 from Theorem 4.4",
          statement="The constants of Corollary 4.5 (12 S_F, 112/3, 48/5, 20/3 over sqrt(NT)) "
                    "follow from Theorem 4.4 with alpha = sqrt(N/T)/(6 S_F), q = (T/N^3)^(1/4), "
                    "beta = 5 S_F alpha.",
          kind="constant", predicted={"first": "12 S_F", "q-term": "112/3",
                                      "1/(beta B T)": "48/5", "beta/N": "20/3"},
          check=f"{_CX}:check_wu_cor45_constants"),
    Claim(id="wu.rem4.6", paper="wu", location="Remark 4.6",
          statement="FCSG-M with b = B = O(1), m = O(eps'^-2): T = O(N^-1 eps'^-4), "
                    "communication (NT)^(3/4) = O(eps'^-3), samples m T = O(N^-1 eps'^-6).",
          kind="complexity",
          predicted={"E||grad||^2 <= eps": {"rounds": "eps^-1.5",
                                            "samples per client": "K^-1 eps^-3"}},
          check=f"{_CX}:check_fcsg_m"),
    # ---------------------------------------------------------------- Acc-FCSG-M
    Claim(id="wu.thm4.7", paper="wu", location="Theorem 4.7",
          statement="Acc-FCSG-M with alpha <= 1/(6 q S_F) and beta = 5 S_F alpha: (1/T) sum_t "
                    "E||grad F||^2 <= 2[F(xbar_0) - F(xbar_T)]/(T alpha) + 3 L_f^2 L_g^2/(beta B N T) "
                    "+ 13 L_f^2 L_g^2 c^2 alpha^2/(6 S_F^2) + 3 L_g^2 S_f^2 sigma_g^2/m "
                    "+ 6 beta L_f^2 L_g^2/(N b).",
          kind="rate", predicted={"bias term exponent in m": -1}),
    Claim(id="wu.thm4.7.beta", paper="wu", location="Theorem 4.7 versus Corollary 4.8",
          statement="Theorem 4.7's momentum beta = 5 S_F alpha is the one Corollary 4.8 uses.",
          kind="constant", predicted="beta = 5 S_F alpha",
          check=f"{_CX}:check_wu_thm47_beta",
          notes="Corollary 4.8 uses beta = c alpha^2, c = 30 S_F^2/(b N), and the theorem's bound "
                "contains c; with beta = 5 S_F alpha the bound is only O((NT)^-1/3)"),
    Claim(id="wu.cor4.8", paper="wu", location="Corollary 4.8",
          statement="Acc-FCSG-M with q = (T/N^2)^(1/3), alpha = N^(2/3)/(12 S_F T^(1/3)), "
                    "beta = c alpha^2, B = T^(1/3)/N^(2/3): (1/T) sum_t E||grad F||^2 <= "
                    "O((NT)^(-2/3)) + O(1/m).",
          kind="rate", predicted={"E||grad||^2 exponent in T": -2 / 3,
                                  "E||grad||^2 exponent in N": -2 / 3}),
    Claim(id="wu.cor4.8.constants", paper="wu", location="Corollary 4.8 from Theorem 4.7",
          statement="The constants of Corollary 4.8 (24 S_F, 72 b/5, 325/(24 b^2), 5/(4 b^2) over "
                    "(NT)^(2/3)) follow from Theorem 4.7 with the corollary's parameters.",
          kind="constant",
          predicted={"first": "24 S_F", "3/(beta B N T)": "72 b/5",
                     "c^2 alpha^2 term": "325/(24 b^2)", "6 beta/(N b)": "5/(4 b^2)"},
          check=f"{_CX}:check_wu_cor48_constants"),
    Claim(id="wu.rem4.9", paper="wu", location="Remark 4.9",
          statement="Acc-FCSG-M with b = O(1), m = O(eps'^-2): T = O(N^-1 eps'^-3), "
                    "communication T/q = (NT)^(2/3) = O(eps'^-2), samples O(N^-1 eps'^-5).",
          kind="complexity",
          predicted={"E||grad||^2 <= eps": {"T": "K^-1 eps^-1.5", "rounds": "eps^-1",
                                            "samples per client": "K^-1 eps^-2.5"}},
          check=f"{_CX}:check_acc_fcsg_m"),
    # ---------------------------------------------------------------- tables and experiments
    Claim(id="wu.table1", paper="wu", location="Table 1",
          statement="Sample / communication complexity: FCSG O(eps'^-6)/O(eps'^-3), FCSG-M "
                    "O(eps'^-6)/O(eps'^-3), single-machine lower bound O(eps'^-5), Acc-FCSG-M "
                    "O(eps'^-5)/O(eps'^-2).",
          kind="complexity",
          predicted={"E||grad||^2 <= eps": {"FCSG": ["eps^-3", "eps^-1.5"],
                                            "FCSG-M": ["eps^-3", "eps^-1.5"],
                                            "Acc-FCSG-M": ["eps^-2.5", "eps^-1"]}},
          check=f"{_CX}:check_wu_table1",
          notes="Table 1's sample complexity is the total over clients (Remarks give N^-1 per "
                "client)"),
    Claim(id="wu.limitation", paper="wu", location="Section 6, Limitation",
          statement="FCSG-M and Acc-FCSG-M require higher communication overhead (than FCSG).",
          kind="complexity", predicted={"floats per round": {"FCSG": "d", "FCSG-M": "2d",
                                                             "Acc-FCSG-M": "2d"}},
          check=f"{_CX}:check_wu_overhead",
          notes="per round; in total over the run Acc-FCSG-M communicates less than FCSG "
                "(2d eps^-1 vs d eps^-1.5 floats per client)"),
    Claim(id="wu.lowerbound", paper="wu", location="Section 4.3 and Table 1",
          statement="The single-machine lower bound of the sample complexity of nonconvex "
                    "conditional stochastic optimization is O(eps'^-5) (cited from Hu et al. "
                    "2020), so Acc-FCSG-M is optimal.",
          kind="complexity", predicted={"E||grad||^2 <= eps": "eps^-2.5"},
          notes="a cited result: not derivable from the five papers"),
    Claim(id="wu.sec5.1", paper="wu", location="Section 5.1, Figure 1",
          statement="Invariant logistic regression (d = 10, 16 clients, sigma_1 = 1, "
                    "sigma_2/sigma_1 in {1, 1.5, 2}, m in {1, 10, 100}, 50 local steps, lambda = "
                    "0.001, alpha = 10): larger noise ratios need larger inner batches m; with "
                    "m = 100 FCSG and FCSG-M perform alike; with small m FCSG-M is more stable.",
          kind="experiment", predicted="test accuracy improves with m; FCSG-M more stable"),
    Claim(id="wu.sec5.2", paper="wu", location="Section 5.2, Figures 2-3",
          statement="Federated MAML on Omniglot (16 clients, 5-way 1-shot and 5-shot): FCSG, "
                    "FCSG-M and Acc-FCSG-M outperform Local-SCGD and Local-SCGDM by a large "
                    "margin; 5-shot trains better than 1-shot.",
          kind="experiment", predicted="FCSG family above Local-SCGD(M)"),
    Claim(id="wu.table2", paper="wu", location="Section 5.3, Table 2",
          statement="Final averaged AP on test data (federated online AUPRC): MNIST FedAvg "
                    "0.9357, CODA+ 0.9733, FCSG 0.9868, FCSG-M 0.9878, Acc-FCSG-M 0.9879; "
                    "CIFAR-10 FedAvg 0.5059, CODA+ 0.6039, FCSG 0.7130, FCSG-M 0.7157, "
                    "Acc-FCSG-M 0.7184.",
          kind="experiment",
          predicted={"MNIST": {"FedAvg": 0.9357, "CODA+": 0.9733, "FCSG": 0.9868,
                               "FCSG-M": 0.9878, "Acc-FCSG-M": 0.9879},
                     "CIFAR-10": {"FedAvg": 0.5059, "CODA+": 0.6039, "FCSG": 0.7130,
                                  "FCSG-M": 0.7157, "Acc-FCSG-M": 0.7184}}),
)
