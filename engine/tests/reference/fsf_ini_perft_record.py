#!/usr/bin/env python3
"""Records fsf_ini_perft.jsonl: Fairy-Stockfish's perft of positions of the variants in
../fixtures/fsf_chess_variants.ini (and FSF's built-ins chess,
losalamos, gardner, nocastle, amazon, almost, perfect, kingofthehill), read by
engine/tests/fsf_ini_perft.rs.

    python3 engine/tests/reference/fsf_ini_perft_record.py --fsf /path/to/fairy-stockfish

Positions: the start position and positions of seeded random games (pyffish 0.0.90 picks the
legal moves), preferring those where a promotion is legal and those in check. The depth is the
largest (at most 4) whose count stays under --max-nodes; `nodes` is FSF's `go perft` count.
"""
import argparse, json, os, random, subprocess

import pyffish as sf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "fsf_chess_variants.ini")
BUILTINS = ["chess", "losalamos", "gardner", "nocastle", "amazon", "almost", "perfect", "kingofthehill"]


def sections(path):
    with open(path) as f:
        return [l[1:].split(":")[0].split("]")[0] for l in f if l.startswith("[")]


class Fsf:
    def __init__(self, binary, ini, variant):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.send(f"setoption name VariantPath value {ini}")
        self.send(f"setoption name UCI_Variant value {variant}")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send(f"go perft {depth}")
        for line in self.p.stdout:
            if line.startswith("Nodes searched"):
                return int(line.split(":")[1])

    def close(self):
        self.send("quit")
        self.p.wait()


def positions(v, rng, games, plies):
    start = sf.start_fen(v)
    out, promo, check = [start], [], []
    for _ in range(games):
        moves = []
        for _ in range(plies):
            legal = sf.legal_moves(v, start, moves)
            if not legal:
                break
            fen = sf.get_fen(v, start, moves)
            if any(m[-1].isalpha() and m[-1].islower() and "@" not in m for m in legal):
                promo.append(fen)
            elif sf.gives_check(v, start, moves):
                check.append(fen)
            moves.append(rng.choice(legal))
        out.append(sf.get_fen(v, start, moves))
    rng.shuffle(promo)
    rng.shuffle(check)
    return out + promo[:4] + check[:2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fsf", required=True)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--max-nodes", type=int, default=40000)
    a = ap.parse_args()
    with open(FIXTURE) as f:
        sf.load_variant_config(f.read())
    rng = random.Random(a.seed)
    records = []
    for v in BUILTINS + sections(FIXTURE):
        fsf = Fsf(a.fsf, os.path.abspath(FIXTURE), v)
        seen = set()
        for fen in positions(v, rng, 3, 90):
            if fen in seen:
                continue
            seen.add(fen)
            depth, nodes = 1, fsf.perft(fen, 1)
            while depth < 4:
                n = fsf.perft(fen, depth + 1)
                if n > a.max_nodes:
                    break
                depth, nodes = depth + 1, n
            records.append({"variant": v, "fen": fen, "depth": depth, "nodes": nodes})
        fsf.close()
    with open(os.path.join(HERE, "fsf_ini_perft.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    print(f"{len(records)} records")


if __name__ == "__main__":
    main()
