#!/usr/bin/env python3
"""Differential rules fuzzer: plays random games and compares kage with Fairy-Stockfish (pyffish)
at every ply: the sorted legal moves, the FEN, and the verdict once the game ends.

    pip install pyffish==0.0.90
    python3 engine/tests/fsf_diff.py --kage target/release/kage --variant all --games 200
    python3 engine/tests/fsf_diff.py --kage target/release/kage --ini variants.ini \
        --variant shinobimirror,judkins --games 20

With --ini, kage reads the variants from that Fairy-Stockfish file (`kage --variant-file FILE
rules --variant V`) and pyffish loads it too; --variant is then a comma-separated list of its
sections or FSF built-ins kage carries (minishogi, gorogoro, judkins, euroshogi, ...), or `all`:
every section of the file kage plays (`kage check FILE`).

Needs `kage rules --variant V --fen F --moves ...` printing one JSON line
{"fen", "legal", "in_check", "outcome": null | {"winner", "reason"}}.
Prints the first mismatch of each game (start FEN + moves reproduce it) and a summary; exits 1 on
any mismatch. Moves are drawn with a bias toward drops, promotions, captures and checks so that
rare rules come up; --seed makes a run repeatable.
"""
import argparse, json, os, random, subprocess, sys

import pyffish as sf

# The three variants pyffish does not carry built in, written in its configuration language.
# FSF's own sections of Shinobi+, Shinobi and Gorogoro+ (shared with kage's reader tests).
CONFIG = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "fsf_sections.ini")).read()
VARIANTS = ["shinobiplus", "shinobi", "gorogoroplus", "minishogi"]


def fsf_verdict(v, fen, moves, legal):
    """Winner by Fairy-Stockfish's rules, or None while the game goes on."""
    stm_white = sf.get_fen(v, fen, moves).split()[1] == "w"
    end, val = sf.is_immediate_game_end(v, fen, moves)
    if not end:
        end, val = sf.is_optional_game_end(v, fen, moves)
    if not end and not legal:
        end, val = True, sf.game_result(v, fen, moves)
    if not end:
        return None
    if val == 0:
        return "draw"
    return "white" if (val > 0) == stm_white else "black"


INI = []  # ["--variant-file", FILE] with --ini


def kage_rules(kage, v, fen, moves):
    cmd = [kage, *INI, "rules", "--variant", v, "--fen", fen] + (["--moves", *moves] if moves else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"kage failed ({r.returncode}): {r.stderr.strip()[:200]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def same_fen(a, b):
    """Equal FENs, comparing the hand as a multiset (FSF orders hand letters its own way; a
    variant without drops has no hand in FSF's FEN, `[]` in kage's)."""
    def norm(f):
        parts = f.split()
        board = parts[0]
        if "[" in board:
            b, hand = board.split("[", 1)
            hand = "".join(sorted(hand.rstrip("]").replace("-", "")))
            board = b + (f"[{hand}]" if hand else "")  # an empty hand may be left out
        return " ".join([board] + parts[1:])
    return norm(a) == norm(b)


def pick(rng, v, fen, moves, legal):
    if rng.random() < 0.5:
        return rng.choice(legal)
    def weight(m):
        w = 1.0
        if "@" in m: w += 2
        if m.endswith("+"): w += 3
        if sf.is_capture(v, fen, moves, m): w += 2
        if sf.gives_check(v, fen, moves + [m]): w += 2
        return w
    return rng.choices(legal, weights=[weight(m) for m in legal])[0]


def play(kage, v, rng, max_plies):
    # The start position as FSF reads it (a variant's startFen may be loosely written: FSF
    # reads petty's `w - 0 1` as halfmove clock 1).
    fen = sf.get_fen(v, sf.start_fen(v), [])
    moves = []
    for _ in range(max_plies):
        legal = sorted(sf.legal_moves(v, fen, moves))
        ours = kage_rules(kage, v, fen, moves)
        want = fsf_verdict(v, fen, moves, legal)
        got = ours["outcome"]["winner"] if ours["outcome"] else None
        where = f"{v} fen {fen} moves {' '.join(moves)}"
        if want is None and sorted(ours["legal"]) != legal:
            extra = sorted(set(ours["legal"]) - set(legal))
            missing = sorted(set(legal) - set(ours["legal"]))
            return f"{where}: legal moves differ; kage only {extra}, FSF only {missing}"
        if not same_fen(ours["fen"], sf.get_fen(v, fen, moves)):
            return f"{where}: FEN {ours['fen']} != FSF {sf.get_fen(v, fen, moves)}"
        if got != want:
            return f"{where}: verdict kage {got} != FSF {want}"
        if want is not None or not legal:
            return None
        moves.append(pick(rng, v, fen, moves, legal))
    return None


def select_variants(a):
    """The variants to play, with pyffish's configuration loaded."""
    if not a.ini:
        sf.load_variant_config(CONFIG)
        if a.variant != "all" and a.variant not in VARIANTS:
            sys.exit(f"--variant: one of {', '.join(VARIANTS)} or all (or give --ini)")
        return VARIANTS if a.variant == "all" else [a.variant]
    INI.extend(["--variant-file", a.ini])
    with open(a.ini) as f:
        sf.load_variant_config(f.read())
    if a.variant != "all":
        return a.variant.split(",")
    out = subprocess.run([a.kage, "check", a.ini], capture_output=True, text=True).stdout
    return [l.split()[1].rstrip(":") for l in out.splitlines() if l.startswith("OK ")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kage", required=True)
    ap.add_argument("--variant", default="all")
    ap.add_argument("--ini", help="a Fairy-Stockfish variants.ini file both engines read")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    variants = select_variants(a)
    rng = random.Random(a.seed)
    bad = 0
    for v in variants:
        for g in range(a.games):
            msg = play(a.kage, v, rng, a.max_plies)
            if msg:
                bad += 1
                print(f"game {g}: {msg}", flush=True)
    n = a.games * len(variants)
    print(f"{n - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
