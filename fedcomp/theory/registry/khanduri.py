"""Claims of Khanduri et al. (FedDRO paper).

The rate group only: Theorem 4.1, section 2.1, Lemma 3.5, Table 1 and the experiments are declared
with their checks in :mod:`fedcomp.checks.khanduri`.

Notation and convention are the paper's own (K clients, E||grad Phi||^2 <= eps). Checks of the
rate claims (Theorems 4.2, 4.3, 5.2) and the measured complexity claims (Corollaries 4.4, 5.3,
Remark 4.5) are attached by :mod:`fedcomp.theory.registry.checks_rates`; the ``.derivation``
companions check that the stated complexities follow from the theorems' parameter choices
(:mod:`fedcomp.theory.complexity`).
"""
from fedcomp.theory.claims import Claim, register

_CX = "fedcomp.theory.complexity"

register(
    # ---------------------------------------------------------------- section 4
    Claim(id="khanduri.thm4.2", paper="khanduri", location="Theorem 4.2",
          statement="Modified FedAvg (y_k^t = ybar^t shared every iteration) converges to a "
                    "stationary point of Phi (h = 0) for 1 <= I <= O(T^(1/4)) and a suitable "
                    "eta.",
          kind="rate", predicted={"E||grad||^2 -> 0": True, "I max exponent in T": 0.25}),
    Claim(id="khanduri.thm4.3", paper="khanduri", location="Theorem 4.3",
          statement="FedDRO (Algorithm 2) with eta = O(sqrt(K/T)), beta = 4 B_g^4 L_f^2 eta, "
                    "I = O(T^(1/4)/K^(3/4)) and T >= T_th: E||grad Phi(xbar^{a(T)})||^2 <= "
                    "O(C_Sync/sqrt(KT)) + O(C_Drift/sqrt(KT)).",
          kind="rate", predicted={"E||grad||^2 exponent in T": -0.5,
                                  "E||grad||^2 exponent in K": -0.5}),
    Claim(id="khanduri.cor4.4", paper="khanduri", location="Corollary 4.4",
          statement="FedDRO: sample complexity O(eps^-2), i.e. O(K^-1 eps^-2) per client (linear "
                    "speed-up); communication complexity O(eps^-3/2).",
          kind="complexity",
          predicted={"samples per client": "K^-1 eps^-2", "samples total": "eps^-2",
                     "rounds": "eps^-3/2",
                     "exponents": {"samples per client": {"eps": -2, "K": -1},
                                   "rounds": {"eps": -1.5, "K": 0}}},
          notes="measured check attached by checks_rates; khanduri.cor4.4.derivation checks that "
                "it follows from Theorem 4.3's parameters"),
    Claim(id="khanduri.cor4.4.derivation", paper="khanduri",
          location="Corollary 4.4 from Theorem 4.3",
          statement="Substituting eta = sqrt(K/T), I = T^(1/4)/K^(3/4) and the rate 1/sqrt(KT): "
                    "T = K^-1 eps^-2 iterations per client, rounds T/I = (KT)^(3/4) = eps^-3/2.",
          kind="complexity",
          predicted={"T": "K^-1 eps^-2", "rounds": "eps^-3/2", "batch": "O(1)",
                     "exponents": {"T": {"eps": -2, "K": -1}, "rounds": {"eps": -1.5, "K": 0}}},
          check=f"{_CX}:check_feddro",
          notes="needs I >= 1, i.e. K <= eps^(-1/2) (not stated in the paper)"),
    Claim(id="khanduri.rem4.5", paper="khanduri", location="Remark 4.5",
          statement="FedDRO communicates O(eps^-2 K^-1 d_g) embedding floats besides the "
                    "O(eps^-3/2) model rounds: O(eps^-3/2 d + eps^-2 K^-1 d_g) floats per client; "
                    "the first term dominates iff d >= eps^-1/2 K^-1 d_g, otherwise the "
                    "communication degrades to O(eps^-2).",
          kind="complexity",
          predicted={"floats per client": "eps^-3/2 d + eps^-2 K^-1 d_g",
                     "crossover": "d = eps^-1/2 K^-1 d_g"}),
    Claim(id="khanduri.rem4.5.derivation", paper="khanduri",
          location="Remark 4.5 from Theorem 4.3",
          statement="rounds * d + T * d_g with T = K^-1 eps^-2 and rounds = eps^-3/2 gives "
                    "eps^-3/2 d + K^-1 eps^-2 d_g, the two terms equal at d = eps^-1/2 K^-1 d_g.",
          kind="complexity", predicted={"floats per client": "eps^-3/2 d + eps^-2 K^-1 d_g"},
          check=f"{_CX}:check_feddro_floats"),
    # ---------------------------------------------------------------- section 5
    Claim(id="khanduri.thm5.2", paper="khanduri", location="Theorem 5.2",
          statement="DS-FedDRO (Algorithm 3) with eta = O(1/sqrt(IT)), beta = c_beta eta, "
                    "gamma_x = O(sqrt(K/T)), gamma_y = c gamma_x, I = O(sqrt(T/K)), under "
                    "Assumptions 3.2-3.4 and 5.1: E||grad Phi(xbar^{a(T)})||^2 <= "
                    "O(sqrt(C_Sync/(KT))) + O(C_Drift/T).",
          kind="rate", predicted={"E||grad||^2 exponent in T": -0.5,
                                  "E||grad||^2 exponent in K": -0.5}),
    Claim(id="khanduri.cor5.3", paper="khanduri", location="Corollary 5.3",
          statement="DS-FedDRO: sample complexity O(eps^-2), O(K^-1 eps^-2) per client; "
                    "communication complexity O(eps^-1).",
          kind="complexity",
          predicted={"samples per client": "K^-1 eps^-2", "rounds": "eps^-1",
                     "exponents": {"samples per client": {"eps": -2, "K": -1},
                                   "rounds": {"eps": -1, "K": 0}}}),
    Claim(id="khanduri.cor5.3.derivation", paper="khanduri",
          location="Corollary 5.3 from Theorem 5.2",
          statement="With I = sqrt(T/K) and the rate 1/sqrt(KT) + 1/T: T = K^-1 eps^-2, rounds "
                    "T/I = sqrt(KT) = eps^-1.",
          kind="complexity", predicted={"T": "K^-1 eps^-2", "rounds": "eps^-1",
                                        "exponents": {"T": {"eps": -2, "K": -1},
                                                      "rounds": {"eps": -1, "K": 0}}},
          check=f"{_CX}:check_ds_feddro",
          notes="the O(C_Drift/T) term is dominated only when K <= eps^-1 (not stated)"),

)
