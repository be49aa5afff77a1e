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

# minimax problems (AUC paper (4)): ydual is the dual variable, an array of DUAL_DIM entries
# (data, k, u, ydual, key, exact, out): out = grad_u f^(k)(u, ydual; zeta)
outer_grad_inner = _placeholder("outer_grad_inner")
# (data, k, u, ydual, key, exact, out): out (DUAL_DIM,) = grad_y f^(k)(u, ydual; zeta)
outer_grad_dual = _placeholder("outer_grad_dual")
# (data, k, u, ydual, key, exact, out_u, out_dual): both of the above at one sample (optional:
# engine.defaults calls the two)
outer_grads = _placeholder("outer_grads")
# (data, k, x, key, exact, out): out = grad L_CE(x; xi), the cross-entropy of the model itself
ce_grad = _placeholder("ce_grad")

PROTOCOL += ("outer_grad_inner", "outer_grad_dual", "outer_grads", "ce_grad")

# conditional problems (FCSG paper (1), fedcomp.problems._conditional_kernels)
cond_grad = _placeholder("cond_grad")      # (data, k, x, key, exact, out): out = grad of (3), b
cond_grad_b = _placeholder("cond_grad_b")  # (data, k, x, key, exact, nb, out): nb outer samples
cond_value_b = _placeholder("cond_value_b")  # (data, k, x, key, exact, nb): the estimator (3)
cond_draw = _placeholder("cond_draw")      # (data, k, key, i, a, etabar): outer sample i -> b
# (data, k, x1, x2, key, exact, out1, out2): cond_grad at x1 and x2 on the same samples
# (optional: engine.defaults calls cond_grad twice)
cond_grad2 = _placeholder("cond_grad2")

PROTOCOL += ("cond_grad", "cond_grad_b", "cond_value_b", "cond_draw", "cond_grad2")

# local-inner problems: ComFedL (1) and its FL baselines (fedcomp.problems._robustfl_kernels)
g_value_b = _placeholder("g_value_b")        # (data, k, x, key, exact, nb, out): |B| = nb
g_vjp_b = _placeholder("g_vjp_b")            # (data, k, x, v, key, exact, nb, out): same B
f_grad_b = _placeholder("f_grad_b")          # (data, k, y, key, exact, nb, out): grad f_k(y; B~)
loss_value_b = _placeholder("loss_value_b")  # (data, k, x, key, exact, nb) -> l_k(x; B)
loss_grad_b = _placeholder("loss_grad_b")    # (data, k, x, key, exact, nb, out): grad l_k(x; B)
client_weight = _placeholder("client_weight")  # (data, k) -> n_k / N
# (data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u): y = g_k(x; B),
# v = grad f_k(y; B~), u = grad g_k(x; B)^T v (optional: engine.defaults makes the three calls)
comp_grad_b = _placeholder("comp_grad_b")

PROTOCOL += ("g_value_b", "g_vjp_b", "f_grad_b", "loss_value_b", "loss_grad_b", "client_weight",
             "comp_grad_b")
