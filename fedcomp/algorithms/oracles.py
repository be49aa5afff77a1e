"""The names a compiled step may call: the problem's oracles (kernel protocol, documented in
:mod:`fedcomp.problems.base`).

Algorithm modules import these names so that a reader and a linter can follow every call of a
step. They are placeholders: the engine compiles each step in a module generated for one
(algorithm, problem) pair (:mod:`fedcomp.engine.build`) in which these names are that problem's
compiled kernels. Calling a placeholder from Python is an error that says so.
"""


def _placeholder(name):
    def fn(*args):
        raise RuntimeError(f"{name} is the problem's oracle: it exists only inside the engine's "
                           f"compiled module (fedcomp.engine.build), not as a Python function")
    fn.__name__ = name
    fn.__qualname__ = name
    return fn


#: True when the problem has the non-compositional part h (FedDRO problem (2))
HAS_H = False

# global-inner and local-inner problems (FedDRO (2), ComFedL (1))
g_value = _placeholder("g_value")      # (data, k, x, key, exact, out): out = g_k(x; zeta)
g_value2 = _placeholder("g_value2")    # (data, k, x1, x2, key, exact, out1, out2): one sample
g_vjp = _placeholder("g_vjp")          # (data, k, x, v, key, exact, out): out = grad g_k(x) v
h_grad = _placeholder("h_grad")        # (data, k, x, key, exact, out): out = grad h_k(x; xi)
f_grad = _placeholder("f_grad")        # (data, k, y, out): out = grad f_k(y)

PROTOCOL = ("HAS_H", "g_value", "g_value2", "g_vjp", "h_grad", "f_grad")

# local-inner problems: ComFedL (1) and its FL baselines (fedcomp.problems._robustfl_kernels)
g_value_b = _placeholder("g_value_b")        # (data, k, x, key, exact, nb, out): |B| = nb
g_vjp_b = _placeholder("g_vjp_b")            # (data, k, x, v, key, exact, nb, out): same B
f_grad_b = _placeholder("f_grad_b")          # (data, k, y, key, exact, nb, out): grad f_k(y; B~)
loss_value_b = _placeholder("loss_value_b")  # (data, k, x, key, exact, nb) -> l_k(x; B)
loss_grad_b = _placeholder("loss_grad_b")    # (data, k, x, key, exact, nb, out): grad l_k(x; B)
client_weight = _placeholder("client_weight")  # (data, k) -> n_k / N
