#!/usr/bin/python3
"""Report of bench/recompute/run_recompute_bench.sh: parses the logs its
manifest lists, prints the tables, writes the markdown file and the depth
plot, and says which targets are met.

  rc_report.py MANIFEST

MANIFEST is tab-separated, one record a line:
  KEY VALUE                      a setting (see SETTINGS)
  mem PART FAMILY DEPTH VARIANT STDOUT LOG RC
                                 a `caffe mem -phase TRAIN -level 2` run;
                                 PART main (ResNet-50 at BATCH), sweep
                                 (depth sweep) or seg (checkpoint count only);
                                 FAMILY resnet or plain; VARIANT mem
                                 (sharing only) or sqrt (with recompute)
  time VARIANT RUN LOG TIMEFILE RC
                                 a `caffe time -phase TRAIN` run under
                                 /usr/bin/time -v (TIMEFILE "-" without it);
                                 VARIANT plain (no mem_param), mem or sqrt
  search WHO STDOUT RC           a batch search: WHO caffe (rc_nets.py
                                 search), torch0 / torchS (torch_peak.py
                                 search without / with checkpointing)
"""
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "memory"))
from mem_bench import read_text  # noqa: E402  (shared log reading)

MIB = 1048576.0
SETTINGS = ("batch", "iters", "runs", "threads", "depth_batch", "plain_batch",
            "budget_gb", "budget_bytes", "commit", "date", "nproc", "cpu",
            "mem_total", "load_start", "load_end", "out", "plot", "parts")
# Targets of the issue.
SQRT_PEAK_MAX = 0.30      # SQRT peak / sharing-only plan, ResNet-50
SQRT_TIME_MAX = 1.35      # SQRT time / sharing-only time, ResNet-50


def fail(msg):
    sys.stderr.write("rc_report.py: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------- parsing

def parse_mem(out_path, log_path):
    """Figures of one `caffe mem` run, in bytes, or None if incomplete.

    The report prints totals (activations + parameters + layer buffers) in
    bytes; the Net's log line gives the plan's activation bytes exactly, so
    fixed = planned total - logged plan, and every activation figure below
    is a total minus that fixed part."""
    text = read_text(out_path)

    def num(pattern):
        m = re.search(pattern, text)
        return int(m.group(1)) if m else None

    r = {"caffe_total": num(r"Caffe 1\.0 \(unoptimized\):\s+(\d+)"),
         "planned_total": num(r"planned, level 2:\s+(\d+)"),
         "measured_plain": num(r"measured peak, unoptimized:\s+(\d+)"),
         "measured_planned": num(r"measured peak, level 2:\s+(\d+)")}
    logged = re.search(r"Memory plan for '.*?' \(TRAIN, level 2\): (\d+) "
                       r"bytes of activations and gradients instead of (\d+)",
                       read_text(log_path))
    if None in r.values() or not logged:
        return None
    r["plan_act"] = int(logged.group(1))
    fixed = r["planned_total"] - r["plan_act"]
    r["fixed"] = fixed
    r["unopt_act"] = r["caffe_total"] - fixed
    r["measured_act"] = r["measured_planned"] - fixed
    r["measured_plain_act"] = r["measured_plain"] - fixed
    ck = re.search(r"recomputation: (\d+) checkpoints \((.*)\)", text)
    r["checkpoints"] = int(ck.group(1)) if ck else 0
    r["checkpoint_names"] = ck.group(2) if ck else ""
    without = num(r"planned at level 2 without recomputation:\s+(\d+)")
    r["without_act"] = without - fixed if without is not None else r["plan_act"]
    extra = re.search(r"extra forward work: ([\d.]+)%", text)
    r["extra_pct"] = float(extra.group(1)) if extra else 0.0
    return r


def parse_time(log_path):
    text = read_text(log_path)
    fb = re.findall(r"Average Forward-Backward: *([\d.eE+-]+) ms\.", text)
    rc = re.findall(r"Average Recompute \(inside Backward\): *([\d.eE+-]+) "
                    r"ms\.", text)
    return (float(fb[-1]) if fb else None, float(rc[-1]) if rc else 0.0)


def parse_rss(path):
    m = re.findall(r"Maximum resident set size \(kbytes\): *(\d+)",
                   read_text(path))
    return int(m[-1]) * 1024 if m else None


def parse_search(path):
    """{'probes': [(variant, batch, bytes)], 'results': {variant: {...}}}
    from the PROBE / RESULT lines of rc_nets.py or torch_peak.py."""
    probes, results = [], {}
    for line in read_text(path).splitlines():
        f = line.split()
        if len(f) < 3 or f[0] not in ("PROBE", "RESULT"):
            continue
        if f[1] == "caffe":
            variant, rest = f[2], f[3:]
        else:
            kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
            variant = "seg%s" % kv.get("segments", "?")
            rest = f[2:]
        if f[0] == "PROBE" and f[1] == "caffe" and len(rest) == 2:
            probes.append((variant, int(rest[0]), int(rest[1])))
        elif f[0] == "PROBE":
            probes.append((variant, int(kv["batch"]), kv))
        else:
            results[variant] = dict(x.split("=", 1) for x in rest if "=" in x)
    return {"probes": probes, "results": results}


def read_manifest(path):
    settings, mems, times, searches = {}, [], [], []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "mem" and len(p) == 8:
                mems.append(p[1:])
            elif p[0] == "time" and len(p) == 6:
                times.append(p[1:])
            elif p[0] == "search" and len(p) == 4:
                searches.append(p[1:])
            elif len(p) == 2:
                settings[p[0]] = p[1]
    missing = [k for k in SETTINGS if k not in settings]
    if missing:
        fail("%s: setting(s) %s missing" % (path, ", ".join(missing)))
    return settings, mems, times, searches


# ---------------------------------------------------------------- helpers

def mib(x):
    return "n/a" if x is None else "%.1f" % (x / MIB)


def pct(x):
    return "n/a" if x is None else "%.1f%%" % (100.0 * x)


def ratio(a, b):
    return a / b if a is not None and b else None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def verdict(value, ok):
    if value is None:
        return "n/a (not measured)"
    return "met" if ok(value) else "NOT met"


def loglog_slope(points):
    """Least-squares slope of log(bytes) against log(depth): 1 is linear
    growth, 0.5 square-root growth. None with fewer than two depths."""
    pts = [(math.log(d), math.log(b)) for d, b in points if b and b > 0]
    if len(set(x for x, _ in pts)) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


# ---------------------------------------------------------------- sections

def mem_runs(mems, part):
    """{(family, depth, variant): parsed} of one part's successful runs."""
    out = {}
    for p, family, depth, variant, stdout, log, rc in mems:
        if p == part and rc == "0":
            out[(family, int(depth), variant)] = parse_mem(stdout, log)
    return out


def main_section(s, mems, times):
    runs = mem_runs(mems, "main")
    mem = runs.get(("resnet", 50, "mem"))
    sq = runs.get(("resnet", 50, "sqrt"))
    sq2 = runs.get(("resnet", 50, "sqrt2"))
    share_plan = mem["plan_act"] if mem else (sq["without_act"] if sq else None)
    lines = ["## 1. ResNet-50, batch %s: memory and time\n" % s["batch"]]
    lines.append("| configuration | planned act.+grad. MiB | % of sharing-only "
                 "plan | measured peak act.+grad. MiB | % of sharing-only plan "
                 "| measured peak, whole net MiB |")
    lines.append("| --- |" + " ---: |" * 5)
    rows = []
    base = mem or sq
    if base:
        rows.append(("Caffe 1.0 layout (no mem_param)", base["unopt_act"],
                     base["measured_plain_act"], base["measured_plain"]))
    if mem:
        rows.append(("mem_param, sharing only", mem["plan_act"],
                     mem["measured_act"], mem["measured_planned"]))
    if sq:
        rows.append(("mem_param + recompute SQRT", sq["plan_act"],
                     sq["measured_act"], sq["measured_planned"]))
    if sq2:
        rows.append(("mem_param + recompute SQRT levels: 2", sq2["plan_act"],
                     sq2["measured_act"], sq2["measured_planned"]))
    for name, plan, meas, total in rows:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            name, mib(plan), pct(ratio(plan, share_plan)), mib(meas),
            pct(ratio(meas, share_plan)), mib(total)))
    notes = []
    if sq:
        notes.append("SQRT chose %d checkpoints (%s); extra forward work "
                     "%.1f%% of one forward pass." %
                     (sq["checkpoints"], sq["checkpoint_names"],
                      sq["extra_pct"]))
        if mem:
            notes.append("Whole net (parameters and layer buffers "
                         "included): the measured peak with SQRT is %s of "
                         "the sharing-only planned total." % pct(ratio(
                             sq["measured_planned"], mem["planned_total"])))
        if mem and sq["without_act"] != mem["plan_act"]:
            notes.append("**Inconsistency:** the SQRT run's \"planned without "
                         "recomputation\" (%d bytes of activations) differs "
                         "from the sharing-only plan (%d bytes)." %
                         (sq["without_act"], mem["plan_act"]))
        if sq["fixed"] != (mem or sq)["fixed"]:
            notes.append("**Inconsistency:** parameters and layer buffers "
                         "differ between the two `caffe mem` runs (%d vs %d "
                         "bytes)." % (sq["fixed"], mem["fixed"]))
    lines.append("")
    for n in notes:                 # each its own paragraph
        lines += [n, ""]

    # time
    per = {}
    for variant, _, log, tfile, rc in times:
        if rc != "0":
            continue
        ms, rec = parse_time(log)
        per.setdefault(variant, []).append(
            (ms, rec, parse_rss(tfile) if tfile != "-" else None))
    t = {v: (median([x[0] for x in xs]), median([x[1] for x in xs]),
             median([x[2] for x in xs])) for v, xs in per.items()}
    share_ms = t.get("mem", (None,))[0]
    lines.append("\n| configuration | ms / iteration (fwd+bwd) | of which "
                 "recompute ms | time / sharing-only | peak RSS MiB |")
    lines.append("| --- |" + " ---: |" * 4)
    names = {"plain": "Caffe 1.0 layout (no mem_param)",
             "mem": "mem_param, sharing only",
             "sqrt": "mem_param + recompute SQRT",
             "sqrt2": "mem_param + recompute SQRT levels: 2"}
    for v in ("plain", "mem", "sqrt", "sqrt2"):
        if v not in t:
            continue
        ms, rec, rss = t[v]
        lines.append("| %s | %s | %s | %s | %s |" % (
            names[v], "n/a" if ms is None else "%.1f" % ms,
            "%.1f" % rec if v.startswith("sqrt") and rec is not None
            else "-",
            "n/a" if ratio(ms, share_ms) is None
            else "%.3f" % ratio(ms, share_ms), mib(rss)))
    lines.append("")
    sq_ms = t.get("sqrt", (None,))[0]
    goals = [
        ("ResNet-50 b%s: planned peak with SQRT <= %d%% of the sharing-only "
         "plan" % (s["batch"], SQRT_PEAK_MAX * 100),
         sq and ratio(sq["plan_act"], share_plan), SQRT_PEAK_MAX),
        ("ResNet-50 b%s: measured peak with SQRT <= %d%% of the sharing-only "
         "plan" % (s["batch"], SQRT_PEAK_MAX * 100),
         sq and ratio(sq["measured_act"], share_plan), SQRT_PEAK_MAX),
    ]
    targets = ["%s: %s (%s)" % (g, verdict(v, lambda x: x <= lim), pct(v))
               for g, v, lim in goals]
    tr = ratio(sq_ms, share_ms)
    targets.append("ResNet-50 b%s: time per iteration with SQRT at most %d%% "
                   "above sharing only: %s (%s)" % (
                       s["batch"], round((SQRT_TIME_MAX - 1) * 100),
                       verdict(tr, lambda x: x <= SQRT_TIME_MAX),
                       "n/a" if tr is None else "%+.1f%%" % (100 * (tr - 1))))
    return lines, targets


def sweep_section(s, mems):
    runs = mem_runs(mems, "sweep")
    families = [("resnet", "ResNet (50, 101, 152)", s["depth_batch"]),
                ("plain", "plain chain (conv3x3 + ReLU, 32 channels, 32x32)",
                 s["plain_batch"])]
    lines = ["## 2. Depth sweep\n"]
    lines.append("| net | depth | batch | sharing-only plan MiB | SQRT plan MiB "
                 "| SQRT / sharing | measured sharing MiB | measured SQRT MiB "
                 "| checkpoints | extra fwd | sharing / depth KiB | SQRT / "
                 "sqrt(depth) KiB |")
    lines.append("| --- |" + " ---: |" * 11)
    fits, targets, series = [], [], {}
    for fam, title, batch in families:
        depths = sorted(set(d for f, d, _ in runs if f == fam))
        if not depths:
            continue
        cols = {"share": [], "sqrt": [], "mshare": [], "msqrt": []}
        for d in depths:
            m, q = runs.get((fam, d, "mem")), runs.get((fam, d, "sqrt"))
            share = m["plan_act"] if m else (q["without_act"] if q else None)
            plan = q["plan_act"] if q else None
            ms = m["measured_act"] if m else None
            mq = q["measured_act"] if q else None
            for k, v in (("share", share), ("sqrt", plan), ("mshare", ms),
                         ("msqrt", mq)):
                if v:
                    cols[k].append((d, v))
            name = "ResNet-%d" % d if fam == "resnet" else "plain-%d" % d
            lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | "
                         "%s | %s |" % (
                             name, d, batch, mib(share), mib(plan),
                             pct(ratio(plan, share)), mib(ms), mib(mq),
                             q["checkpoints"] if q else "n/a",
                             "%.0f%%" % q["extra_pct"] if q else "n/a",
                             "n/a" if share is None else "%.0f" %
                             (share / d / 1024.0),
                             "n/a" if plan is None else "%.0f" %
                             (plan / math.sqrt(d) / 1024.0)))
        series[fam] = (title, batch, cols)
        sl = {k: loglog_slope(v) for k, v in cols.items()}
        grow = {}
        for k, v in cols.items():
            grow[k] = (v[-1][1] / v[0][1]) if len(v) > 1 else None
        dr = depths[-1] / float(depths[0])
        fits.append("| %s | %d -> %d (x%.2f) | %s | %s | %s | %s |" % (
            title, depths[0], depths[-1], dr,
            *["n/a" if sl[k] is None else "%.2f (x%.2f)" % (sl[k], grow[k])
              for k in ("share", "sqrt", "mshare", "msqrt")]))
        ok = (sl["sqrt"] is not None and sl["sqrt"] < 1.0 and
              (sl["share"] is None or sl["sqrt"] < sl["share"]))
        okm = (sl["msqrt"] is not None and sl["msqrt"] < 1.0 and
               (sl["mshare"] is None or sl["msqrt"] < sl["mshare"]))
        targets.append(
            "%s: peak with SQRT grows sublinearly with depth (log-log slope "
            "< 1 and below sharing only): planned %s (slope %s vs %s), "
            "measured %s (slope %s vs %s)" % (
                title, "met" if ok else ("n/a" if sl["sqrt"] is None
                                         else "NOT met"),
                fmt(sl["sqrt"]), fmt(sl["share"]),
                "met" if okm else ("n/a" if sl["msqrt"] is None
                                   else "NOT met"),
                fmt(sl["msqrt"]), fmt(sl["mshare"])))
    lines.append("")
    lines.append("Growth with depth: least-squares slope of log(bytes) "
                 "against log(depth) (1 = linear, 0.5 = square root), and in "
                 "brackets the factor from the smallest to the largest "
                 "depth.\n")
    lines.append("| net | depths | sharing plan | SQRT plan | measured "
                 "sharing | measured SQRT |")
    lines.append("| --- | --- |" + " ---: |" * 4)
    lines += fits
    lines.append("")
    return lines, targets, series


def fmt(x):
    return "n/a" if x is None else "%.2f" % x


def plot(series, path):
    if not series or not path:
        return "no plot (no sweep data)"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker as ticker
    except ImportError as e:
        return "no plot (matplotlib: %s)" % e
    fig, axes = plt.subplots(1, len(series), figsize=(6 * len(series), 4.5))
    if len(series) == 1:
        axes = [axes]
    styles = (("share", "sharing only, planned", "C0", "-", "o"),
              ("sqrt", "SQRT recompute, planned", "C3", "-", "o"),
              ("mshare", "sharing only, measured", "C0", ":", "x"),
              ("msqrt", "SQRT recompute, measured", "C3", ":", "x"))
    for ax, (fam, (title, batch, cols)) in zip(axes, series.items()):
        for key, label, color, ls, mk in styles:
            pts = cols[key]
            if pts:
                ax.plot([d for d, _ in pts], [b / MIB for _, b in pts],
                        color=color, linestyle=ls, marker=mk, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        # Plain numbers on the axes: the depths themselves, and 1-2-5 steps.
        ax.set_xticks(sorted(set(d for pts in cols.values() for d, _ in pts)))
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("depth (layers)")
        ax.set_ylabel("activations + gradients at peak (MiB)")
        ax.set_title("%s, batch %s" % (title, batch), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def budget_section(s, searches):
    lines = ["## 3. Largest ResNet-50 batch within %s GiB of activations and "
             "gradients\n" % s["budget_gb"]]
    lines.append("| framework | configuration | largest batch | bytes there "
                 "MiB | next batch (MiB) | how measured | probes |")
    lines.append("| --- | --- | ---: | ---: | --- | --- | ---: |")
    best = {}
    for who, out, rc in searches:
        parsed = parse_search(out)
        for variant, r in sorted(parsed["results"].items()):
            if who == "caffe":
                config = {"mem": "mem_param, sharing only",
                          "sqrt": "mem_param + recompute SQRT",
                          "sqrt2": "mem_param + recompute SQRT levels: 2"
                          }.get(variant, variant)
                how = "plan (`Net.memory_report()`)"
                fw = "LeanCaffe"
            else:
                segs = variant[3:]
                config = ("no checkpointing" if segs == "0" else
                          "checkpoint_sequential, %s segments" % segs)
                how = ("allocator peak (profiler)" if r.get("metric") ==
                       "alloc" else "peak RSS growth")
                if r.get("best_rss") not in (None, "None"):
                    how += "; RSS growth there %s MiB" % mib(
                        int(r["best_rss"]))
                fw = "PyTorch %s" % r.get("torch", "")
            b = r.get("best")
            exact = r.get("exact") == "1"
            if b == "None":
                largest = "none (even %s is over)" % r.get("over")
            elif r.get("over") in (None, "None"):
                largest = ">= %s (the search's upper bound)" % b
            else:
                largest = b + ("" if exact else " (bracket not closed)")
            nxt = ("-" if r.get("over") in (None, "None") else "%s (%s)" % (
                r["over"], mib(int(r["over_bytes"]))))
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                fw, config, largest,
                "n/a" if r.get("best_bytes") in (None, "None")
                else mib(int(r["best_bytes"])), nxt, how, r.get("probes")))
            best[(who, variant)] = None if b in (None, "None") else int(b)
        if rc != "0" and not parsed["results"]:
            lines.append("| %s | (search failed, exit %s) | n/a | | | | |" %
                         (who, rc))
    lines.append("")
    gains = []
    c0, c1 = best.get(("caffe", "mem")), best.get(("caffe", "sqrt"))
    if c0 and c1:
        gains.append("LeanCaffe: SQRT fits %.2fx the batch of sharing only." %
                     (c1 / float(c0)))
    c2 = best.get(("caffe", "sqrt2"))
    if c0 and c2:
        gains.append("LeanCaffe: SQRT with levels: 2 fits %.2fx the batch of "
                     "sharing only." % (c2 / float(c0)))
    c1 = max(c1 or 0, c2 or 0) or None  # the best recomputation
    t0 = [v for (w, k), v in best.items() if w == "torch0"]
    t1 = [v for (w, k), v in best.items() if w == "torchS"]
    if t0 and t1 and t0[0] and t1[0]:
        gains.append("PyTorch: checkpoint_sequential fits %.2fx the batch of "
                     "no checkpointing." % (t1[0] / float(t0[0])))
    if c1 and t1 and t1[0]:
        gains.append("With recomputation, LeanCaffe's batch is %.2fx "
                     "PyTorch's; without, %s." % (
                         c1 / float(t1[0]),
                         "%.2fx" % (c0 / float(t0[0])) if c0 and t0 and t0[0]
                         else "n/a"))
    lines += gains
    lines.append("")
    return lines


# ---------------------------------------------------------------- report

def report(manifest):
    s, mems, times, searches = read_manifest(manifest)
    parts = s["parts"].split()
    doc = ["# Recomputation benchmark (mem_param.recompute)\n"]
    doc.append(
        "Generated by `bench/recompute/run_recompute_bench.sh` on %s, commit "
        "`%s`. Machine: %s, `nproc` %s, %s of memory; %s thread(s) "
        "(OMP/OpenBLAS/MKL and torch); load average %s at the start, %s at "
        "the end (timings are only comparable on an otherwise idle "
        "machine).\n" % (s["date"], s["commit"], s["cpu"], s["nproc"],
                         s["mem_total"], s["threads"], s["load_start"],
                         s["load_end"]))
    targets, body, plot_note = [], [], None
    if "main" in parts:
        lines, t = main_section(s, mems, times)
        body += lines
        targets += t
    if "sweep" in parts:
        lines, t, series = sweep_section(s, mems)
        plot_note = plot(series, s["plot"])
        if plot_note is None:
            rel = os.path.relpath(s["plot"], os.path.dirname(
                os.path.abspath(s["out"])))
            lines.append("![planned and measured peak against depth](%s)\n"
                         % rel)
        else:
            lines.append("(%s)\n" % plot_note)
        body += lines
        targets += t
    if "budget" in parts:
        body += budget_section(s, searches)
    doc.append("## Targets\n")
    doc += ["- " + t for t in targets] or ["- (no part run)"]
    doc.append("")
    doc += body
    doc.append(METHOD % s)
    text = "\n".join(doc) + "\n"
    print(text)
    os.makedirs(os.path.dirname(os.path.abspath(s["out"])), exist_ok=True)
    with open(s["out"], "w") as f:
        f.write(text)
    wrote_plot = "sweep" in parts and plot_note is None
    sys.stderr.write("rc_report.py: wrote %s%s\n" % (
        s["out"], " and " + s["plot"] if wrote_plot else ""))


METHOD = """## Columns and method

- **planned act.+grad.**: the bytes of activations, their gradients and the
  layers' kept memory that the plan places (the Net's log line "Memory plan
  for ...: N bytes of activations and gradients"); parameters and other
  layer buffers are left out of every column except "whole net".
  **Sharing-only plan**: `mem_param { level: 2 release: STATIC }` without
  recomputation; **SQRT**: the same plus `recompute { auto: SQRT }`. The
  Caffe 1.0 row is every blob's data and diff held separately (what Caffe
  1.0 allocates).
- **measured peak**: the most host bytes held at once while `caffe mem`
  builds the net and runs one forward and backward pass, from LeanCaffe's
  own allocation counters; "act.+grad." subtracts the parameters and layer
  buffers (planned whole-net total minus the planned activations), "whole
  net" does not. `caffe mem` runs one iteration of the net without
  mem_param and one with the configuration for these peaks.
- **ms / iteration**: median over %(runs)s runs of `caffe time -phase TRAIN
  -iterations %(iters)s` ("Average Forward-Backward"), each run after one
  untimed warm-up iteration; the three configurations alternate run by run.
  **recompute ms**: "Average Recompute (inside Backward)", part of the
  backward time. **peak RSS**: `/usr/bin/time -v` of those runs (glibc's
  default malloc settings).
- **Depth sweep**: `models/<resnet>/train_val.prototxt` at batch
  %(depth_batch)s and chains from `models/gen_models.py plain` at batch
  %(plain_batch)s (3x32x32 input, 32 channels; the deploy net's Input made
  DummyData with a label and its Softmax a SoftmaxWithLoss), each through
  `caffe mem` once with sharing only and once with SQRT. "sharing / depth"
  and "SQRT / sqrt(depth)" stay flat when growth is linear resp. square
  root. The plot shows the same figures on log-log axes.
- **Budget**: %(budget_gb)s GiB = %(budget_bytes)s bytes. LeanCaffe: the
  planned activations and gradients of ResNet-50 (DummyData) at a batch,
  read from pycaffe's `Net.memory_report()["planned_bytes"]` after building
  the net (nothing runs). PyTorch: `bench/torch_step.py`'s ResNet-50 (the
  Caffe layout in torch.nn) in a fresh process per batch, one training step
  (forward, cross-entropy, backward; parameter gradients allocated
  beforehand, no optimizer) after a batch-1 warm-up step; the peak is the
  allocator's (torch.profiler `profile_memory`: highest running total of
  the tensor bytes allocated during the step), and the RSS growth is shown
  beside it (glibc with `MALLOC_MMAP_THRESHOLD_=131072`, so freed blocks
  leave the resident set). checkpoint_sequential runs with as many segments
  as LeanCaffe's SQRT plan has (checkpoints + 1), splitting the model's 22
  children into equal chunks; as PyTorch 1.13's reentrant checkpointing
  needs it, the input requires a gradient there. Each search brackets the
  largest batch with secant steps (memory is almost linear in the batch)
  and bisection, so the largest batch is exact when the bracket closed.
"""


def main(argv):
    if len(argv) != 1:
        fail("usage: rc_report.py MANIFEST")
    report(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
