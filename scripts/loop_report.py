#!/usr/bin/env python3
"""Helpers of the gated generation loop (scripts/loop.sh, scripts/slurm_loop.sh); stdlib only.

  loop_report.py gate MATCH_DIR        # prints "accepted<TAB>why" or "rejected<TAB>why"
  loop_report.py report VARIANT_DIR    # writes summary.tsv, summary.md, elo.svg; prints the table

The gate reads the match's summary.json (first engine: the new net): the GSPRT accepted H1
-> accepted; accepted H0 -> rejected; no decision at the game limit -> accepted only if the
lower end of the 95% Elo interval (Elo - half width, as printed) is above 0.

A variant directory holds gen-0/best.txt (the starting player) and, per generation G >= 1,
gen-G/{selfplay/, train/, match/, gate.txt, best.txt, times.tsv}; files that are not there yet
show as empty cells, so the report can be written at any point.
"""

import json
import math
import os
import re
import sys
import tempfile


def write_atomic(path, text):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def gate(match_dir):
    s = read_json(os.path.join(match_dir, "summary.json"))
    if s is None:
        raise SystemExit(f"loop_report.py: no readable {match_dir}/summary.json")
    if s.get("status") == "interrupted":
        raise SystemExit(f"loop_report.py: the match in {match_dir} was interrupted; rerun it")
    elo = s.get("elo")
    sprt = s.get("sprt") or {}
    verdict = sprt.get("verdict")
    if verdict == "accepted":
        return "accepted", f"GSPRT accepted H1 (LLR {sprt['llr']:.2f} >= {sprt['upper']:.2f})"
    if verdict == "rejected":
        return "rejected", f"GSPRT accepted H0 (LLR {sprt['llr']:.2f} <= {sprt['lower']:.2f})"
    if elo is None:
        return "rejected", "no games"
    lower = elo["elo"] - elo["elo95"]
    if lower > 0:
        return "accepted", f"no GSPRT decision; Elo lower bound {lower:.1f} > 0"
    return "rejected", f"no GSPRT decision; Elo lower bound {lower:.1f} <= 0"


def selfplay_counts(gen_dir):
    """Games and positions of a generation's self-play (summed over shards)."""
    games = positions = 0
    found = False
    for root, _dirs, files in os.walk(os.path.join(gen_dir, "selfplay")):
        if "summary.json" in files:
            s = read_json(os.path.join(root, "summary.json"))
            if s and "stats" in s:
                games += s["stats"].get("games", 0)
                positions += s["stats"].get("positions", 0)
                found = True
    return (games, positions) if found else (None, None)


def train_metrics(gen_dir):
    text = read_text(os.path.join(gen_dir, "train", "metrics.csv"))
    if not text:
        return None
    lines = text.splitlines()
    head = lines[0].split(",")
    if len(lines) < 2:
        return None
    row = dict(zip(head, lines[-1].split(",")))
    row["epochs"] = len(lines) - 1
    return row


def player_name(best, variant_dir):
    if best is None:
        return ""
    if best == "hce":
        return "HCE"
    rel = os.path.relpath(best, variant_dir) if os.path.isabs(best) else best
    m = re.match(r"gen-(\d+)/", rel)
    return f"gen {m.group(1)}" if m else rel


def generations(variant_dir):
    gens = []
    for name in os.listdir(variant_dir):
        m = re.fullmatch(r"gen-(\d+)", name)
        if m and os.path.isdir(os.path.join(variant_dir, name)):
            gens.append(int(m.group(1)))
    return sorted(gens)


def rows(variant_dir):
    out = []
    for g in generations(variant_dir):
        d = os.path.join(variant_dir, f"gen-{g}")
        before = read_text(os.path.join(variant_dir, f"gen-{g - 1}", "best.txt")) if g else None
        after = read_text(os.path.join(d, "best.txt"))
        r = {"gen": g, "player": player_name(before, variant_dir),
             "best_after": player_name(after, variant_dir)}
        r["games"], r["positions"] = selfplay_counts(d)
        window = read_text(os.path.join(d, "window.txt"))
        r["window"] = window or ""
        t = train_metrics(d)
        if t:
            r["train_positions"] = t.get("positions", "")
            r["train_loss"] = float(t["train_loss"])
            r["val_loss"] = float(t["val_loss"])
            r["epochs"] = t["epochs"]
        m = read_json(os.path.join(d, "match", "summary.json"))
        if m and m.get("elo"):
            c = m["counts"]
            r["wdl"] = (c["wins"], c["draws"], c["losses"])
            r["elo"], r["elo95"] = m["elo"]["elo"], m["elo"]["elo95"]
            sp = m.get("sprt")
            r["sprt"] = f"{sp['verdict']} (LLR {sp['llr']:.2f})" if sp else ""
        g_text = read_text(os.path.join(d, "gate.txt"))
        if g_text:
            verdict, _, why = g_text.partition("\t")
            r["accepted"], r["why"] = verdict, why
        secs, times = 0.0, read_text(os.path.join(d, "times.tsv"))
        for line in (times or "").splitlines():
            parts = line.split("\t")
            if len(parts) == 2:
                try:
                    secs += float(parts[1])
                except ValueError:
                    pass
        r["minutes"] = secs / 60.0 if times is not None else None
        out.append(r)
    return out


COLUMNS = ["gen", "player", "games", "positions", "window", "train_positions", "epochs",
           "train_loss", "val_loss", "W", "D", "L", "elo", "elo95", "sprt", "accepted",
           "best_after", "minutes", "why"]


def cell(r, k):
    if k in ("W", "D", "L"):
        wdl = r.get("wdl")
        return "" if wdl is None else str(wdl["WDL".index(k)])
    v = r.get(k)
    if v is None:
        return ""
    if k in ("train_loss", "val_loss"):
        return f"{v:.6f}"
    if k in ("elo", "elo95", "minutes"):
        return f"{v:.1f}"
    return str(v)


def anchors(variant_dir):
    """Direct matches of a best net against generation 0 (anchor-gen-K/summary.json)."""
    out = []
    for name in os.listdir(variant_dir):
        m = re.fullmatch(r"anchor-gen-(\d+)", name)
        s = read_json(os.path.join(variant_dir, name, "summary.json")) if m else None
        if s and s.get("elo") and s.get("status") != "interrupted":
            c = s["counts"]
            out.append({"gen": int(m.group(1)), "wdl": (c["wins"], c["draws"], c["losses"]),
                        "elo": s["elo"]["elo"], "elo95": s["elo"]["elo95"],
                        "games": c["wins"] + c["draws"] + c["losses"],
                        "against": s.get("engines", ["", "generation 0"])[1]})
    return sorted(out, key=lambda a: a["gen"])


def tsv(rs):
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(cell(r, k) for k in COLUMNS) for r in rs]
    return "\n".join(lines) + "\n"


def markdown(rs, title, anchored=()):
    head = ["gen", "self-play by", "games", "positions", "train window", "train loss",
            "val loss", "match W/D/L", "Elo +/- 95%", "GSPRT", "accepted", "best after",
            "minutes"]
    lines = [f"# {title}", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for r in rs:
        wdl = r.get("wdl")
        elo = f"{r['elo']:+.1f} +/- {r['elo95']:.1f}" if "elo" in r else ""
        acc = r.get("accepted", "")
        if r["gen"] == 0:
            acc = "start"
        lines.append("| " + " | ".join([
            str(r["gen"]), r["player"], cell(r, "games"), cell(r, "positions"),
            (f"{r['window']}: {r.get('train_positions', '')}" if r["window"] else ""),
            cell(r, "train_loss"), cell(r, "val_loss"),
            "" if wdl is None else f"{wdl[0]}/{wdl[1]}/{wdl[2]}",
            elo, r.get("sprt", ""), acc, r["best_after"], cell(r, "minutes")]) + " |")
    lines += ["", "Each generation: self-play by the best player so far, train a net on the "
              "window's positions (from the best net, when it is one), match it against the best "
              "(first engine: the new net; Elo is its gain). Accepted: GSPRT H1, or no GSPRT "
              "decision at the game limit and Elo - 95% half width > 0. Train window: the "
              "generations trained on and the positions per epoch left by the trainer's filters "
              "(early plies, in check, noisy best move). Chart: elo.svg.", ""]
    why = [f"- gen {r['gen']}: {r['why']}" for r in rs if r.get("why")]
    if anchored:
        why += ["", "The best net against generation 0 directly (no GSPRT; the chart's squares):", ""]
        why += [f"- gen {a['gen']} vs {a['against']}: W/D/L {a['wdl'][0]}/{a['wdl'][1]}/"
                f"{a['wdl'][2]} ({a['games']} games), Elo {a['elo']:+.1f} +/- {a['elo95']:.1f}"
                for a in anchored]
    return "\n".join(lines + why) + "\n"


def svg(rs, title, anchored=()):
    w, h, pad_l, pad_r, pad_t, pad_b = 640, 400, 60, 30, 40, 50
    pts = [r for r in rs if "elo" in r]
    cum, best, cum_pts = 0.0, 0.0, [(0, 0.0)]
    for r in rs:
        if r["gen"] == 0:
            continue
        if r.get("accepted") == "accepted" and "elo" in r:
            cum += r["elo"]
        if r.get("accepted"):
            cum_pts.append((r["gen"], cum))
    gens = max([r["gen"] for r in rs] + [1])
    vals = [0.0] + [p[1] for p in cum_pts]
    for r in list(pts) + list(anchored):
        vals += [r["elo"] - r["elo95"], r["elo"] + r["elo95"]]
    lo, hi = min(vals), max(vals)
    lo, hi = max(lo, -1000.0), min(hi, 1000.0)
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    span = hi - lo
    lo, hi = lo - 0.05 * span, hi + 0.05 * span

    def x(g):
        return pad_l + (w - pad_l - pad_r) * g / gens

    def y(v):
        v = min(max(v, lo), hi)
        return pad_t + (h - pad_t - pad_b) * (hi - v) / (hi - lo)

    esc = title.replace("&", "&amp;").replace("<", "&lt;")
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{esc}</text>',
         f'<line x1="{pad_l}" y1="{y(0):.1f}" x2="{w - pad_r}" y2="{y(0):.1f}" '
         'stroke="#999" stroke-dasharray="4 3"/>',
         f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{h - pad_b}" stroke="black"/>',
         f'<line x1="{pad_l}" y1="{h - pad_b}" x2="{w - pad_r}" y2="{h - pad_b}" '
         'stroke="black"/>']
    raw = (hi - lo) / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    v = math.ceil(lo / step) * step
    while v <= hi:
        o.append(f'<text x="{pad_l - 5}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
        o.append(f'<line x1="{pad_l - 3}" y1="{y(v):.1f}" x2="{pad_l}" y2="{y(v):.1f}" '
                 'stroke="black"/>')
        v += step
    for g in range(gens + 1):
        o.append(f'<text x="{x(g):.1f}" y="{h - pad_b + 16}" text-anchor="middle">{g}</text>')
    o.append(f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">generation</text>')
    o.append(f'<text x="15" y="{h / 2}" text-anchor="middle" '
             f'transform="rotate(-90 15 {h / 2})">Elo</text>')
    line = " ".join(f"{x(g):.1f},{y(v):.1f}" for g, v in cum_pts)
    o.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    for r in pts:
        colour = "#2ca02c" if r.get("accepted") == "accepted" else "#d62728"
        cx = x(r["gen"])
        o.append(f'<line x1="{cx:.1f}" y1="{y(r["elo"] - r["elo95"]):.1f}" x2="{cx:.1f}" '
                 f'y2="{y(r["elo"] + r["elo95"]):.1f}" stroke="{colour}"/>')
        o.append(f'<circle cx="{cx:.1f}" cy="{y(r["elo"]):.1f}" r="4" fill="{colour}"/>')
    for a in anchored:
        ax = x(a["gen"]) + 8
        o.append(f'<line x1="{ax:.1f}" y1="{y(a["elo"] - a["elo95"]):.1f}" x2="{ax:.1f}" '
                 f'y2="{y(a["elo"] + a["elo95"]):.1f}" stroke="#1f77b4"/>')
        o.append(f'<rect x="{ax - 4:.1f}" y="{y(a["elo"]) - 4:.1f}" width="8" height="8" '
                 'fill="#1f77b4"/>')
    ly = pad_t + 10
    o += [f'<line x1="{pad_l + 10}" y1="{ly}" x2="{pad_l + 30}" y2="{ly}" stroke="#1f77b4" '
          'stroke-width="2"/>',
          f'<text x="{pad_l + 35}" y="{ly + 4}">best net vs generation 0 (sum of accepted '
          'gains)</text>',
          f'<circle cx="{pad_l + 20}" cy="{ly + 16}" r="4" fill="#2ca02c"/>',
          f'<text x="{pad_l + 35}" y="{ly + 20}">new net vs best, 95% interval: accepted</text>',
          f'<circle cx="{pad_l + 20}" cy="{ly + 32}" r="4" fill="#d62728"/>',
          f'<text x="{pad_l + 35}" y="{ly + 36}">rejected</text>']
    if anchored:
        o += [f'<rect x="{pad_l + 16}" y="{ly + 44}" width="8" height="8" fill="#1f77b4"/>',
              f'<text x="{pad_l + 35}" y="{ly + 52}">best net vs generation 0, direct match</text>']
    o.append("</svg>")
    return "\n".join(o) + "\n"


def report(variant_dir):
    rs = rows(variant_dir)
    name = os.path.basename(os.path.normpath(variant_dir))
    title = f"kage gated loop: {name}"
    anchored = anchors(variant_dir)
    md = markdown(rs, title, anchored)
    write_atomic(os.path.join(variant_dir, "summary.tsv"), tsv(rs))
    write_atomic(os.path.join(variant_dir, "summary.md"), md)
    write_atomic(os.path.join(variant_dir, "elo.svg"), svg(rs, title, anchored))
    return md


def main(argv):
    if len(argv) == 3 and argv[1] == "gate":
        verdict, why = gate(argv[2])
        print(f"{verdict}\t{why}")
    elif len(argv) == 3 and argv[1] == "report":
        if not os.path.isdir(argv[2]):
            raise SystemExit(f"loop_report.py: {argv[2]} is not a directory")
        sys.stdout.write(report(argv[2]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
