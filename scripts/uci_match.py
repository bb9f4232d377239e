#!/usr/bin/env python3
"""Thin wrapper, kept for old command lines: engine A against engine B through
`kage-selfplay match` (game pairs, kage's own rules as referee, Elo, pentanomial counts, PGN,
resume). Prefer calling `kage-selfplay match` directly; see selfplay/README-selfplay.md.

    python3 scripts/uci_match.py --a target/release/kage --b /tmp/kage-old \
        --variant minishogi --games 40 --movetime 20

is

    kage-selfplay match --variant minishogi --engine cmd=target/release/kage \
        --engine cmd=/tmp/kage-old --games 40 --movetime 20 --opening-plies 4 \
        --opening-mode uniform --max-plies 300 --out uci-match-minishogi
"""
import argparse
import os
import shutil
import sys


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
    ap.add_argument("--out", help="match directory (default uci-match-VARIANT; rerun resumes)")
    here = os.path.dirname(os.path.abspath(__file__))
    default_bin = os.path.join(here, "..", "target", "release", "kage-selfplay")
    ap.add_argument(
        "--kage-selfplay",
        default=default_bin if os.path.exists(default_bin) else shutil.which("kage-selfplay"),
        help="the kage-selfplay binary (cargo build --release -p kage-selfplay)",
    )
    a = ap.parse_args()
    if not a.kage_selfplay:
        sys.exit("uci_match.py: kage-selfplay not found; build it or pass --kage-selfplay")
    limit = (
        ["--nodes", str(a.nodes)] if a.nodes else ["--tc", a.tc] if a.tc else ["--movetime", str(a.movetime)]
    )
    cmd = [
        a.kage_selfplay, "match", "--variant", a.variant,
        "--engine", f"cmd={a.a}", "name=A", "--engine", f"cmd={a.b}", "name=B",
        "--games", str(a.games), *limit, "--opening-plies", str(a.opening_plies),
        "--opening-mode", "uniform", "--max-plies", str(a.max_plies), "--seed", str(a.seed),
        "--out", a.out or f"uci-match-{a.variant}",
    ]
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
