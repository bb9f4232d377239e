#!/usr/bin/env python3
"""Time to a fixed depth, kage against another UCI engine (e.g. Fairy-Stockfish), side by side.

Runs `go depth D` on the start position and the three middlegame positions of `kage bench`
for every variant, one engine after the other, fresh process per search, and prints nodes
and time (the engines' own `info ... time` of the last completed depth) with totals per
variant. The other engine is optional and is not part of this repository: pass its path and,
for Fairy-Stockfish, the variants.ini that defines Shinobi+ and Gorogoro+.

    python3 scripts/depth_compare.py --kage target/release/kage \
        --other /path/to/stockfish --variant-path variants.ini --depth 12
"""
import argparse
import re
import subprocess
import sys

POSITIONS = {
    "shinobiplus": [
        "startpos",
        "r3k3/1p1q2br/3ppp2/2p4p/p4P2/HP3PPP/M1PP4/L2K4[] b q - 0 19",
        "rnbqk2r/3p2p1/3b3p/1p2pp2/p1PpH1n1/1M4PJ/PP2PP1P/DLFK3C[] b kq - 3 13",
        "rnbqk2r/p1ppb3/5ppp/3n4/1p6/P1C1LHDP/1PPPPPP1/3MK3[F] b kq - 0 9",
    ],
    "shinobi": [
        "startpos",
        "2bk1b1r/p4p2/3pp2p/3P2n1/1P4Pp/3M4/P1P1PP1P/LH1CKHHL[] b - g3 0 18",
        "rn2q1nr/p2pp1bp/bppJ1kp1/5p2/2LH4/M1P2MD1/PP1PPPPP/LH1CK1HL[] b - - 4 10",
        "rn1bk2r/p2q1p1p/3p2p1/1pp1p2D/1P2bL2/P1HHP1MJ/2PPMPPP/L2CK1HL[] b kq - 2 13",
    ],
    "gorogoroplus": [
        "startpos",
        "g1k1s/2g2/spplK/1Pn1N/3G1/+l2GS[Ppps] b - - 3 13",
        "2ggs/slk2/1P2S/pKp2/SG1p1/N2GN[Plp] b - - 1 11",
        "sk2s/g1g1L/3pn/SppPl/N1GGS/2K2[pp] b - - 2 9",
    ],
    "minishogi": [
        "startpos",
        "p2Bk/1G1s1/1G2p/1S2b/KR2R[] w - - 1 8",
        "3k1/bb2p/1SG1s/K1g2/R+p2R[] w - - 0 19",
        "1G2k/bP2B/r4/P1sS1/KG2R[] w - - 7 13",
    ],
}


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
    for variant, fens in POSITIONS.items():
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
