import sys
import pandas as pd
for p in sys.argv[1:]:
    try:
        df = pd.read_parquet(f"results-cpu/p{p}/localscgdam-fashionmnist.parquet")
    except FileNotFoundError:
        continue
    print(f"--- p={p}")
    piv = df.pivot_table(index="t", columns="arm", values="test_auc")
    print(piv.round(4).to_string())
    last = df.sort_values("t").groupby("arm").tail(1)[["arm", "t", "round", "test_auc", "seconds"]]
    print(last.round(4).to_string(index=False))
