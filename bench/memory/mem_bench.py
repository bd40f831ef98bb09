#!/usr/bin/python3
"""Helper of bench/memory/run_memory_bench.sh: builds the benchmark nets and
turns the raw logs into the markdown report.

  mem_bench.py nets NET BATCH OUTDIR
      Reads models/NET/train_val.prototxt and writes, in OUTDIR,
        NET_plain.prototxt  every Data layer replaced by DummyData with the
                            same tops at BATCH (random images, labels all 1),
                            without mem_param;
        NET_mem.prototxt    the same with mem_param { optimize_train: true
                            optimize_test: true level: 2 release: STATIC };
        empty.caffemodel    a NetParameter with no layers: `caffe test` needs
                            weights, and copying none leaves the fillers'.
  mem_bench.py report MANIFEST
      MANIFEST is the tab-separated list the shell script wrote (see
      read_manifest); prints the table and writes the markdown file it names.

Only Debian's /usr/bin/python3 is meant to run this (it needs the generated
python/caffe/proto/caffe_pb2.py and google.protobuf).
"""
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Appended: a PYTHONPATH given (a sanitizer build's package) wins.
sys.path.append(os.path.join(ROOT, "python"))

MIB = 1048576.0
# Input image (channels, size) of the nets whose Data layer does not crop.
INPUT = {"lenet": (1, 28), "cifar10_quick": (3, 32)}
# Nets the training target (activations + gradients <= 45%) is set for.
TRAIN_TARGET_NETS = ("googlenet", "vgg16", "resnet50")


def fail(msg):
    sys.stderr.write("mem_bench.py: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------- nets

def make_nets(net, batch, outdir):
    try:
        from caffe.proto import caffe_pb2
        from google.protobuf import text_format
    except ImportError as e:
        fail("cannot import caffe_pb2 (%s); generate python/caffe/proto/"
             "caffe_pb2.py with protoc first" % e)
    src = os.path.join(ROOT, "models", net, "train_val.prototxt")
    if not os.path.isfile(src):
        fail("%s not found" % src)
    param = caffe_pb2.NetParameter()
    with open(src) as f:
        text_format.Merge(f.read(), param)
    replaced = 0
    for layer in param.layer:
        if layer.type != "Data":
            continue
        crop = layer.transform_param.crop_size
        if crop:
            channels, size = INPUT.get(net, (3, crop))[0], crop
        elif net in INPUT:
            channels, size = INPUT[net]
        else:
            fail("%s: Data layer '%s' has no crop_size and the input size of "
                 "'%s' is unknown (add it to INPUT)" % (src, layer.name, net))
        layer.type = "DummyData"
        layer.ClearField("data_param")
        layer.ClearField("transform_param")
        dummy = layer.dummy_data_param
        dummy.shape.add().dim.extend([batch, channels, size, size])
        data_filler = dummy.data_filler.add()
        data_filler.type = "gaussian"
        data_filler.std = 1.0
        if len(layer.top) > 1:
            # Class 1 exists in every net, so the loss layers accept it.
            dummy.shape.add().dim.extend([batch])
            label_filler = dummy.data_filler.add()
            label_filler.type = "constant"
            label_filler.value = 1
        replaced += 1
    if not replaced:
        fail("%s has no Data layer to replace" % src)

    param.ClearField("mem_param")
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, net + "_plain.prototxt"), "w") as f:
        f.write(text_format.MessageToString(param))
    mp = param.mem_param
    mp.optimize_train = True
    mp.optimize_test = True
    mp.level = 2
    mp.release = caffe_pb2.MemoryOptimizationParameter.STATIC
    with open(os.path.join(outdir, net + "_mem.prototxt"), "w") as f:
        f.write(text_format.MessageToString(param))
    with open(os.path.join(outdir, "empty.caffemodel"), "wb") as f:
        f.write(caffe_pb2.NetParameter(name="empty").SerializeToString())


# ---------------------------------------------------------------- parsing

def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def parse_mem(out_path, log_path):
    """Totals of `caffe mem` (stdout in out_path, glog lines in log_path).

    The report prints levels' activations in MiB (2 decimals) next to exact
    totals that include the fixed part (parameters and layer buffers). The
    plan's log line gives the level-2 activations in bytes, so the fixed part
    and with it every activation figure is recovered exactly; when that line
    is missing or disagrees, the MiB figures are used as printed.
    """
    text = read_text(out_path)
    m = re.search(r"Caffe 1\.0 \(unoptimized\):\s+(\d+)\s+\(\S+ MiB: "
                  r"activations ([\d.]+) MiB", text)
    lb = re.search(r"lower bound \(activations\):\s+(\d+)", text)
    levels = re.findall(r"planned, level (\d):\s+(\d+)\s+\(\S+ MiB, "
                        r"activations ([\d.]+) MiB", text)
    peaks = re.search(r"measured peak, unoptimized:\s+(\d+)", text)
    peakl = re.search(r"measured peak, level \d:\s+(\d+)", text)
    if not (m and lb and len(levels) == 3 and peaks and peakl):
        return None
    r = {"caffe_total": int(m.group(1)), "lower_bound": int(lb.group(1)),
         "measured_plain": int(peaks.group(1)),
         "measured_planned": int(peakl.group(1)), "exact": False}
    totals = {int(lv): int(t) for lv, t, _ in levels}
    act_mib = {int(lv): float(a) * MIB for lv, _, a in levels}
    r["planned_total"] = [totals[lv] for lv in range(3)]
    r["act"] = float(m.group(2)) * MIB
    r["planned_act"] = [act_mib[lv] for lv in range(3)]
    logged = re.findall(r"Memory plan for '.*?' \((?:TRAIN|TEST), level 2\): "
                        r"(\d+) bytes of activations", read_text(log_path))
    if logged:
        fixed = totals[2] - int(logged[0])
        exact_act = [totals[lv] - fixed for lv in range(3)]
        exact_caffe = r["caffe_total"] - fixed
        # Accept only if it matches the rounded figures (0.005 MiB each).
        if all(abs(e - a) <= 0.0051 * MIB
               for e, a in zip(exact_act + [exact_caffe],
                               r["planned_act"] + [r["act"]])):
            r["planned_act"], r["act"], r["exact"] = exact_act, exact_caffe, True
    return r


def parse_rss_kb(path):
    m = re.findall(r"Maximum resident set size \(kbytes\): *(\d+)",
                   read_text(path))
    return int(m[-1]) if m else None


GLOG_TIME = re.compile(r"^[IWEF]\d{4} (\d\d):(\d\d):(\d\d\.\d+) ")


def glog_seconds(line):
    m = GLOG_TIME.match(line)
    if not m:
        return None
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def parse_ms(log_path, phase):
    """Milliseconds per iteration from a `caffe time` (TRAIN) or `caffe test`
    (TEST) log. `caffe test` prints no timing: the glog time stamps of the
    first "Batch i," line after each forward pass are used, from the end of
    the first pass to the end of the last (the first pass, which touches
    fresh memory, is left out as `caffe time` leaves out its warm-up)."""
    text = read_text(log_path)
    if phase == "TRAIN":
        m = re.findall(r"Average Forward-Backward: *([\d.eE+-]+) ms\.", text)
        return float(m[-1]) if m else None
    first = {}
    for line in text.splitlines():
        m = re.search(r"\] Batch (\d+), ", line)
        if m and int(m.group(1)) not in first:
            t = glog_seconds(line)
            if t is not None:
                first[int(m.group(1))] = t
    if len(first) < 2:
        return None
    last = max(first)
    span = first[last] - first[0]
    if span < 0:  # past midnight
        span += 86400
    return 1000.0 * span / last


def read_manifest(path):
    """Lines of `key<TAB>value` (settings: nets, batch, runs, iters, out,
    threads, commit, date, nproc) and `run<TAB>net<TAB>phase<TAB>variant<TAB>log<TAB>
    timefile<TAB>rc` / `mem<TAB>net<TAB>phase<TAB>stdout<TAB>log<TAB>rc`."""
    settings, runs, mems = {}, [], []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts[0] == "run" and len(parts) == 8:
                runs.append(parts[1:])
            elif parts[0] == "mem" and len(parts) == 6:
                mems.append(parts[1:])
            elif len(parts) == 2:
                settings[parts[0]] = parts[1]
    return settings, runs, mems


# ---------------------------------------------------------------- report

def pct(x):
    return "n/a" if x is None else "%.1f%%" % x


def mib(x):
    return "n/a" if x is None else "%.2f" % (x / MIB)


def ms(x):
    return "n/a" if x is None else "%.1f" % x


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def cpu_model():
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def collect(settings, runs, mems):
    rows = []
    for net in settings["nets"].split():
        for phase in ("TRAIN", "TEST"):
            row = {"net": net, "phase": phase, "mem": None}
            for n, ph, out, log, rc in mems:
                if n == net and ph == phase and rc == "0":
                    row["mem"] = parse_mem(out, log)
            for variant in ("plain", "mem"):
                ms, rss = [], []
                for n, ph, v, _, log, tfile, rc in runs:
                    if (n, ph, v) != (net, phase, variant) or rc != "0":
                        continue
                    ms.append(parse_ms(log, phase))
                    kb = parse_rss_kb(tfile)
                    rss.append(None if kb is None else kb * 1024)
                row[variant + "_ms"] = median(ms)
                row[variant + "_rss"] = median(rss)
            derive(row)
            rows.append(row)
    return rows


def derive(row):
    """Adds the ratios the targets are about (None where data is missing)."""
    m = row["mem"]
    row.update(above=[None] * 3, act_pct=None, planned_saving=None,
               rss_saving=None, saving_pct=None, counter_saving_pct=None,
               time_ratio=None)
    if m:
        lb = m["lower_bound"]
        row["above"] = [100.0 * (p - lb) / lb if lb else None
                        for p in m["planned_act"]]
        row["act_pct"] = 100.0 * m["planned_act"][2] / m["act"] if m["act"] else None
        row["planned_saving"] = m["caffe_total"] - m["planned_total"][2]
        if row["planned_saving"] > 0:
            row["counter_saving_pct"] = 100.0 * (
                m["measured_plain"] - m["measured_planned"]) / row["planned_saving"]
    if row["plain_rss"] is not None and row["mem_rss"] is not None:
        row["rss_saving"] = row["plain_rss"] - row["mem_rss"]
        if row["planned_saving"]:
            row["saving_pct"] = 100.0 * row["rss_saving"] / row["planned_saving"]
    if row["plain_ms"] and row["mem_ms"] is not None:
        row["time_ratio"] = row["mem_ms"] / row["plain_ms"]


def check(values, ok):
    """'met' / 'NOT met (failing)' over the values given; a missing value
    (failed run) makes an otherwise met target 'n/a'."""
    if not values:
        return "n/a (no net measured)"
    missing = [k for k, v in values if v is None]
    bad = [k for k, v in values if v is not None and not ok(v)]
    note = "; missing: %s" % ", ".join(missing) if missing else ""
    if bad:
        return "NOT met (%s%s)" % (", ".join(bad), note)
    return "n/a (%s)" % note[2:] if missing else "met"


def targets(rows):
    def key(r):
        return "%s %s" % (r["net"], r["phase"])
    out = []
    out.append(("level-2 plan within 2% of the lower bound, every net, "
                "TRAIN and TEST",
                check([(key(r), r["above"][2]) for r in rows],
                      lambda v: v <= 2.0)))
    tr = [r for r in rows if r["phase"] == "TRAIN" and r["net"] in TRAIN_TARGET_NETS]
    out.append(("TRAIN activations + gradients at most 45% of unoptimized "
                "(GoogLeNet, VGG-16, ResNet-50)",
                check([(key(r), r["act_pct"]) for r in tr], lambda v: v <= 45.0)))
    # "At the lower bound": the plan places the TEST activations in exactly
    # the bytes the lower bound needs, up to 0.1% (buffer alignment).
    out.append(("TEST activations at the lower bound (planned <= lower "
                "bound + 0.1%)",
                check([(key(r), r["above"][2]) for r in rows
                       if r["phase"] == "TEST"], lambda v: v <= 0.1)))
    out.append(("measured saving (peak RSS) at least 90% of the planned "
                "saving, every net and phase",
                check([(key(r), r["saving_pct"]) for r in rows],
                      lambda v: v >= 90.0)))
    out.append(("time per iteration with mem_param within 2% of without",
                check([(key(r), r["time_ratio"]) for r in rows],
                      lambda v: v <= 1.02)))
    return out


def table(rows):
    head = ("| net | phase | unoptimized MiB (act.) | lower bound MiB | "
            "L0 plan (% above LB) | L1 plan (% above LB) | L2 plan (% above LB) | "
            "L2 act. % of unopt. | peak RSS without MiB | peak RSS with MiB | "
            "measured / planned saving | counters: measured / planned saving | "
            "ms without | ms with | time with/without |")
    lines = [head, "| --- | --- |" + " ---: |" * 13]
    for r in rows:
        m = r["mem"]
        if m:
            plans = ["%s (%s)" % (mib(m["planned_act"][lv]), pct(r["above"][lv]))
                     for lv in range(3)]
            unopt = "%s (%s)" % (mib(m["caffe_total"]), mib(m["act"]))
            lbound = mib(m["lower_bound"])
        else:
            plans, unopt, lbound = ["n/a"] * 3, "n/a", "n/a"
        ratio = "n/a" if r["time_ratio"] is None else "%.3f" % r["time_ratio"]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["net"], r["phase"], unopt, lbound, plans[0], plans[1], plans[2],
            pct(r["act_pct"]), mib(r["plain_rss"]), mib(r["mem_rss"]),
            pct(r["saving_pct"]), pct(r["counter_saving_pct"]),
            ms(r["plain_ms"]), ms(r["mem_ms"]), ratio))
    return "\n".join(lines)


def report(manifest):
    settings, runs, mems = read_manifest(manifest)
    for k in ("nets", "batch", "runs", "iters", "out", "threads", "commit",
              "date", "nproc"):
        if k not in settings:
            fail("%s: setting '%s' missing" % (manifest, k))
    rows = collect(settings, runs, mems)
    tab = table(rows)
    goals = targets(rows)
    inexact = [r["net"] + " " + r["phase"] for r in rows
               if r["mem"] and not r["mem"]["exact"]]
    s = settings
    doc = []
    doc.append("# Memory benchmark: mem_param (level 2, STATIC)\n")
    doc.append("Generated by `bench/memory/run_memory_bench.sh` on %s, commit "
               "`%s`; CPU: %s, `nproc` %s, %s threads (OMP/OpenBLAS); batch %s; "
               "%s run(s) per figure, median kept; %s iterations per run.\n"
               % (s["date"], s["commit"], cpu_model(), s["nproc"],
                  s["threads"], s["batch"], s["runs"], s["iters"]))
    doc.append("## Targets\n")
    for goal, verdict in goals:
        doc.append("- %s: **%s**" % (goal, verdict))
    doc.append("")
    doc.append("## Results\n")
    doc.append(tab)
    doc.append("")
    doc.append("## Columns\n")
    doc.append(
        "- **unoptimized MiB (act.)**: what Caffe 1.0 allocates for the net "
        "(`caffe mem`, \"Caffe 1.0 (unoptimized)\"): activations and their "
        "gradients, layers' kept memory, parameters (data and diff) and other "
        "layer buffers; in brackets the activation part alone (data and diff "
        "of every blob plus the layers' kept memory), which is what the plan "
        "places.\n"
        "- **lower bound MiB**: the activation bytes no plan can go below (the "
        "largest set of buffers live at one step, plus the buffers that are "
        "never shared).\n"
        "- **L0/L1/L2 plan**: planned activation bytes at mem_param level 0 "
        "(reuse same-size buffers), 1 (reuse any larger buffer), 2 (offsets in "
        "one arena), and how far above the lower bound they are.\n"
        "- **L2 act. % of unopt.**: level-2 planned activations as a share of "
        "the unoptimized activations.\n"
        "- **peak RSS without / with**: \"Maximum resident set size\" "
        "(`/usr/bin/time -v`) of the whole process, median over the runs, of "
        "`caffe time` (TRAIN) or `caffe test` (TEST) on the net without "
        "mem_param and with it.\n"
        "- **measured / planned saving**: (peak RSS without - peak RSS with) "
        "divided by the planned saving (unoptimized total - level-2 planned "
        "total). **counters**: the same with the peaks that `caffe mem` "
        "measures from the process's own allocation counters (one forward, "
        "and backward in TRAIN).\n"
        "- **ms without / with**: time per iteration, median over the runs: "
        "TRAIN is forward + backward (`caffe time -phase TRAIN`, \"Average "
        "Forward-Backward\"); TEST is forward only, from `caffe test` (see "
        "below). **time with/without**: their ratio.\n")
    doc.append("## Method\n")
    doc.append(
        "Each net is `models/<net>/train_val.prototxt` with its Data layers "
        "replaced by DummyData layers of the same tops (random images, labels "
        "1) at batch %s; the \"without\" copy has no mem_param, the \"with\" "
        "copy has `mem_param { optimize_train: true optimize_test: true "
        "level: 2 release: STATIC }`. The plan figures come from `caffe mem "
        "-level 2 -phase <phase>` on the \"with\" copy.\n\n"
        "TEST is run the way a user's test run goes, with `caffe test "
        "-iterations %d` and a weights file with no layers (the fillers' "
        "weights stay); its time per forward pass is taken from the log's "
        "time stamps between the end of the first pass and the end of the "
        "last (%s passes), since `caffe test` prints no timing. TRAIN times "
        "come from `caffe time`, which runs whole passes through the net "
        "(its per-step memory work included).\n"
        % (s["batch"], int(s["iters"]) + 1, s["iters"]))
    if inexact:
        doc.append("Activation figures of %s are the report's MiB values "
                   "(rounded to 0.01 MiB): the exact plan line was not in the "
                   "log.\n" % ", ".join(inexact))
    text = "\n".join(doc)
    print(tab)
    print()
    for goal, verdict in goals:
        print("- %s: %s" % (goal, verdict))
    out = s["out"]
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(text)
    print("\nwrote %s" % out)


def main(argv):
    if len(argv) == 5 and argv[1] == "nets":
        try:
            batch = int(argv[3])
        except ValueError:
            fail("batch must be an integer, not '%s'" % argv[3])
        make_nets(argv[2], batch, argv[4])
    elif len(argv) == 3 and argv[1] == "report":
        report(argv[2])
    else:
        fail("usage: mem_bench.py nets NET BATCH OUTDIR | report MANIFEST")


if __name__ == "__main__":
    main(sys.argv)
