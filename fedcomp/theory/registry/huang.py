"""Claims of Huang, Li, Huang, Compositional Federated Learning (arXiv 2106.11264, conference).

ComFedL names the inner map f and the outer g; statements are converted to fedcomp's notation
where it matters (Phi(x) = (1/K) sum_k f_k(g_k(x)) for its problem (1), a CO-ND problem). Its
stationarity measure (1/S) sum_s E||grad F(wbar_s)||^2 needs no eps conversion. The numerical
checks of Lemma 1 and the rate checks of Theorems 1-2 are attached by
:mod:`fedcomp.theory.registry.checks_comfedl`; the reformulations and the complexity / constant
consistency are checked in :mod:`fedcomp.theory.dro` and :mod:`fedcomp.theory.complexity`.
"""
from fedcomp.theory.claims import Claim, register

_DRO = "fedcomp.theory.dro"
_CX = "fedcomp.theory.complexity"

register(
    Claim(id="huang.eq5", paper="huang", location="Section 1.1, (4)-(5)",
          statement="With the KL divergence phi(r, 1/n) = sum r_i log(n r_i) over client weights "
                    "r in the simplex, min_w max_r sum r_i f^i(w) - gamma phi(r, 1/n) is "
                    "equivalent to min_w gamma log((1/n) sum exp(f^i(w)/gamma)).",
          kind="equivalence", predicted={"value": "gamma*log((1/n) sum exp(f^i/gamma))"},
          check=f"{_DRO}:check_comfedl_lemma1",
          notes="client-level weights: the composition is exp of each client's expected loss "
                "(local inner function), unlike FedDRO (4) whose g is a mean of exp over samples"),
    Claim(id="huang.eq6", paper="huang", location="Section 1.1, (6)",
          statement="Since log is increasing, (5) can be replaced by min_w (1/n) sum "
                    "exp(f^i(w)/gamma) (same solutions).",
          kind="equivalence", predicted="argmin (5) = argmin (6)",
          check=f"{_DRO}:check_comfedl_eq6",
          notes="same minimisers and stationary points; gradients differ by the positive factor "
                "(1/n) sum exp(f^i/gamma) / gamma, so eps-stationarity is not preserved"),
    Claim(id="huang.eq10", paper="huang", location="Section 1.1, (8)-(10)",
          statement="The KL-regularised distribution-agnostic MAML (9) is, by exactly maximising "
                    "over p, solved by min_w (1/n) sum exp(f_i(w - eta grad f_i(w))/gamma) (10).",
          kind="equivalence", predicted="argmin (9) = argmin (10)",
          check=f"{_DRO}:check_comfedl_eq6",
          notes="the same identity as Lemma 1 with f^i replaced by the adapted task loss; the "
                "simplex Delta_n of (8) is printed with sum p_i = 0 (must be 1)"),
    Claim(id="huang.lem1", paper="huang", location="Appendix A, Lemma 1 (14)-(24)",
          statement="max_{r in Lambda_n} sum r_i f^i(w) - gamma sum r_i log(n r_i) = "
                    "gamma log((1/n) sum exp(f^i(w)/gamma)), so (14) is equivalent to (15).",
          kind="equivalence", predicted={"value": "gamma*log((1/n) sum exp(f^i/gamma))",
                                         "maximiser": "softmax(f/gamma)"},
          notes="the proof's (18) has the derivative -gamma/n where -gamma is right (journal "
                "(15) corrects it); the conclusion holds (fedcomp.theory.dro.derive_kl)"),
    Claim(id="huang.lem2", paper="huang", location="Appendix A.1, Lemma 2",
          statement="E||wbar_{s,t} - wbar_s||^2 <= tau^2 eta^2 G_g^2 G_f^2.",
          kind="constant", predicted={"drift bound": "tau^2 eta^2 G_g^2 G_f^2"}),
    Claim(id="huang.lem3", paper="huang", location="Appendix A.1, Lemma 3",
          statement="E||ubar_{s,t} - U_{s,0}||^2 <= 5 (G_g^2 L_f^2 + G_f^4 L_g^2) tau^2 eta^2 "
                    "G_g^2 G_f^2 + 5 G_f^2 sigma^2/b_1 + 5 G_g^2 sigma^2/b + 5 L_g^2 G_f^2 "
                    "sigma^2/b.",
          kind="constant", predicted={"coefficient": 5}),
    Claim(id="huang.lem4", paper="huang", location="Appendix A.2, Lemma 4",
          statement="Special problem: E||ubar_{s,t} - U_{s,0}||^2 <= 4 (G_g^2 L_f^2 + G_f^4 L_g^2) "
                    "tau^2 eta^2 G_g^2 G_f^2 + 4 G_g^2 sigma^2/b + 4 L_g^2 G_f^2 sigma^2/b.",
          kind="constant", predicted={"coefficient": 4}),
    Claim(id="huang.thm1", paper="huang", location="Theorem 1 (12) / Theorem 3 (31)",
          statement="ComFedL on problem (1), b = b_1: (1/S) sum_s E||grad F(wbar_s)||^2 <= "
                    "(F(wbar_0) - F*)/(T eta) + G_f G_g (sqrt5 H tau G_g G_f eta + sqrt5 G_f "
                    "sigma/sqrt(b_1) + sqrt5 G_g sigma/sqrt(b) + sqrt5 L_g G_f sigma/sqrt(b)) + "
                    "L tau eta G_g^2 G_f^2 + (L eta/2) G_f^2 G_g^2, H = sqrt(G_g^2 L_f^2 + "
                    "G_f^4 L_g^2).",
          kind="rate", predicted={"exponent in T (eta = T^-1/2, b = T, tau = O(1))": -0.5}),
    Claim(id="huang.thm1.constants", paper="huang", location="Theorem 1 (12) vs proof (32)-(34)",
          statement="The bound (12) as printed is what the telescoped per-step inequality (33) "
                    "gives.",
          kind="constant", predicted="(12) as printed",
          check=f"{_CX}:check_comfedl_thm1_constants",
          notes="(12) prints 'sqrt5 H tau G_g G_f eta sqrt5 G_f sigma/sqrt(b_1)' as a product; the "
                "proof has a sum. (34) prints L eta^2/2 where L eta/2 is right (journal (29))"),
    Claim(id="huang.rem1", paper="huang", location="Remark 1",
          statement="With eta = T^-alpha_1, b = 1/T^alpha_2, b_1 = 1/T^alpha_3: rate "
                    "O(T^(alpha_1 - 1) + tau T^-alpha_1 + T^(-alpha_2/2) + T^(-alpha_3/2)); "
                    "alpha_1 = 1/2, alpha_2 = alpha_3 = 1, tau = O(1) give O(1/sqrt(T)).",
          kind="complexity",
          predicted={"rate exponent in T": -0.5, "E||grad||^2 <= eps": {
              "T": "eps^-2", "batch": "eps^-2", "samples per client": "eps^-4",
              "rounds": "eps^-2"}},
          check=f"{_CX}:check_comfedl",
          notes="b = 1/T^alpha_2 must read b = T^alpha_2; no K (no linear speed-up)"),
    Claim(id="huang.rem1.batch", paper="huang", location="Remarks 1-2 (batch sizes as printed)",
          statement="With b = 1/T^alpha_2 and b_1 = 1/T^alpha_3 (alpha_2, alpha_3 > 0) as printed, "
                    "alpha_1 = 1/2, alpha_2 = alpha_3 = 1, tau = O(1), the bound (12) is "
                    "O(1/sqrt(T)).",
          kind="complexity", predicted={"sigma/sqrt(b) term exponent in T": -0.5},
          check=f"{_CX}:check_comfedl_rem1_batch",
          notes="as printed the batch is below 1 and sigma/sqrt(b) = sigma sqrt(T) grows; "
                "b = T^alpha_2 is meant (huang.rem1 checks that reading)"),
    Claim(id="huang.thm2", paper="huang", location="Theorem 2 (13) / Theorem 4 (38)",
          statement="ComFedL on the special problem (identical deterministic outer function): "
                    "(1/S) sum_s E||grad F(wbar_s)||^2 <= (F(wbar_0) - F*)/(T eta) + G_f G_g "
                    "(2 H tau eta G_g G_f + 2 G_g sigma/sqrt(b) + 2 L_g G_f sigma/sqrt(b)) + "
                    "L tau eta G_g^2 G_f^2 + (L eta/2) G_f^2 G_g^2.",
          kind="rate", predicted={"exponent in T (eta = T^-1/2, b = T, tau = O(1))": -0.5}),
    Claim(id="huang.thm2.constants", paper="huang", location="Theorem 2 (13) vs Lemma 4, Theorem 4",
          statement="Theorem 2's H = sqrt(G_g^2 L_f^2 + G_f^2 L_g^2).",
          kind="constant", predicted={"H": "sqrt(G_g^2 L_f^2 + G_f^2 L_g^2)"},
          check=f"{_CX}:check_comfedl_thm2_constants",
          notes="Lemma 4 and Theorem 4 (appendix) have G_f^4 L_g^2"),
    Claim(id="huang.rem2", paper="huang", location="Remark 2",
          statement="Special problem: eta = T^-alpha_1, b = 1/T^alpha_2; alpha_1 = 1/2, "
                    "alpha_2 = 1, tau = O(1) give O(1/sqrt(T)).",
          kind="complexity",
          predicted={"rate exponent in T": -0.5, "E||grad||^2 <= eps": {
              "samples per client": "eps^-4", "rounds": "eps^-2"}},
          check=f"{_CX}:check_comfedl_special"),
    Claim(id="huang.fig2", paper="huang", location="Section 5.1, Figure 2",
          statement="Robust FL on imbalanced MNIST (logistic regression, 10 workers: one with "
                    "5000 images, nine with 20): ComFedL converges faster with larger tau, and "
                    "with gamma = 0.1/0.2 than with gamma = 2/5.",
          kind="experiment", predicted="faster with larger tau and smaller gamma"),
    Claim(id="huang.fig3", paper="huang", location="Section 5.1, Figure 3",
          statement="ComFedL (lr 0.01, tau = 5, gamma = 0.5) outperforms DRFL (gamma 0.08), "
                    "q-FedAvg (q = 0.2) and FedAvg in average and worst-worker accuracy; DRFL and "
                    "q-FedAvg beat FedAvg.",
          kind="experiment", predicted="ComFedL > DRFL, q-FedAvg > FedAvg"),
    Claim(id="huang.fig4-8", paper="huang", location="Section 5.2, Figures 4-8",
          statement="On heterogeneous CIFAR10 (10 workers, rho = 0.28, 4-layer CNN) ComFedL-MAML "
                    "outperforms FedAvg (more so for larger rho) and converges faster with larger "
                    "tau; ComFedL-DAMAML (gamma = 0.5, lr 0.05) reaches lower validation loss than "
                    "ComFedL-MAML and is robust to gamma.",
          kind="experiment", predicted="ComFedL-MAML > FedAvg; DAMAML >= MAML"),
)
