"""bench/memory/time_one_process.py runs and prints one well-formed row per
net and phase: the script's figures are quoted in docs/memory_benchmarks.md,
so a change that breaks it should fail here rather than at the next
benchmark run.  Timing itself is not asserted (tests do not hold speed)."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, 'bench', 'memory', 'time_one_process.py')

ROW = re.compile(r'^\| (\w+) \| (TRAIN|TEST) \| ([0-9.]+) / ([0-9.]+) \| '
                 r'([0-9.]+) / ([0-9.]+) \| ([0-9.]+) \(([0-9.]+)-([0-9.]+)\)'
                 r' \| ([0-9.]+) \(([0-9.]+)-([0-9.]+)\) \|$')


def test_one_process_bench_prints_a_row_per_net_and_phase():
    # The caller's PYTHONPATH first: under a sanitizer build it names that
    # build's package, not the source tree's module.
    path = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep)
            if p] + [os.path.join(ROOT, 'python')]
    env = dict(os.environ, OMP_NUM_THREADS='1',
               PYTHONPATH=os.pathsep.join(path))
    p = subprocess.run([sys.executable, SCRIPT, '--nets', 'lenet',
                        '--batch', '2', '--iters', '6', '--min-ms', '0'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, cwd=ROOT, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stdout
    rows = [ROW.match(line) for line in p.stdout.splitlines()
            if line.startswith('| lenet')]
    assert all(rows), p.stdout
    assert [(m.group(1), m.group(2)) for m in rows] == [
        ('lenet', 'TRAIN'), ('lenet', 'TEST')], p.stdout
    for m in rows:
        f = [float(x) for x in m.groups()[2:]]
        # min <= median for each copy; each ratio's median inside its range.
        assert 0 < f[0] <= f[1] and 0 < f[2] <= f[3], p.stdout
        assert f[5] <= f[4] <= f[6] and f[8] <= f[7] <= f[9], p.stdout
