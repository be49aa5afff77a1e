"""Claims of Khanduri et al. (FedDRO paper)."""
from fedcomp.theory.claims import Claim, register

register(
    Claim(id="khanduri.thm4.1", paper="khanduri", location="Theorem 4.1",
          statement="Vanilla FedAvg (Algorithm 1, Case I and Case II) does not converge to a "
                    "stationary point of Phi for fixed I > 1 and every small constant eta: the "
                    "limit of ||grad Phi(xbar_t)|| stays bounded away from 0 as eta -> 0.",
          kind="counterexample", predicted="limit gap > 0 for every I > 1 as eta -> 0",
          check="fedcomp.counterexamples.thm41:check"),
)
