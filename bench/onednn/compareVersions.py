#!/usr/bin/env python3
"""Summarises compareVersions.sh output: for each shape and batch, the best (minimum) time of each oneDNN version over
all rounds, their ratio, and the per-model totals (sum of best times weighted by occurrences) with the spread of the
per-round totals. Usage: python3 bench/onednn/compareVersions.py OUTPUT.txt [--shapes]"""
import collections
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    best = collections.defaultdict(dict)     # (name, batch) -> version -> min ms
    count = {}
    totals = collections.defaultdict(lambda: collections.defaultdict(list))  # (name, batch) -> version -> [ms]
    impl = collections.defaultdict(dict)
    version = None
    for line in open(sys.argv[1]):
        if line.startswith("# oneDNN"):
            version = line.split()[2]
            continue
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        name, batch, occurrences, ms = f[0], int(f[1]), int(f[2]), float(f[3])
        key = (name, batch)
        if name.startswith("total."):
            totals[key][version].append(ms)
            continue
        count[key] = occurrences
        best[key][version] = min(ms, best[key].get(version, float("inf")))
        impl[key][version] = f[6] if len(f) > 6 else ""
    versions = sorted({v for d in best.values() for v in d})
    if len(versions) != 2:
        print(f"expected two versions, found {versions}")
        return 1
    a, b = versions
    if "--shapes" in sys.argv:
        print(f"| shape | batch | x | {a} (ms) | {b} (ms) | {b}/{a} | impl {a} | impl {b} |")
        print("|---|---|---|---|---|---|---|---|")
        for key in sorted(best):
            t = best[key]
            print(f"| {key[0]} | {key[1]} | {count[key]} | {t[a]:.3f} | {t[b]:.3f} | {t[b] / t[a]:.2f} | "
                  f"{impl[key][a]} | {impl[key][b]} |")
    print(f"| model (sum of primitives) | batch | {a}: best (ms) | {b}: best (ms) | {b}/{a} | per-round totals {a} | "
          f"per-round totals {b} |")
    print("|---|---|---|---|---|---|---|")
    for model in ("resnet50", "bert"):
        for batch in sorted({k[1] for k in best}):
            keys = [k for k in best if k[0].startswith(model + ".") and k[1] == batch]
            sa = sum(best[k][a] * count[k] for k in keys)
            sb = sum(best[k][b] * count[k] for k in keys)
            tk = [k for k in totals if k[0].startswith("total." + model) and k[1] == batch]
            ra = ", ".join(f"{x:.0f}" for x in totals[tk[0]][a]) if tk else ""
            rb = ", ".join(f"{x:.0f}" for x in totals[tk[0]][b]) if tk else ""
            print(f"| {model} | {batch} | {sa:.1f} | {sb:.1f} | {sb / sa:.2f} | {ra} | {rb} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
