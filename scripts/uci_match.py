#!/usr/bin/env python3
"""Match two UCI engines (e.g. two kage builds) in one variant, refereed by Fairy-Stockfish's rules.

Each opening (a few random legal plies from the start position, seeded) is played twice with
colours swapped. Moves come from `go movetime MS`, `go nodes N`, or a clock (`--tc 1+0.1`:
the script keeps both clocks, sends `wtime btime winc binc`, and a side whose clock runs out
loses on time); the referee is pyffish
(`pip install pyffish==0.0.90`) loaded with the variant configuration of
../shared/tools/fsf_diff.py. Prints W/D/L of engine A, its score and an Elo estimate with a
95 % interval. A game still running at --max-plies counts as a draw.

    python3 scripts/uci_match.py --a target/release/kage --b /tmp/kage-old \
        --variant minishogi --games 40 --movetime 20
"""
import argparse
import importlib.util
import math
import os
import random
import subprocess
import sys
import time


def load_referee(path):
    spec = importlib.util.spec_from_file_location("fsf_diff", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.sf.load_variant_config(mod.CONFIG)
    return mod


class Engine:
    def __init__(self, path, variant):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.send("uci")
        self.wait("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("setoption name Hash value 16")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        for line in self.p.stdout:
            if line.startswith(prefix):
                return line.strip()
        raise RuntimeError("engine closed its output")

    def new_game(self):
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")

    def best(self, moves, go):
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(go)
        return self.wait("bestmove").split()[1]

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


STATS = {"time_losses": 0, "longest_ms": 0.0, "lowest_clock_ms": float("inf")}


def play(ref, v, engines, opening, go, max_plies, tc=None):
    """Winner index (0 = white engine, 1 = black engine) or None for a draw; and the length."""
    sf = ref.sf
    fen = sf.start_fen(v)
    moves = list(opening)
    for e in engines:
        e.new_game()
    clocks = [tc[0], tc[0]] if tc else None
    while len(moves) < max_plies:
        legal = sf.legal_moves(v, fen, moves)
        verdict = ref.fsf_verdict(v, fen, moves, legal)
        if verdict is not None:
            return {"white": 0, "black": 1, "draw": None}[verdict], len(moves)
        side = 0 if sf.get_fen(v, fen, moves).split()[1] == "w" else 1
        if clocks:
            inc = tc[1]
            go = f"go wtime {int(clocks[0])} btime {int(clocks[1])} winc {int(inc)} binc {int(inc)}"
        t0 = time.monotonic()
        m = engines[side].best(moves, go)
        if clocks:
            spent = (time.monotonic() - t0) * 1000
            STATS["longest_ms"] = max(STATS["longest_ms"], spent)
            clocks[side] -= spent
            if clocks[side] < 0:
                STATS["time_losses"] += 1
                print(f"engine {'AB'[side]} lost on time after {len(moves)} plies", file=sys.stderr)
                return 1 - side, len(moves)
            STATS["lowest_clock_ms"] = min(STATS["lowest_clock_ms"], clocks[side])
            clocks[side] += tc[1]
        if m not in legal:
            print(f"illegal move {m} by engine {'AB'[side]} after {' '.join(moves)}", file=sys.stderr)
            return 1 - side, len(moves)
        moves.append(m)
    return None, len(moves)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--a", required=True, help="engine A (the candidate)")
    ap.add_argument("--b", required=True, help="engine B (the baseline)")
    ap.add_argument("--variant", required=True)
    ap.add_argument("--games", type=int, default=40, help="games (rounded up to pairs)")
    ap.add_argument("--movetime", type=int, default=20, help="ms per move")
    ap.add_argument("--nodes", type=int, help="fixed nodes per move instead of movetime")
    ap.add_argument("--tc", help="clock instead of movetime: SECONDS+INCREMENT, e.g. 1+0.1")
    ap.add_argument("--opening-plies", type=int, default=4)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--referee", default=os.path.join(here, "..", "..", "shared", "tools", "fsf_diff.py"))
    a = ap.parse_args()
    ref = load_referee(a.referee)
    go = f"go nodes {a.nodes}" if a.nodes else f"go movetime {a.movetime}"
    tc = None
    if a.tc:
        base, _, inc = a.tc.partition("+")
        tc = (float(base) * 1000, float(inc or 0) * 1000)
    rng = random.Random(a.seed)
    ea, eb = Engine(a.a, a.variant), Engine(a.b, a.variant)
    w = d = l = 0
    try:
        for pair in range((a.games + 1) // 2):
            fen = ref.sf.start_fen(a.variant)
            opening = []
            for _ in range(a.opening_plies):
                legal = ref.sf.legal_moves(a.variant, fen, opening)
                if not legal:
                    break
                opening.append(rng.choice(sorted(legal)))
            for a_white in (True, False):
                engines = [ea, eb] if a_white else [eb, ea]
                winner, n = play(ref, a.variant, engines, opening, go, a.max_plies, tc)
                if winner is None:
                    d += 1
                elif (winner == 0) == a_white:
                    w += 1
                else:
                    l += 1
            print(f"after {2 * pair + 2} games: A +{w} ={d} -{l}", flush=True)
    finally:
        ea.close()
        eb.close()
    n = w + d + l
    score = (w + d / 2) / n
    var = (w * (1 - score) ** 2 + d * (0.5 - score) ** 2 + l * score**2) / n
    se = math.sqrt(var / n)

    def elo(s):
        s = min(max(s, 1e-3), 1 - 1e-3)
        return -400 * math.log10(1 / s - 1)

    lo, hi = elo(score - 1.96 * se), elo(score + 1.96 * se)
    print(f"{a.variant}: A +{w} ={d} -{l}  score {100 * score:.1f} %  Elo {elo(score):+.0f} [{lo:+.0f}, {hi:+.0f}]")
    if tc:
        print(
            f"clock {a.tc}: {STATS['time_losses']} losses on time, longest move "
            f"{STATS['longest_ms']:.0f} ms, lowest clock after a move {STATS['lowest_clock_ms']:.0f} ms"
        )


if __name__ == "__main__":
    main()
