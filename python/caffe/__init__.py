"""pycaffe: LeanCaffe's Python interface, Caffe 1.0's API (float nets, CPU).

The names Caffe 1.0 exports are here; LeanCaffe adds CaffeError (what every
C++ error raises, a RuntimeError), BlobNotReadableError (reading a blob
whose memory mem_param reused), InternalError (a bug in LeanCaffe, not
the caller's input), Blob, Solver and mem_report.
"""
from .pycaffe import Net, SGDSolver, NesterovSolver, AdaGradSolver, RMSPropSolver, AdaDeltaSolver, AdamSolver, NCCL, Timer
from ._caffe import init_log, log, set_mode_cpu, set_mode_gpu, set_device, Layer, get_solver, layer_type_list, set_random_seed, solver_count, set_solver_count, solver_rank, set_solver_rank, set_multiprocess, has_nccl, set_memory_limit, memory_limit, memory_room
from ._caffe import set_allow_tf32, allow_tf32, set_conv_algo, conv_algo
from ._caffe import set_allow_nondeterministic, allow_nondeterministic
from ._caffe import __version__
from ._caffe import CaffeError, BlobNotReadableError, InternalError, Blob, Solver, mem_report
from .proto.caffe_pb2 import TRAIN, TEST
from .distributed import init_distributed
from .classifier import Classifier
from .detector import Detector
from . import io
from .net_spec import layers, params, NetSpec, to_proto
