#!/usr/bin/env python3
"""Records Fairy-Stockfish's own `eval` output for kage's seeded random FSF-format nets:
engine/tests/reference/fsf_nnue_<variant>.jsonl, replayed by engine/tests/fsf_nnue.rs.

    python3 engine/tests/reference/fsf_nnue_record.py --kage target/release/kage \
        --fsf /path/to/fairy-stockfish --fsf-large /path/to/fairy-stockfish-largeboards \
        --variants-ini /path/to/variants.ini [--seed 1] [--count 40] [VARIANT ...]

The positions are those of perft_<variant>.jsonl (FSF-checked FENs): every one whose side
to move is not in check, in file order, up to --count, plus the first two in check (FSF
prints "Final evaluation: none (in check)" for them). The net is the one `kage fsf-net
random --seed S` writes; FSF loads it by its name (`<variant>-<sha256>.nnue`). shinobi and
shinobiplus need a largeboards FSF (FSF-NNUE.md, build warning). Each record:
{"variant", "seed", "fen", "lines"}: FSF's "NNUE network contributions" table (14 lines)
and its "NNUE evaluation" line, or its one in-check line."""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LARGE = {"shinobi", "shinobiplus"}


def positions(variant, count):
    recs = [json.loads(l) for l in open(os.path.join(HERE, f"perft_{variant}.jsonl"))]
    quiet = [r["fen"] for r in recs if "in_check" not in r["tags"]][:count]
    checked = [r["fen"] for r in recs if "in_check" in r["tags"]][:2]
    return quiet + checked


def fsf_lines(out):
    """The NNUE table and evaluation line of one `eval` output, or its in-check line."""
    lines = out.splitlines()
    if any(l.startswith("Final evaluation: none (in check)") for l in lines):
        return ["Final evaluation: none (in check)"]
    start = next(i for i, l in enumerate(lines) if l.startswith(" NNUE network contributions"))
    table = lines[start:start + 14]
    nnue = [l for l in lines if l.startswith("NNUE evaluation")]
    assert len(nnue) == 1 and table[-1].startswith("+---"), out
    return table + nnue


def record(variant, seed, kage, fsf, ini, count, tmp):
    net = subprocess.run([kage, "fsf-net", "random", "--variant", variant, "--seed", str(seed),
                          "--out", tmp], check=True, capture_output=True, text=True).stdout.strip()
    fens = positions(variant, count)
    cmds = ["uci", f"setoption name VariantPath value {ini}",
            f"setoption name UCI_Variant value {variant}",
            f"setoption name EvalFile value {os.path.abspath(net)}", "isready"]
    for fen in fens:
        cmds += [f"position fen {fen}", "eval", "isready"]
    cmds.append("quit")
    out = subprocess.run([fsf], input="\n".join(cmds) + "\n", capture_output=True, text=True,
                         check=True).stdout
    if "NNUE evaluation using" not in out:
        sys.exit(f"{variant}: FSF did not use the net:\n{out[-2000:]}")
    chunks = out.split("readyok")[1:]  # the first readyok precedes the first eval
    assert len(chunks) >= len(fens), (len(chunks), len(fens))
    rows = [{"variant": variant, "seed": seed, "fen": fen, "lines": fsf_lines(chunk)}
            for fen, chunk in zip(fens, chunks)]
    path = os.path.join(HERE, f"fsf_nnue_{variant}.jsonl")
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{path}: {len(rows)} records (net {os.path.basename(net)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kage", required=True)
    ap.add_argument("--fsf", required=True, help="a normal FSF build")
    ap.add_argument("--fsf-large", required=True, help="a largeboards=yes FSF build")
    ap.add_argument("--variants-ini", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("variants", nargs="*",
                    default=["minishogi", "gorogoroplus", "shinobi", "shinobiplus"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for v in a.variants:
            fsf = a.fsf_large if v in LARGE else a.fsf
            record(v, a.seed, a.kage, fsf, os.path.abspath(a.variants_ini), a.count, tmp)


if __name__ == "__main__":
    main()
