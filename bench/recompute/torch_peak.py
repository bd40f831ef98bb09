#!/usr/bin/python3
"""PyTorch side of bench/recompute/run_recompute_bench.sh: the memory one
ResNet-50 training step needs, with and without
torch.utils.checkpoint.checkpoint_sequential, and the largest batch that
stays within a budget.

  torch_peak.py step --batch B [--segments S] [--threads T]
      One training step (forward, cross-entropy loss, backward) of
      bench/torch_step.py's ResNet-50 at batch B, in this process, which
      must be fresh. --segments S > 0 runs the model through
      checkpoint_sequential(model, S, x). Prints
        STEP batch=B segments=S alloc_peak=BYTES rss_growth=BYTES ms=MS
      alloc_peak: the highest total of tensor bytes allocated during the
        step above what was allocated at its start, from the CPU allocator's
        own records (torch.profiler with profile_memory=True);
      rss_growth: the process's peak resident set size (getrusage
        ru_maxrss) after the step minus its resident size just before it
        (after a batch-1 warm-up step and malloc_trim, so that first-touched
        library code is not counted); it adds allocator slack and library
        workspaces to alloc_peak.
      The parameters' gradients are allocated before the step starts, as
      LeanCaffe's plan leaves them out too; no optimizer runs.
  torch_peak.py search --budget BYTES --lo L --hi H [--segments S]
                       [--metric alloc|rss] [--threads T]
      Largest batch in [L, H] whose metric stays within BYTES, one fresh
      subprocess per probe (`step`, with MALLOC_MMAP_THRESHOLD_=131072
      unless set, see run_step). Prints "PROBE torch ..." per probe and
      one "RESULT torch ..." line.

checkpoint_sequential in PyTorch 1.13 uses reentrant checkpointing, which
passes gradients to a segment's parameters only if its input requires a
gradient; with --segments the input image therefore requires one (one
input-sized gradient more than LeanCaffe, whose data layer needs none).
It splits the model's children (3 stem modules, 16 bottleneck blocks, pool,
flatten, fc: 22) into S chunks of len // S children; all but the last are
recomputed during backward.
"""
import argparse
import ctypes
import gc
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE)))    # bench/
sys.path.insert(0, HERE)


def current_rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def release_free_heap():
    """glibc's malloc_trim(0): hand freed heap pages back to the system."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def peak_allocated(prof):
    """Highest running total of the allocator's [memory] records (signed
    byte counts, in time order) over the profiled region."""
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]"]
    events.sort(key=lambda e: e.start_us())      # stable: keeps record order
    total = peak = 0
    for e in events:
        total += e.nbytes()
        peak = max(peak, total)
    return peak, len(events)


def step(batch, segments, threads):
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)   # before torch loads its runtimes
    import resource
    import torch_step                 # exits with a message without torch
    import torch
    import torch.nn as nn
    from torch.profiler import ProfilerActivity, profile
    from torch.utils.checkpoint import checkpoint_sequential

    torch.set_num_threads(threads)
    torch.manual_seed(1701)
    model, size = torch_step.NETS["resnet50"]
    model = model()
    model.train()
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    x = torch.randn(batch, 3, size, size)
    y = torch.randint(0, 1000, (batch,))
    if segments:
        x.requires_grad_(True)
    loss_fn = nn.CrossEntropyLoss()

    def forward(inp):
        return checkpoint_sequential(model, segments, inp) if segments \
            else model(inp)

    # A batch-1 step first, so that the measured step's RSS growth is not
    # mostly library code and thread pools touched for the first time; the
    # heap it freed goes back to the system before the baseline is read.
    loss_fn(forward(x[:1].detach().requires_grad_(bool(segments))),
            y[:1]).backward()
    gc.collect()
    release_free_heap()
    rss_before = current_rss_bytes()
    with profile(activities=[ProfilerActivity.CPU],
                 profile_memory=True) as prof:
        t0 = time.perf_counter()
        out = forward(x)
        loss = loss_fn(out, y)
        loss.backward()
        ms = (time.perf_counter() - t0) * 1000.0
        del out, loss
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    alloc, records = peak_allocated(prof)
    if records == 0:
        sys.stderr.write("torch_peak.py: the profiler recorded no memory "
                         "events; cannot measure the allocator's peak\n")
        return 1
    print("STEP batch=%d segments=%d alloc_peak=%d rss_growth=%d ms=%.1f "
          "torch=%s threads=%d" % (batch, segments, alloc,
                                   max(0, peak_kb * 1024 - rss_before), ms,
                                   torch.__version__, threads), flush=True)
    return 0


def run_step(batch, segments, threads):
    """`step` in a fresh interpreter (a process's peak RSS never falls)."""
    cmd = [sys.executable, os.path.abspath(__file__), "step", "--batch",
           str(batch), "--segments", str(segments), "--threads", str(threads)]
    # A fixed mmap threshold makes glibc return every freed large block to
    # the system at once; with its default adaptive threshold freed blocks
    # stay in the heap and the peak RSS overstates the live bytes 2-3x.
    env = dict(os.environ)
    env.setdefault("MALLOC_MMAP_THRESHOLD_", "131072")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("STEP "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    raise RuntimeError("torch step at batch %d (segments %d) failed, exit %d:"
                       "\n%s" % (batch, segments, p.returncode,
                                 p.stderr[-2000:]))


def search(args):
    from batch_search import largest_fitting
    key = {"alloc": "alloc_peak", "rss": "rss_growth"}[args.metric]
    steps = {}

    def probe(batch):
        r = run_step(batch, args.segments, args.threads)
        steps[batch] = r
        print("PROBE torch segments=%d batch=%d alloc_peak=%s rss_growth=%s "
              "ms=%s" % (args.segments, batch, r["alloc_peak"],
                         r["rss_growth"], r["ms"]), flush=True)
        return int(r[key])

    r = largest_fitting(probe, args.budget, args.lo, args.hi)
    best = steps.get(r["best"], {})
    print("RESULT torch segments=%d metric=%s best=%s best_bytes=%s over=%s "
          "over_bytes=%s best_alloc=%s best_rss=%s probes=%d exact=%d "
          "torch=%s" % (args.segments, args.metric, r["best"],
                        r["best_bytes"], r["over"], r["over_bytes"],
                        best.get("alloc_peak"), best.get("rss_growth"),
                        len(r["probes"]), r["exact"],
                        best.get("torch", next(iter(steps.values()), {})
                                 .get("torch"))), flush=True)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("step")
    s.add_argument("--batch", type=int, required=True)
    s.add_argument("--segments", type=int, default=0)
    s.add_argument("--threads", type=int, default=2)
    q = sub.add_parser("search")
    q.add_argument("--budget", type=float, required=True,
                   help="bytes")
    q.add_argument("--lo", type=int, required=True)
    q.add_argument("--hi", type=int, required=True)
    q.add_argument("--segments", type=int, default=0)
    q.add_argument("--metric", choices=("alloc", "rss"), default="alloc")
    q.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    if args.cmd == "step":
        if args.batch < 1 or args.segments < 0:
            ap.error("--batch must be >= 1 and --segments >= 0")
        return step(args.batch, args.segments, args.threads)
    try:
        return search(args)
    except (RuntimeError, ValueError) as e:
        sys.stderr.write("torch_peak.py: %s\n" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
