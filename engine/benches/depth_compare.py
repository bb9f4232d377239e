#!/usr/bin/env python3
"""Time to a fixed depth, kage against another UCI engine (e.g. Fairy-Stockfish), side by side.

Runs `go depth D` on the position set of `kage bench` (read with `kage bench fens`: the start
position and three middlegame positions per variant), one engine after the other, fresh
process per search, and prints nodes and time (the engines' own `info ... time` of the last
completed depth) with totals per variant. The other engine is optional and is not part of this repository: pass its path and,
for Fairy-Stockfish, the variants.ini that defines Shinobi+ and Gorogoro+.

    python3 engine/benches/depth_compare.py --kage target/release/kage \
        --other /path/to/stockfish --variant-path variants.ini --depth 12
"""
import argparse
import re
import subprocess
import sys

def bench_positions(kage):
    """The position set of `kage bench`, per variant (`kage bench fens`)."""
    out = subprocess.run([kage, "bench", "fens"], check=True, capture_output=True, text=True)
    positions = {}
    for line in out.stdout.splitlines():
        variant, fen = line.split("\t", 1)
        positions.setdefault(variant, []).append(fen)
    return positions


def search(engine, variant, fen, depth, variant_path):
    cmds = ["uci"]
    if variant_path:
        cmds.append(f"setoption name VariantPath value {variant_path}")
    cmds += [
        f"setoption name UCI_Variant value {variant}",
        "setoption name Hash value 16",
        "isready",
        "ucinewgame",
        "position startpos" if fen == "startpos" else f"position fen {fen}",
        f"go depth {depth}",
    ]
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("\n".join(cmds) + "\n")
    p.stdin.flush()
    last = None
    for line in p.stdout:
        if line.startswith("info") and " depth " in line and " nodes " in line:
            d = int(re.search(r" depth (\d+)", line).group(1))
            if d == depth:
                last = line
        if line.startswith("bestmove"):
            break
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    if last is None:
        sys.exit(f"{engine}: no info line at depth {depth} for {variant} {fen}")
    nodes = int(re.search(r" nodes (\d+)", last).group(1))
    ms = int(re.search(r" time (\d+)", last).group(1))
    return nodes, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kage", default="target/release/kage")
    ap.add_argument("--other", help="path of the other UCI engine (optional)")
    ap.add_argument("--variant-path", help="VariantPath option for the other engine")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--variant", action="append", help="only these variants (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per search; the fastest counts")
    a = ap.parse_args()
    engines = [("kage", a.kage, None)]
    if a.other:
        engines.append(("other", a.other, a.variant_path))
    print(f"go depth {a.depth}, Hash 16 MB; nodes and time (ms) of the last completed depth")
    print("| variant | position | " + " | ".join(f"{n} nodes | {n} ms" for n, _, _ in engines) + " |")
    print("|---|---|" + "---:|---:|" * len(engines))
    for variant, fens in bench_positions(a.kage).items():
        if a.variant and variant not in a.variant:
            continue
        totals = [[0, 0] for _ in engines]
        for i, fen in enumerate(fens):
            cells = []
            for k, (_, path, vp) in enumerate(engines):
                runs = [search(path, variant, fen, a.depth, vp) for _ in range(a.repeat)]
                nodes, ms = min(runs, key=lambda r: r[1])
                totals[k][0] += nodes
                totals[k][1] += ms
                cells += [f"{nodes:,}", str(ms)]
            print(f"| {variant} | {i} | " + " | ".join(cells) + " |", flush=True)
        cells = [c for n, ms in totals for c in (f"**{n:,}**", f"**{ms}**")]
        print(f"| {variant} | all | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
