// python_layer.hpp: the "Python" layer type, a layer written in Python.
//
// Contract (Caffe 1.0's PythonLayer):
//  * python_param { module: "m" layer: "C" param_str: "..." } imports module
//    m and instantiates class C (normally a caffe.Layer subclass) with the
//    LayerParameter (a caffe_pb2.LayerParameter).  The object gets
//    .param_str and .phase (0 TRAIN, 1 TEST) before setup(bottom, top) is
//    called; reshape(bottom, top), forward(bottom, top) and
//    backward(top, propagate_down, bottom) are called like a C++ layer's.
//    bottom and top are lists of caffe Blobs.  Learnable blobs are added in
//    setup with self.blobs.add_blob(*shape).
//  * A Python exception inside any of these calls becomes a caffe::Error
//    carrying the Python traceback text; nothing aborts.
//  * Each call takes the GIL itself, so callers may release it around
//    Net::Forward/Backward.
//  * Memory declarations are the conservative ones (backward may read both
//    bottom and top data; no in-place), since the memory planner trusts
//    them and Python code can do anything.
//  * Float nets only; a double net with a Python layer is refused.
//
// Two hosts use it: the _caffe module (Python is already running) and the
// `caffe` tool, where the first Python layer starts an embedded interpreter
// and puts the working directory and the prototxts' directories first on
// sys.path (before PYTHONPATH's entries, where Python puts a script's
// directory).  The `caffe` package itself must be importable there
// (PYTHONPATH=<LeanCaffe>/python, or the source directory the build
// compiled in as CAFFE_PYTHON_DIR).  At exit the tool's interpreter is
// flushed but not finalized, as in Caffe 1.0.
#ifndef PYCAFFE_PYTHON_LAYER_HPP_
#define PYCAFFE_PYTHON_LAYER_HPP_

#include <string>
#include <vector>

#include "caffe/layer.hpp"

// Python's object type, declared here so that this header (included by the
// tool) needs no Python headers.
struct _object;

namespace caffe {

class PythonLayer : public Layer<float> {
 public:
  // Takes a new reference to `self`.
  PythonLayer(_object* self, const LayerParameter& param);
  ~PythonLayer() override;

  void LayerSetUp(const vector<Blob<float>*>& bottom,
                  const vector<Blob<float>*>& top) override;
  void Reshape(const vector<Blob<float>*>& bottom,
               const vector<Blob<float>*>& top) override;
  const char* type() const override { return "Python"; }

  // The memory contract (layer.hpp MemoryContract): nothing is known of
  // user code, so its backward may read everything; in place is allowed as
  // Caffe allows it (the prototxt's author knows the code); it may keep
  // state between calls, so it never runs twice per iteration.
  MemoryContract Memory() const override {
    MemoryContract c;
    c.backward_reads = kReadsBottomData | kReadsTopData;
    c.in_place = true;
    c.may_run_twice = false;
    return c;
  }

  // The Python object implementing the layer (borrowed reference).
  _object* self() const { return self_; }

 protected:
  void Forward_cpu(const vector<Blob<float>*>& bottom,
                   const vector<Blob<float>*>& top) override;
  void Backward_cpu(const vector<Blob<float>*>& top,
                    const vector<bool>& propagate_down,
                    const vector<Blob<float>*>& bottom) override;

 private:
  // "Python layer 'name' (module.Class)" for error messages.
  string Describe() const;

  _object* self_;
};

// Registers the "Python" layer type unless some "Python" type is already
// registered (so the tool's and the module's registrations coexist).
// `prototxt_files`: files the host program was given (empty ones are
// ignored); their directories join sys.path if this registration has to
// start the interpreter.
void RegisterPythonLayer(const vector<string>& prototxt_files = {});

}  // namespace caffe

#endif  // PYCAFFE_PYTHON_LAYER_HPP_
