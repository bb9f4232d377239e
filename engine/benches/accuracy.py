#!/usr/bin/env python3
"""Search accuracy at a fixed node budget: how often an engine's move after N nodes is the move
a deep search picks, and how far its score is from the deep one.

A match needs hundreds of games to see 20 Elo; this asks one question per position and is
deterministic (node limits, a fresh hash per position), so a search change can be screened in
a minute before a match is spent on it. It is a screen, not a strength figure: only a match
decides what is kept (engine/BENCHMARKS-search.md).

Positions: `accuracy/minishogi.tsv`, `tag<TAB>FEN` (tag `s`: the position before a drop by
Fairy-Stockfish after which kage's own score fell by more than 150 cp; `r`: a random position
of the same games, FSF c19b5f6c against kage with the same Minishogi FSF-format net). The deep
references are not committed: make them once with each engine (about 15 minutes each).

    B=engine/benches; NET=/path/minishogi-<sha12>.nnue
    python3 $B/accuracy.py run /path/stockfish ref-fsf.jsonl --nodes 2000000 --net $NET
    python3 $B/accuracy.py run target/release/kage ref-kage.jsonl --nodes 3000000 --net $NET
    python3 $B/accuracy.py run target/release/kage new.jsonl --nodes 100000 --net $NET
    python3 $B/accuracy.py score new.jsonl old.jsonl --ref ref-fsf.jsonl ref-kage.jsonl
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MATE = 30000


class Engine:
    """One UCI process, spoken to line by line."""

    def __init__(self, cmd, variant, net):
        self.p = subprocess.Popen([cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        if net:
            self.send(f"setoption name EvalFile value {net}")
        self.send("setoption name Hash value 16")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, token):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"accuracy: the engine exited while waiting for {token}")
            lines.append(line.split())
            if lines[-1][:1] == [token]:
                return lines

    def search(self, fen, nodes):
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")
        self.send(f"position fen {fen}")
        self.send(f"go nodes {nodes}")
        lines = self.wait("bestmove")
        result = {"best": lines[-1][1], "score": None, "depth": None}
        for t in lines:
            if t[:1] == ["info"] and "score" in t and "pv" in t:
                kind, value = t[t.index("score") + 1], int(t[t.index("score") + 2])
                result["score"] = value if kind == "cp" else (MATE - abs(value)) * (1 if value > 0 else -1)
                result["depth"] = int(t[t.index("depth") + 1])
        return result


def run(args):
    engine = Engine(args.engine, args.variant, args.net)
    positions = [line.rstrip("\n").split("\t") for line in open(args.positions) if line.strip()]
    tmp = args.out + ".tmp"
    with open(tmp, "w") as out:
        for i, (tag, fen) in enumerate(positions):
            r = engine.search(fen, args.nodes)
            out.write(json.dumps({"tag": tag, "fen": fen, **r}) + "\n")
            if (i + 1) % 50 == 0:
                print(f"accuracy: {i + 1}/{len(positions)}", file=sys.stderr)
    engine.send("quit")
    os.replace(tmp, args.out)


def load(path):
    return [json.loads(line) for line in open(path)]


def score(args):
    refs = [(os.path.basename(r), load(r)) for r in args.ref]
    clip = lambda s: max(-1000, min(1000, s or 0))
    for path in args.runs:
        rows = load(path)
        cells, agreements = [os.path.basename(path)], []
        for name, ref in refs:
            if [r["fen"] for r in ref] != [r["fen"] for r in rows]:
                sys.exit(f"accuracy: {path} and {name} are not of the same positions")
            agree = sum(a["best"] == b["best"] for a, b in zip(rows, ref)) / len(ref)
            err = statistics.median(abs(clip(a["score"]) - clip(b["score"]))
                                    for a, b in zip(rows, ref) if abs(b["score"] or 0) < 20000)
            agreements.append(agree)
            cells.append(f"{name}: same move {agree:.3f}, median score error {err:.0f}")
        depth = statistics.median(r["depth"] or 0 for r in rows)
        cells.append(f"mean agreement {sum(agreements) / len(agreements):.3f}, median depth {depth}")
        print("  ".join(cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="search every position at a node budget")
    r.add_argument("engine")
    r.add_argument("out")
    r.add_argument("--nodes", type=int, default=100000)
    r.add_argument("--net", help="EvalFile for both kage and FSF (name it <variant>-*.nnue)")
    r.add_argument("--variant", default="minishogi")
    r.add_argument("--positions", default=os.path.join(HERE, "accuracy", "minishogi.tsv"))
    s = sub.add_parser("score", help="agreement of runs with deep references")
    s.add_argument("runs", nargs="+")
    s.add_argument("--ref", nargs="+", required=True)
    args = ap.parse_args()
    run(args) if args.cmd == "run" else score(args)


if __name__ == "__main__":
    main()
