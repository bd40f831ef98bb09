"""Data-parallel training from Python: `mpirun -np N python3 script.py`.

    import caffe
    caffe.init_distributed()          # before building solvers
    solver = caffe.SGDSolver('solver.prototxt')
    solver.solve()                    # or solver.step(n), as the CLI trains
    if caffe.solver_rank() == 0:
        solver.net.save('final.caffemodel')

Every rank runs the same script.  Solvers built after init_distributed()
train data-parallel exactly as `mpirun -np N caffe train` does
(docs/distributed.md): data layers read rank-sized shards, gradients are
averaged across ranks, rank 0 alone writes snapshots.  Calls that act on
the whole job -- step, solve, restore (only rank 0 reads the file),
snapshot (only rank 0 writes) -- must be made on every rank.

An exception that nobody catches on one rank prints "[rank r] ..." and
ends every rank of the job, instead of leaving the others waiting.
Outside mpirun init_distributed() does nothing and returns False.
"""
import sys
import traceback

from . import _caffe

_previous_hook = None


def _abort_job(kind, value, tb):
    text = ''.join(traceback.format_exception(kind, value, tb)).rstrip()
    _caffe._abort_distributed('uncaught Python exception:\n' + text)


def init_distributed(timeout=600.0):
    """Starts MPI when mpirun launched this process.

    timeout: seconds one collective (gradient sum, broadcast) may take
    before the job ends with "a peer stalled or died" (0: no limit).
    Returns True when two or more ranks train together.
    """
    global _previous_hook
    running = _caffe._init_distributed(float(timeout))
    if running and _previous_hook is None:
        _previous_hook = sys.excepthook
        sys.excepthook = _abort_job
    return running
