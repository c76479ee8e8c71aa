#!/usr/bin/env python3
"""coverage.py - how much of the guest's mlx5 drivers the device exercises (scripts/coverage.sh).

  coverage.py map SRC_DIR OUT.tsv
      Function-to-file map of mlx5_core and mlx5_ib from the kernel's source (Debian's
      linux-source of the guest kernel, unpacked under SRC_DIR): every function defined in
      drivers/net/ethernet/mellanox/mlx5/core/ (mlx5_core), drivers/infiniband/hw/mlx5/
      (mlx5_ib) and the headers they include (include/linux/mlx5/, include/rdma/, ...).
      The modules Debian ships are stripped (no DWARF, no STT_FILE symbols), so their symbol
      tables cannot name a function's file; the source can.

  coverage.py report COV_DIR MAP.tsv [--json OUT] [--markdown OUT] [--floor FILE]
      Reads the .cov files scripts/guest-run.py wrote (MLX5T_COV_DIR): per guest, the
      functions that ran ("hit") and the traceable functions of each module ("fn", from
      available_filter_functions). Prints, for the InfiniBand runs, the Ethernet runs and all,
      per module and per source file: functions run / traceable functions. With --floor, exits
      1 if a module's count of functions run falls below the floor's ("PORT MODULE N" lines).

What counts: a function is "run" if ftrace's function tracer saw it called at least once while
the module was loaded (functions of the modules' init sections are freed after loading and are
not in available_filter_functions, so they count in neither figure). Names with a compiler
suffix (foo.isra.0, foo.cold) are mapped to the file of foo.
"""
import argparse
import collections
import json
import os
import re
import sys

MODULES = {
    "mlx5_core": ["drivers/net/ethernet/mellanox/mlx5/core/"],
    "mlx5_ib": ["drivers/infiniband/hw/mlx5/"],
}
HEADERS = ["include/linux/mlx5/", "include/rdma/", "include/linux/"]

DEF = re.compile(r"(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:\w+(?:\([^()]*\))?\s*)*$", re.S)
NOT_FN = {"if", "for", "while", "switch", "return", "sizeof", "__attribute__", "typeof"}


def strip_c(text):
    """Comments, strings and preprocessor lines out; newlines kept."""
    text = re.sub(r"\\\n", " ", text)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "\n".join("" if ln.lstrip().startswith("#") else ln
                     for ln in "".join(out).split("\n"))


def functions_of(path):
    """Names of the functions a C file defines (at brace depth 0: NAME(...) ... {)."""
    try:
        text = strip_c(open(path, errors="replace").read())
    except OSError:
        return []
    names, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                head = text[start:i].strip()
                m = DEF.search(head)
                if m and "=" not in head and m.group(1) not in NOT_FN:
                    names.append(m.group(1))
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
    return names


def build_map(src, out):
    rows = []
    for mod, dirs in MODULES.items():
        for d in dirs + HEADERS:
            base = os.path.join(src, d)
            recursive = d in dirs or d != "include/linux/"
            for dirpath, _, files in os.walk(base):
                if not recursive and dirpath != base.rstrip("/"):
                    continue
                for f in sorted(files):
                    if not f.endswith((".c", ".h")):
                        continue
                    p = os.path.join(dirpath, f)
                    rel = os.path.relpath(p, src)
                    for name in functions_of(p):
                        rows.append((mod, name, rel))
    if not rows:
        sys.exit(f"coverage.py: no function definitions found under {src}")
    with open(out, "w") as o:
        o.write("# module\tfunction\tfile (coverage.py map)\n")
        for r in rows:
            o.write("\t".join(r) + "\n")


def load_map(path):
    """module -> name -> file; a module's own sources win over headers, the first over later."""
    m = collections.defaultdict(dict)
    for line in open(path):
        if line.startswith("#"):
            continue
        mod, name, f = line.rstrip("\n").split("\t")
        own = any(f.startswith(d) for d in MODULES[mod])
        cur = m[mod].get(name)
        if cur is None or (own and not any(cur.startswith(d) for d in MODULES[mod])):
            m[mod][name] = f
    return m


def short(path):
    for dirs in MODULES.values():
        for d in dirs:
            if path.startswith(d):
                return path[len(d):]
    return path


def report(args):
    fmap = load_map(args.map)
    fns = collections.defaultdict(set)          # module -> traceable functions
    hits = {"ib": set(), "eth": set()}          # function names run
    runs = collections.Counter()
    lost = 0
    for f in sorted(os.listdir(args.cov_dir)):
        if not f.endswith(".cov"):
            continue
        port = "ib"
        for line in open(os.path.join(args.cov_dir, f)):
            w = line.split()
            if not w:
                continue
            if w[0] == "port":
                port = w[1]
                runs[port] += 1
            elif w[0].startswith("lost=") and w[0][5:].isdigit():
                lost += int(w[0][5:])
            elif w[0] == "hit" and len(w) > 1:
                hits[port].add(w[1])
            elif w[0] == "fn" and len(w) > 2:
                fns[w[2].strip("[]")].add(w[1])
    if not fns:
        sys.exit(f"coverage.py: no coverage data in {args.cov_dir} (did the guests run with "
                 "mlx5t.cov=1 and MLX5T_COV_DIR set?)")
    hits["all"] = hits["ib"] | hits["eth"]
    ports = ["ib", "eth", "all"]
    res = {"runs": dict(runs), "lost_events": lost, "modules": {}}
    for mod in MODULES:
        total = fns.get(mod, set())
        byfile = collections.defaultdict(lambda: {"total": 0, **{p: 0 for p in ports}})
        for fn in total:
            base = fn.split(".")[0]
            fl = short(fmap.get(mod, {}).get(base, "(no definition: macro-generated)"))
            byfile[fl]["total"] += 1
            for p in ports:
                byfile[fl][p] += fn in hits[p]
        res["modules"][mod] = {
            "total": len(total),
            **{p: sum(fn in hits[p] for fn in total) for p in ports},
            "files": dict(sorted(byfile.items())),
        }
    if args.json:
        with open(args.json, "w") as o:
            json.dump(res, o, indent=1, sort_keys=True)
    pct = lambda a, b: f"{100.0 * a / b:5.1f}%" if b else "   - "
    print(f"driver coverage: functions run / traceable functions "
          f"({runs['ib']} InfiniBand-port guests, {runs['eth']} Ethernet-port guests; "
          f"{lost} trace events lost)")
    print(f"{'module':<12} {'InfiniBand':>18} {'Ethernet':>18} {'all':>18}")
    for mod, r in res["modules"].items():
        cells = [f"{r[p]:>5}/{r['total']:<5} {pct(r[p], r['total'])}" for p in ports]
        print(f"{mod:<12} " + " ".join(f"{c:>18}" for c in cells))
    if args.files:
        for mod, r in res["modules"].items():
            print(f"\n{mod}: per file (run on the InfiniBand port / Ethernet port / either, of "
                  "traceable)")
            for fl, c in r["files"].items():
                print(f"  {fl:<44} {c['ib']:>4} {c['eth']:>4} {c['all']:>4} / {c['total']:<4} "
                      f"{pct(c['all'], c['total'])}")
    if args.markdown:
        with open(args.markdown, "w") as o:
            o.write("| module | InfiniBand port | Ethernet port | either |\n|---|---|---|---|\n")
            for mod, r in res["modules"].items():
                o.write(f"| {mod} | " + " | ".join(
                    f"{r[p]} / {r['total']} ({pct(r[p], r['total']).strip()})" for p in ports)
                    + " |\n")
            for mod, r in res["modules"].items():
                o.write(f"\n{mod}, per source file (functions run on the InfiniBand port, the "
                        "Ethernet port, either, of the file's traceable functions):\n\n"
                        "| file | IB | Eth | either | of | % |\n|---|---|---|---|---|---|\n")
                for fl, c in r["files"].items():
                    o.write(f"| {fl} | {c['ib']} | {c['eth']} | {c['all']} | {c['total']} | "
                            f"{pct(c['all'], c['total']).strip()} |\n")
    if args.floor:
        bad = []
        for line in open(args.floor):
            w = line.split()
            if len(w) != 3 or w[0].startswith("#"):
                continue
            port, mod, floor = w[0], w[1], int(w[2])
            got = res["modules"].get(mod, {}).get(port, 0)
            status = "ok" if got >= floor else "BELOW THE FLOOR"
            print(f"floor {port} {mod}: {got} functions run, floor {floor}: {status}")
            if got < floor:
                bad.append(f"{port} {mod}")
        if bad:
            print(f"coverage.py: coverage fell below the floor ({', '.join(bad)}): a driver "
                  "path the device used to reach is no longer taken", file=sys.stderr)
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("map")
    m.add_argument("src")
    m.add_argument("out")
    r = sub.add_parser("report")
    r.add_argument("cov_dir")
    r.add_argument("map")
    r.add_argument("--json")
    r.add_argument("--markdown")
    r.add_argument("--floor")
    r.add_argument("--files", action="store_true", help="print the per-file table too")
    args = ap.parse_args()
    if args.cmd == "map":
        build_map(args.src, args.out)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
