// caffe_.cpp: the MEX gateway behind matcaffe (matlab/+caffe), built for GNU
// Octave with `mkoctfile --mex` (and MATLAB's mex, which has the same API).
//
// Contract:
//  * Called as caffe_(command, args...); the .m classes are the public API.
//  * Layout: a blob of Caffe shape (N, C, H, W), row-major, is handed to
//    Octave as an array of size [W H C N], column-major: the same bytes read
//    with the axes reversed, so conversion is one memcpy each way (Caffe
//    1.0's convention).  Only single precision crosses the boundary.
//  * Handles are structs {ptr (uint64), init_key (double), serial (double)}.
//    Every object a handle may name (stand-alone nets, solvers, their nets,
//    layers and blobs) is in a registry of live objects with a serial
//    number.  A handle is used only when its init_key is the current one
//    (reset_all changes it), its pointer is live, of the expected kind, and
//    its serial matches (so a freed address reused by a new object is
//    refused too).  A stale handle is an Octave error, never a dangling
//    pointer.
//  * Every C++ exception becomes an Octave error (mexErrMsgIdAndTxt) after
//    the C++ frames have been unwound: Octave raises its error by throwing,
//    so it must not happen inside the try block that converts ours.
//  * Reading a net blob's data or diff goes through Net::BlobReadableError:
//    a blob whose memory mem_param gave to another blob is refused with
//    the core's message, which names the fix (exclude_blob).
#include <mex.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "caffe/caffe.hpp"
#include "caffe/util/host_memory_room.hpp"
#include "caffe_hdf5.hpp"

#ifndef CAFFE_VERSION
#define CAFFE_VERSION "1.0.0"
#endif

using caffe::Blob;
using caffe::Layer;
using caffe::Net;
using caffe::Solver;
using std::shared_ptr;
using std::string;
using std::vector;

#define MEX_ARGS int nlhs, mxArray **plhs, int nrhs, const mxArray **prhs

namespace {

// An error with an Octave identifier; everything thrown in here that is not
// one of these is reported as caffe:error.
class MexError : public std::runtime_error {
 public:
  MexError(const string& id, const string& msg)
      : std::runtime_error(msg), id_(id) {}
  const string& id() const { return id_; }
 private:
  string id_;
};

void Check(bool ok, const string& msg) {
  if (!ok) throw MexError("caffe:usage", msg);
}

// ---------------------------------------------------------------- registry

enum class Kind { kNet, kSolver, kLayer, kBlob };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNet: return "Net";
    case Kind::kSolver: return "Solver";
    case Kind::kLayer: return "Layer";
    case Kind::kBlob: return "Blob";
  }
  return "?";
}

struct LiveObject {
  Kind kind;
  double serial;
  const Net<float>* net;  // for a net's activation blobs: the owner
  string name;            // the blob's name in that net, or a description
};

// What the user holds: solvers and stand-alone nets.  Everything else is
// owned by one of them.
vector<shared_ptr<Solver<float> > > solvers_;
vector<shared_ptr<Net<float> > > nets_;
std::unordered_map<const void*, LiveObject> live_;
// Serials are doubles so they fit a plain Octave scalar exactly (< 2^53).
double next_serial_ = 1;
// Changes on every reset and starts from a value a previous load of this MEX
// is unlikely to have used.
double init_key_ = static_cast<double>(caffe::caffe_rng_rand() % 1000000) + 1;

void Register(const void* p, Kind kind, const Net<float>* net = nullptr,
              const string& name = string()) {
  if (live_.count(p)) return;  // first registration wins
  live_[p] = LiveObject{kind, next_serial_++, net, name};
}

void RegisterNet(const Net<float>* net) {
  Register(net, Kind::kNet);
  for (size_t i = 0; i < net->blobs().size(); ++i)
    Register(net->blobs()[i].get(), Kind::kBlob, net, net->blob_names()[i]);
  for (size_t l = 0; l < net->layers().size(); ++l) {
    const shared_ptr<Layer<float> >& layer = net->layers()[l];
    Register(layer.get(), Kind::kLayer, nullptr, net->layer_names()[l]);
    for (size_t b = 0; b < layer->blobs().size(); ++b)
      Register(layer->blobs()[b].get(), Kind::kBlob, nullptr,
               "param " + std::to_string(b + 1) + " of layer '" +
                   net->layer_names()[l] + "'");
  }
}

void UnregisterNet(const Net<float>* net) {
  live_.erase(net);
  for (const auto& b : net->blobs()) live_.erase(b.get());
  for (const auto& layer : net->layers()) {
    live_.erase(layer.get());
    for (const auto& b : layer->blobs()) live_.erase(b.get());
  }
}

void RegisterSolver(Solver<float>* solver) {
  Register(solver, Kind::kSolver);
  RegisterNet(solver->net().get());
  for (const auto& n : solver->test_nets()) RegisterNet(n.get());
}

void UnregisterSolver(Solver<float>* solver) {
  live_.erase(solver);
  UnregisterNet(solver->net().get());
  for (const auto& n : solver->test_nets()) UnregisterNet(n.get());
}

// ----------------------------------------------------------------- handles

const char* kHandleFields[] = {"ptr", "init_key", "serial"};

mxArray* NewHandles(size_t n) {
  return mxCreateStructMatrix(n, 1, 3, kHandleFields);
}

void SetHandle(mxArray* handles, size_t i, const void* p) {
  auto it = live_.find(p);
  if (it == live_.end())
    throw MexError("caffe:internal", "handle requested for an unknown object");
  mxArray* ptr = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
  *static_cast<uint64_t*>(mxGetData(ptr)) =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  mxSetField(handles, i, "ptr", ptr);
  mxSetField(handles, i, "init_key", mxCreateDoubleScalar(init_key_));
  mxSetField(handles, i, "serial", mxCreateDoubleScalar(it->second.serial));
}

mxArray* Handle(const void* p) {
  mxArray* h = NewHandles(1);
  SetHandle(h, 0, p);
  return h;
}

template <typename T>
mxArray* HandleVec(const vector<shared_ptr<T> >& v) {
  mxArray* h = NewHandles(v.size());
  for (size_t i = 0; i < v.size(); ++i) SetHandle(h, i, v[i].get());
  return h;
}

// True when field is a 1 x 1 array of class cls.
bool ScalarField(const mxArray* h, const char* field, mxClassID cls) {
  const mxArray* f = mxGetField(h, 0, field);
  return f && mxGetClassID(f) == cls && mxGetNumberOfElements(f) == 1;
}

// The live object a handle names, checked as described in the contract.
const LiveObject& Resolve(const mxArray* h, Kind kind, const void** out) {
  const string what = KindName(kind);
  if (!mxIsStruct(h) || mxGetNumberOfElements(h) != 1 ||
      !ScalarField(h, "ptr", mxUINT64_CLASS) ||
      !ScalarField(h, "init_key", mxDOUBLE_CLASS) ||
      !ScalarField(h, "serial", mxDOUBLE_CLASS))
    throw MexError("caffe:invalidHandle", "invalid " + what + " handle");
  if (mxGetScalar(mxGetField(h, 0, "init_key")) != init_key_)
    throw MexError("caffe:staleHandle",
                   "stale " + what + " handle: it was made before "
                   "caffe.reset_all() (or before caffe_ was reloaded); "
                   "create the object again");
  const uint64_t bits =
      *static_cast<const uint64_t*>(mxGetData(mxGetField(h, 0, "ptr")));
  const void* p = reinterpret_cast<const void*>(static_cast<uintptr_t>(bits));
  auto it = live_.find(p);
  if (it == live_.end() ||
      it->second.serial != mxGetScalar(mxGetField(h, 0, "serial")))
    throw MexError("caffe:staleHandle",
                   "stale " + what + " handle: the object was freed (its net "
                   "or solver was deleted)");
  if (it->second.kind != kind)
    throw MexError("caffe:invalidHandle",
                   string("handle names a ") + KindName(it->second.kind) +
                       ", not a " + what);
  *out = p;
  return it->second;
}

template <typename T>
T* Get(const mxArray* h, Kind kind) {
  const void* p = nullptr;
  Resolve(h, kind, &p);
  // The registry only holds pointers to mutable objects we were given.
  return static_cast<T*>(const_cast<void*>(p));
}

// ------------------------------------------------------------- conversions

string String(const mxArray* a, const char* what) {
  Check(a && mxIsChar(a), string(what) + " must be a string");
  char* s = mxArrayToString(a);
  Check(s != nullptr, string(what) + " must be a string");
  string out(s);
  mxFree(s);
  return out;
}

void CheckFileExists(const string& file) {
  std::ifstream f(file.c_str());
  if (!f.good()) throw MexError("caffe:fileNotFound",
                                "Could not open file " + file);
}

caffe::Phase ParsePhase(const string& name) {
  if (name == "train") return caffe::TRAIN;
  if (name == "test") return caffe::TEST;
  throw MexError("caffe:usage",
                 "phase_name can only be 'train' or 'test', not '" + name +
                     "'");
}

enum WhichMemory { DATA, DIFF };

mxArray* BlobToArray(const Blob<float>* blob, WhichMemory which) {
  const int n = blob->num_axes();
  vector<mwSize> dims(n);
  for (int i = 0; i < n; ++i) dims[n - 1 - i] = blob->shape(i);
  while (dims.size() < 2) dims.push_back(1);  // Octave arrays are >= 2-D
  mxArray* a = mxCreateNumericArray(dims.size(), dims.data(), mxSINGLE_CLASS,
                                    mxREAL);
  if (blob->count() > 0) {
    const float* src = which == DATA ? blob->cpu_data() : blob->cpu_diff();
    std::memcpy(mxGetData(a), src, sizeof(float) * blob->count());
  }
  return a;
}

void ArrayToBlob(const mxArray* a, Blob<float>* blob, WhichMemory which,
                 const string& name) {
  Check(mxIsSingle(a) && !mxIsComplex(a),
        "data for " + name + " must be a real single array");
  const size_t n = mxGetNumberOfElements(a);
  if (n != static_cast<size_t>(blob->count())) {
    std::ostringstream s;
    s << "number of elements (" << n << ") does not match " << name
      << " (shape " << blob->shape_string() << ")";
    throw MexError("caffe:shapeMismatch", s.str());
  }
  if (n == 0) return;
  float* dst = which == DATA ? blob->mutable_cpu_data()
                             : blob->mutable_cpu_diff();
  std::memcpy(dst, mxGetData(a), sizeof(float) * n);
}

mxArray* IntColumn(const vector<int>& v) {
  mxArray* a = mxCreateDoubleMatrix(v.size(), 1, mxREAL);
  double* d = mxGetPr(a);
  for (size_t i = 0; i < v.size(); ++i) d[i] = v[i];
  return a;
}

mxArray* StringColumn(const vector<string>& v) {
  mxArray* a = mxCreateCellMatrix(v.size(), 1);
  for (size_t i = 0; i < v.size(); ++i)
    mxSetCell(a, i, mxCreateString(v[i].c_str()));
  return a;
}

string BlobName(const LiveObject& o) {
  return o.net ? "blob '" + o.name + "'" : o.name;
}

// ---------------------------------------------------------------- commands

void get_solver(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('get_solver', solver_file)");
  const string file = String(prhs[0], "solver_file");
  CheckFileExists(file);
  caffe::SolverParameter param;
  caffe::ReadSolverParamsFromTextFileOrDie(file, &param);
  shared_ptr<Solver<float> > solver(
      caffe::SolverRegistry<float>::CreateSolver(param));
  solvers_.push_back(solver);
  RegisterSolver(solver.get());
  plhs[0] = Handle(solver.get());
}

void delete_solver(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('delete_solver', hSolver)");
  Solver<float>* solver = Get<Solver<float> >(prhs[0], Kind::kSolver);
  for (size_t i = 0; i < solvers_.size(); ++i) {
    if (solvers_[i].get() != solver) continue;
    UnregisterSolver(solver);
    solvers_.erase(solvers_.begin() + i);
    return;
  }
}

void solver_get_attr(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('solver_get_attr', hSolver)");
  Solver<float>* solver = Get<Solver<float> >(prhs[0], Kind::kSolver);
  const char* fields[] = {"hNet_net", "hNet_test_nets"};
  mxArray* attr = mxCreateStructMatrix(1, 1, 2, fields);
  mxSetField(attr, 0, "hNet_net", Handle(solver->net().get()));
  mxSetField(attr, 0, "hNet_test_nets", HandleVec(solver->test_nets()));
  plhs[0] = attr;
}

void solver_get_iter(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('solver_get_iter', hSolver)");
  plhs[0] = mxCreateDoubleScalar(
      Get<Solver<float> >(prhs[0], Kind::kSolver)->iter());
}

void solver_get_max_iter(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('solver_get_max_iter', hSolver)");
  plhs[0] = mxCreateDoubleScalar(
      Get<Solver<float> >(prhs[0], Kind::kSolver)->param().max_iter());
}

void solver_restore(MEX_ARGS) {
  Check(nrhs == 2, "Usage: caffe_('solver_restore', hSolver, snapshot_file)");
  Solver<float>* solver = Get<Solver<float> >(prhs[0], Kind::kSolver);
  const string file = String(prhs[1], "snapshot_file");
  CheckFileExists(file);
  solver->Restore(file.c_str());
}

void solver_solve(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('solver_solve', hSolver)");
  Get<Solver<float> >(prhs[0], Kind::kSolver)->Solve();
}

void solver_step(MEX_ARGS) {
  Check(nrhs == 2 && mxIsDouble(prhs[1]) &&
            mxGetNumberOfElements(prhs[1]) == 1,
        "Usage: caffe_('solver_step', hSolver, iters)");
  Solver<float>* solver = Get<Solver<float> >(prhs[0], Kind::kSolver);
  const double iters = mxGetScalar(prhs[1]);
  Check(iters >= 0 && iters <= INT_MAX && iters == std::floor(iters),
        "iters must be a non-negative integer");
  solver->Step(static_cast<int>(iters));
}

// caffe_('get_net', model_file, phase_name [, weights_file]): the weights
// are loaded here so that a failure leaves no half-made net behind.
void get_net(MEX_ARGS) {
  Check(nrhs == 2 || nrhs == 3,
        "Usage: caffe_('get_net', model_file, phase_name [, weights_file])");
  const string model = String(prhs[0], "model_file");
  const caffe::Phase phase = ParsePhase(String(prhs[1], "phase_name"));
  CheckFileExists(model);
  string weights;
  if (nrhs == 3) {
    weights = String(prhs[2], "weights_file");
    CheckFileExists(weights);
  }
  shared_ptr<Net<float> > net(new Net<float>(model, phase));
  if (!weights.empty()) net->CopyTrainedLayersFrom(weights);
  nets_.push_back(net);
  RegisterNet(net.get());
  plhs[0] = Handle(net.get());
}

// Frees a stand-alone net; a net owned by a solver lives as long as it.
void delete_net(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('delete_net', hNet)");
  Net<float>* net = Get<Net<float> >(prhs[0], Kind::kNet);
  for (size_t i = 0; i < nets_.size(); ++i) {
    if (nets_[i].get() != net) continue;
    UnregisterNet(net);
    nets_.erase(nets_.begin() + i);
    return;
  }
}

void net_get_attr(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('net_get_attr', hNet)");
  Net<float>* net = Get<Net<float> >(prhs[0], Kind::kNet);
  const char* fields[] = {"hLayer_layers", "hBlob_blobs",
                          "input_blob_indices", "output_blob_indices",
                          "layer_names", "blob_names"};
  mxArray* attr = mxCreateStructMatrix(1, 1, 6, fields);
  mxSetField(attr, 0, "hLayer_layers", HandleVec(net->layers()));
  mxSetField(attr, 0, "hBlob_blobs", HandleVec(net->blobs()));
  mxSetField(attr, 0, "input_blob_indices",
             IntColumn(net->input_blob_indices()));
  mxSetField(attr, 0, "output_blob_indices",
             IntColumn(net->output_blob_indices()));
  mxSetField(attr, 0, "layer_names", StringColumn(net->layer_names()));
  mxSetField(attr, 0, "blob_names", StringColumn(net->blob_names()));
  plhs[0] = attr;
}

void net_forward(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('net_forward', hNet)");
  Get<Net<float> >(prhs[0], Kind::kNet)->Forward();
}

void net_backward(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('net_backward', hNet)");
  Get<Net<float> >(prhs[0], Kind::kNet)->Backward();
}

// net.keep(names): mem_param keeps these blobs readable (Net::KeepBlobs).
void net_keep(MEX_ARGS) {
  Check(nrhs == 2 && mxIsCell(prhs[1]),
        "Usage: caffe_('net_keep', hNet, {blob names})");
  vector<string> names;
  for (size_t i = 0; i < mxGetNumberOfElements(prhs[1]); ++i)
    names.push_back(String(mxGetCell(prhs[1], i), "blob name"));
  Get<Net<float> >(prhs[0], Kind::kNet)->KeepBlobs(names);
}

void net_kept_blobs(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('net_kept_blobs', hNet)");
  plhs[0] = StringColumn(Get<Net<float> >(prhs[0], Kind::kNet)->kept_blobs());
}

void net_copy_from(MEX_ARGS) {
  Check(nrhs == 2, "Usage: caffe_('net_copy_from', hNet, weights_file)");
  Net<float>* net = Get<Net<float> >(prhs[0], Kind::kNet);
  const string file = String(prhs[1], "weights_file");
  CheckFileExists(file);
  net->CopyTrainedLayersFrom(file);
}

void net_reshape(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('net_reshape', hNet)");
  Get<Net<float> >(prhs[0], Kind::kNet)->Reshape();
}

void net_save(MEX_ARGS) {
  Check(nrhs == 2, "Usage: caffe_('net_save', hNet, save_file)");
  Net<float>* net = Get<Net<float> >(prhs[0], Kind::kNet);
  const string file = String(prhs[1], "save_file");
  caffe::NetParameter param;
  net->ToProto(&param, false);
  caffe::WriteProtoToBinaryFile(param, file);
}

void layer_get_attr(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('layer_get_attr', hLayer)");
  Layer<float>* layer = Get<Layer<float> >(prhs[0], Kind::kLayer);
  const char* fields[] = {"hBlob_blobs"};
  mxArray* attr = mxCreateStructMatrix(1, 1, 1, fields);
  mxSetField(attr, 0, "hBlob_blobs", HandleVec(layer->blobs()));
  plhs[0] = attr;
}

void layer_get_type(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('layer_get_type', hLayer)");
  plhs[0] = mxCreateString(Get<Layer<float> >(prhs[0], Kind::kLayer)->type());
}

void blob_get_shape(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('blob_get_shape', hBlob)");
  Blob<float>* blob = Get<Blob<float> >(prhs[0], Kind::kBlob);
  const int n = blob->num_axes();
  mxArray* a = mxCreateDoubleMatrix(1, n, mxREAL);
  double* d = mxGetPr(a);
  for (int i = 0; i < n; ++i) d[n - 1 - i] = blob->shape(i);
  plhs[0] = a;
}

void blob_reshape(MEX_ARGS) {
  Check(nrhs == 2 && mxIsDouble(prhs[1]),
        "Usage: caffe_('blob_reshape', hBlob, new_shape)");
  Blob<float>* blob = Get<Blob<float> >(prhs[0], Kind::kBlob);
  const size_t n = mxGetNumberOfElements(prhs[1]);
  Check(n <= static_cast<size_t>(caffe::kMaxBlobAxes),
        "a blob has at most " + std::to_string(caffe::kMaxBlobAxes) + " axes");
  const double* d = mxGetPr(prhs[1]);
  vector<int> shape(n);
  for (size_t i = 0; i < n; ++i) {
    const double v = d[n - 1 - i];
    Check(v >= 0 && v <= INT_MAX && v == std::floor(v),
          "shape entries must be non-negative integers");
    shape[i] = static_cast<int>(v);
  }
  blob->Reshape(shape);
}

// A net blob's data or diff, refused when mem_param gave its memory away.
mxArray* GuardedBlobToArray(const mxArray* handle, WhichMemory which) {
  const void* p = nullptr;
  const LiveObject& o = Resolve(handle, Kind::kBlob, &p);
  if (o.net) {
    const string err = o.net->BlobReadableError(o.name, which == DIFF);
    if (!err.empty()) throw MexError("caffe:blobNotReadable", err);
  }
  return BlobToArray(static_cast<const Blob<float>*>(p), which);
}

void blob_get_data(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('blob_get_data', hBlob)");
  plhs[0] = GuardedBlobToArray(prhs[0], DATA);
}

void blob_get_diff(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('blob_get_diff', hBlob)");
  plhs[0] = GuardedBlobToArray(prhs[0], DIFF);
}

void blob_set(const mxArray** prhs, int nrhs, WhichMemory which,
              const char* usage) {
  Check(nrhs == 2, usage);
  const void* p = nullptr;
  const LiveObject& o = Resolve(prhs[0], Kind::kBlob, &p);
  ArrayToBlob(prhs[1], static_cast<Blob<float>*>(const_cast<void*>(p)),
              which, BlobName(o));
}

void blob_set_data(MEX_ARGS) {
  blob_set(prhs, nrhs, DATA, "Usage: caffe_('blob_set_data', hBlob, data)");
}

void blob_set_diff(MEX_ARGS) {
  blob_set(prhs, nrhs, DIFF, "Usage: caffe_('blob_set_diff', hBlob, diff)");
}

void set_mode_cpu(MEX_ARGS) {
  Check(nrhs == 0, "Usage: caffe_('set_mode_cpu')");
  caffe::Caffe::set_mode(caffe::Caffe::CPU);
}

// LeanCaffe's host memory limit: nets that do not fit under it are
// refused with what would fit, as an Octave error.
void set_memory_limit(MEX_ARGS) {
  Check(nrhs == 1 && mxIsNumeric(prhs[0]) && mxGetNumberOfElements(prhs[0]) == 1,
        "Usage: caffe_('set_memory_limit', bytes)");
  const double bytes = mxGetScalar(prhs[0]);
  Check(bytes >= 0 && bytes < 1.8e19,
        "caffe.set_memory_limit: bytes must be a non-negative number");
  caffe::SetHostMemoryLimit(static_cast<size_t>(bytes));
}

// Without a CUDA build or a GPU: an Octave error saying why (the mode
// stays CPU), never a silent fallback a GPU script would not notice.
void set_mode_gpu(MEX_ARGS) {
  Check(nrhs == 0, "Usage: caffe_('set_mode_gpu')");
  std::string why;
  if (caffe::Caffe::GpuCount(&why) == 0)
    throw MexError("caffe:noGpu", "caffe.set_mode_gpu: " + why +
                                      "; use caffe.set_mode_cpu()");
  caffe::Caffe::set_mode(caffe::Caffe::GPU);
}

void set_device(MEX_ARGS) {
  Check(nrhs == 1 && mxIsNumeric(prhs[0]) &&
            mxGetNumberOfElements(prhs[0]) == 1,
        "Usage: caffe_('set_device', device_id)");
  std::string why;
  if (caffe::Caffe::GpuCount(&why) == 0)
    throw MexError("caffe:noGpu", "caffe.set_device: " + why +
                                      ", so there is no device to select");
  caffe::Caffe::SetDevice(static_cast<int>(mxGetScalar(prhs[0])));
}

void get_init_key(MEX_ARGS) {
  Check(nrhs == 0, "Usage: caffe_('get_init_key')");
  plhs[0] = mxCreateDoubleScalar(init_key_);
}

void reset(MEX_ARGS) {
  Check(nrhs == 0, "Usage: caffe_('reset')");
  live_.clear();
  solvers_.clear();
  nets_.clear();
  init_key_ += 1;
}

void version(MEX_ARGS) {
  Check(nrhs == 0, "Usage: caffe_('version')");
  plhs[0] = mxCreateString(CAFFE_VERSION);
}

void read_mean(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('read_mean', mean_proto_file)");
  const string file = String(prhs[0], "mean_proto_file");
  CheckFileExists(file);
  caffe::BlobProto proto;
  caffe::ReadProtoFromBinaryFileOrDie(file, &proto);
  Blob<float> mean;
  mean.FromProto(proto);
  plhs[0] = BlobToArray(&mean, DATA);
}

// mean_data is [W H C] (or [W H]); written as a 1 x C x H x W BlobProto.
void write_mean(MEX_ARGS) {
  Check(nrhs == 2, "Usage: caffe_('write_mean', mean_data, mean_proto_file)");
  const string file = String(prhs[1], "mean_proto_file");
  const mwSize nd = mxGetNumberOfDimensions(prhs[0]);
  Check(nd >= 2 && nd <= 3, "mean_data must have 2 or 3 dimensions");
  const mwSize* dims = mxGetDimensions(prhs[0]);
  Blob<float> mean(1, nd == 3 ? dims[2] : 1, dims[1], dims[0]);
  ArrayToBlob(prhs[0], &mean, DATA, "mean_data");
  caffe::BlobProto proto;
  mean.ToProto(&proto, false);
  caffe::WriteProtoToBinaryFile(proto, file);
}

// ------------------------------------------------------------------ HDF5

// A numeric row of doubles (sizes, offsets); Inf allowed.
vector<double> Numbers(const mxArray* a, const char* what) {
  Check(a && mxIsDouble(a) && !mxIsComplex(a),
        string(what) + " must be a real double vector");
  const double* p = mxGetPr(a);
  return vector<double>(p, p + mxGetNumberOfElements(a));
}

bool DoubleType(const string& type) {
  Check(type == "single" || type == "double",
        "Datatype must be 'single' or 'double', not '" + type + "'");
  return type == "double";
}

mxArray* Row(const vector<double>& v) {
  mxArray* a = mxCreateDoubleMatrix(1, v.size(), mxREAL);
  std::copy(v.begin(), v.end(), mxGetPr(a));
  return a;
}

void h5_create(MEX_ARGS) {
  Check(nrhs == 5, "Usage: caffe_('h5_create', file, dataset, size, "
                   "chunk_size, datatype)");
  matcaffe::H5Create(String(prhs[0], "file"), String(prhs[1], "dataset"),
                     Numbers(prhs[2], "size"), Numbers(prhs[3], "ChunkSize"),
                     DoubleType(String(prhs[4], "Datatype")));
}

void h5_write(MEX_ARGS) {
  Check(nrhs == 5, "Usage: caffe_('h5_write', file, dataset, data, start, "
                   "count)");
  const mxArray* data = prhs[2];
  Check(mxIsSingle(data) || mxIsDouble(data),
        "data must be single or double");
  Check(!mxIsComplex(data), "data must be real");
  const vector<double> count = Numbers(prhs[4], "count");
  double n = 1;
  for (double c : count) n *= c;
  Check(n == static_cast<double>(mxGetNumberOfElements(data)),
        "count must multiply out to the number of elements of data");
  matcaffe::H5Write(String(prhs[0], "file"), String(prhs[1], "dataset"),
                    mxGetData(data), mxIsDouble(data),
                    Numbers(prhs[3], "start"), count);
}

void h5_read(MEX_ARGS) {
  Check(nrhs == 2 || nrhs == 4,
        "Usage: caffe_('h5_read', file, dataset[, start, count])");
  const matcaffe::H5Array r = matcaffe::H5Read(
      String(prhs[0], "file"), String(prhs[1], "dataset"),
      nrhs == 4 ? Numbers(prhs[2], "start") : vector<double>(),
      nrhs == 4 ? Numbers(prhs[3], "count") : vector<double>());
  vector<mwSize> dims(r.size.begin(), r.size.end());
  while (dims.size() < 2) dims.push_back(1);
  plhs[0] = mxCreateNumericArray(dims.size(), dims.data(),
                                 r.is_double ? mxDOUBLE_CLASS : mxSINGLE_CLASS,
                                 mxREAL);
  if (!r.values.empty())
    std::memcpy(mxGetData(plhs[0]), r.values.data(), r.values.size());
}

// A struct array with fields Name, Size and MaxSize, one per dataset.
void h5_info(MEX_ARGS) {
  Check(nrhs == 1, "Usage: caffe_('h5_info', file)");
  const vector<matcaffe::H5DatasetInfo> info =
      matcaffe::H5Info(String(prhs[0], "file"));
  const char* fields[] = {"Name", "Size", "MaxSize"};
  plhs[0] = mxCreateStructMatrix(info.size(), 1, 3, fields);
  for (size_t i = 0; i < info.size(); ++i) {
    mxSetField(plhs[0], i, "Name", mxCreateString(info[i].name.c_str()));
    mxSetField(plhs[0], i, "Size", Row(info[i].size));
    mxSetField(plhs[0], i, "MaxSize", Row(info[i].max_size));
  }
}

struct Command {
  const char* name;
  void (*func)(MEX_ARGS);
};

const Command kCommands[] = {
    {"get_solver", get_solver},
    {"delete_solver", delete_solver},
    {"solver_get_attr", solver_get_attr},
    {"solver_get_iter", solver_get_iter},
    {"solver_get_max_iter", solver_get_max_iter},
    {"solver_restore", solver_restore},
    {"solver_solve", solver_solve},
    {"solver_step", solver_step},
    {"get_net", get_net},
    {"delete_net", delete_net},
    {"net_get_attr", net_get_attr},
    {"net_forward", net_forward},
    {"net_backward", net_backward},
    {"net_copy_from", net_copy_from},
    {"net_keep", net_keep},
    {"net_kept_blobs", net_kept_blobs},
    {"net_reshape", net_reshape},
    {"net_save", net_save},
    {"layer_get_attr", layer_get_attr},
    {"layer_get_type", layer_get_type},
    {"blob_get_shape", blob_get_shape},
    {"blob_reshape", blob_reshape},
    {"blob_get_data", blob_get_data},
    {"blob_set_data", blob_set_data},
    {"blob_get_diff", blob_get_diff},
    {"blob_set_diff", blob_set_diff},
    {"set_mode_cpu", set_mode_cpu},
    {"set_memory_limit", set_memory_limit},
    {"set_mode_gpu", set_mode_gpu},
    {"set_device", set_device},
    {"get_init_key", get_init_key},
    {"reset", reset},
    {"version", version},
    {"read_mean", read_mean},
    {"write_mean", write_mean},
    {"h5_create", h5_create},
    {"h5_write", h5_write},
    {"h5_read", h5_read},
    {"h5_info", h5_info},
};

void Dispatch(MEX_ARGS) {
  Check(nrhs > 0 && mxIsChar(prhs[0]),
        "Usage: caffe_(api_command, arg1, arg2, ...)");
  const string cmd = String(prhs[0], "api_command");
  for (const Command& c : kCommands) {
    if (cmd == c.name) {
      c.func(nlhs, plhs, nrhs - 1, prhs + 1);
      return;
    }
  }
  throw MexError("caffe:usage", "Unknown command '" + cmd + "'");
}

// Kept outside any C++ frame that could be unwound by Octave's error.
string g_error_id;
string g_error_msg;

}  // namespace

void mexFunction(MEX_ARGS) {
  // As Caffe's matcaffe: `clear mex` / `clear all` must not unload the
  // gateway, which would free every net and solver behind live handles.
  if (!mexIsLocked()) mexLock();
  bool failed = false;
  try {
    Dispatch(nlhs, plhs, nrhs, prhs);
  } catch (const MexError& e) {
    failed = true;
    g_error_id = e.id();
    g_error_msg = e.what();
  } catch (const caffe::Error& e) {
    failed = true;
    g_error_id = "caffe:error";
    g_error_msg = e.what();
  } catch (const caffe::InternalError& e) {
    failed = true;
    g_error_id = "caffe:internalError";
    g_error_msg = e.what();
  } catch (const std::bad_alloc&) {
    failed = true;
    g_error_id = "caffe:outOfMemory";
    g_error_msg = "out of memory";
  } catch (const std::exception& e) {
    failed = true;
    g_error_id = "caffe:error";
    g_error_msg = e.what();
  }
  // "%s" keeps a '%' in the message from being read as a format.
  if (failed) mexErrMsgIdAndTxt(g_error_id.c_str(), "%s", g_error_msg.c_str());
}
