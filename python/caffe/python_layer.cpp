// python_layer.cpp: the "Python" layer type; see python_layer.hpp.
//
// Also compiled into the `caffe` tool, which has no Python of its own: the
// first Python layer created there starts an embedded interpreter.

// Python.h (through pybind11) comes first, as Python requires.
#include <pybind11/embed.h>
#include <pybind11/pybind11.h>

#include "caffe/python_layer.hpp"

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "caffe/layer_factory.hpp"
#include "caffe/pyblob.hpp"

namespace py = pybind11;

namespace caffe {

namespace {

// Directories for sys.path, recorded at registration, used only when this
// copy of the code starts the interpreter (the tool).
vector<string>& SysPathDirs() {
  static vector<string>* dirs = new vector<string>();
  return *dirs;
}

// The main thread's state while the tool runs C++ code without the GIL.
PyThreadState* g_tool_thread_state = nullptr;

string DirName(const string& path) {
  const size_t slash = path.rfind('/');
  if (slash == string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

string AbsolutePath(const string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) == nullptr) return path;
  return path == "." ? string(buf) : string(buf) + "/" + path;
}

// At exit the tool's interpreter is flushed, not finalized: extension
// modules (scipy's, for one) destroy C++ statics in exit handlers that run
// before ours, and Py_Finalize would then touch freed memory.  Caffe 1.0
// never finalized either.
void FlushInterpreter() {
  if (g_tool_thread_state == nullptr) return;
  PyEval_RestoreThread(g_tool_thread_state);
  g_tool_thread_state = nullptr;
  for (const char* stream : {"stdout", "stderr"}) {
    PyObject* f = PySys_GetObject(stream);  // borrowed
    if (f == nullptr) continue;
    PyObject* r = PyObject_CallMethod(f, "flush", nullptr);
    Py_XDECREF(r);
    PyErr_Clear();
  }
}

// Starts Python inside a host that has none (the caffe tool).  Python's own
// signal handlers stay off so the tool's SIGINT/SIGHUP handling still works.
void StartInterpreterIfNeeded() {
  if (Py_IsInitialized()) return;
  py::initialize_interpreter(/*init_signal_handlers=*/false, 0, nullptr,
                             /*add_program_dir_to_path=*/false);
  {
    py::list path = py::module_::import("sys").attr("path");
    vector<string> front = {AbsolutePath(".")};
    for (const string& d : SysPathDirs()) front.push_back(AbsolutePath(d));
    int at = 0;
    for (const string& d : front) {
      if (path.contains(py::str(d))) continue;
      path.insert(at++, py::str(d));
    }
#ifdef CAFFE_PYTHON_DIR
    // Lets `import caffe` work without PYTHONPATH (PYTHONPATH still wins).
    if (!path.contains(py::str(CAFFE_PYTHON_DIR)))
      path.append(py::str(CAFFE_PYTHON_DIR));
#endif
  }
  // Run C++ without the GIL; Python layers take it for each call, and
  // threads started by Python code can run meanwhile.
  g_tool_thread_state = PyEval_SaveThread();
  std::atexit(FlushInterpreter);
}

// The Python exception being handled, formatted with its traceback.
string FormatPythonError(const py::error_already_set& e) {
  try {
    py::object lines = py::module_::import("traceback")
                           .attr("format_exception")(e.type(), e.value(),
                                                     e.trace());
    string text = py::str("").attr("join")(lines).cast<string>();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  } catch (const std::exception&) {
    return e.what();
  }
}

py::list BlobList(const vector<Blob<float>*>& blobs) {
  py::list list;
  for (Blob<float>* b : blobs) {
    py::object blob = py::cast(BorrowedPyBlob(b));
    // A failed cast is a null object with the reason set; appending it
    // would replace that reason with "bad argument to internal function".
    if (!blob) throw py::error_already_set();
    list.append(blob);
  }
  return list;
}

// Imports the caffe package: it registers the Blob and Layer classes that
// bottoms, tops and caffe.Layer subclasses need (the tool has none itself).
void ImportCaffe(const string& where) {
  py::module_ caffe;
  try {
    caffe = py::module_::import("caffe");
  } catch (const py::error_already_set& e) {
    throw Error(where + ": cannot import the caffe Python package, which "
                "Python layers need; add LeanCaffe's python/ directory to "
                "PYTHONPATH.\n" + FormatPythonError(e));
  }
  // A caffe package from another build (another compiler, or flags that
  // change pybind11's ABI) registers its classes where this process's
  // code cannot see them; every blob handed to Python would then fail.
  if (py::detail::get_type_info(typeid(PyBlob)) == nullptr) {
    string file = "?";
    try {
      file = py::str(caffe.attr("_caffe").attr("__file__")).cast<string>();
    } catch (const py::error_already_set&) {
    }
    throw Error(where + ": the caffe Python package found first on "
                "PYTHONPATH (" + file + ") comes from another build than "
                "this program; put this build's python/ directory first "
                "on PYTHONPATH");
  }
}

shared_ptr<Layer<float> > CreatePythonLayer(const LayerParameter& param) {
  const PythonParameter& pp = param.python_param();
  const string where = "Python layer '" + param.name() + "'";
  if (pp.module().empty() || pp.layer().empty()) {
    throw Error(where + ": python_param needs `module` (the Python module to "
                "import) and `layer` (the class in it)");
  }
  StartInterpreterIfNeeded();
  py::gil_scoped_acquire gil;
  ImportCaffe(where);
  try {
    py::object cls =
        py::module_::import(pp.module().c_str()).attr(pp.layer().c_str());
    // The constructor gets the LayerParameter, as in Caffe 1.0.
    py::object proto =
        py::module_::import("caffe.proto.caffe_pb2").attr("LayerParameter")();
    proto.attr("ParseFromString")(py::bytes(param.SerializeAsString()));
    py::object self = cls(proto);
    shared_ptr<PythonLayer> layer =
        std::make_shared<PythonLayer>(self.ptr(), param);
    try {
      PyLayerHandle& handle = self.cast<PyLayerHandle&>();
      handle.python = layer;
      handle.is_python = true;
    } catch (const py::cast_error&) {
      // Not a caffe.Layer subclass: it works, but has no .blobs.
    }
    self.attr("param_str") = py::str(pp.param_str());
    self.attr("phase") = py::int_(static_cast<int>(param.phase()));
    return layer;
  } catch (const py::error_already_set& e) {
    throw Error(where + " (" + pp.module() + "." + pp.layer() +
                "): creating the layer failed:\n" + FormatPythonError(e));
  }
}

shared_ptr<Layer<double> > RefuseDoublePythonLayer(
    const LayerParameter& param) {
  throw Error("Python layer '" + param.name() +
              "': Python layers run in float nets only");
}

}  // namespace

PythonLayer::PythonLayer(_object* self, const LayerParameter& param)
    : Layer<float>(param), self_(self) {
  Py_XINCREF(self_);
}

PythonLayer::~PythonLayer() {
  // Without a running interpreter the reference is left behind on purpose:
  // there is nothing left to free it into.
  if (self_ == nullptr || !Py_IsInitialized() || _Py_IsFinalizing()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(self_);
}

string PythonLayer::Describe() const {
  const PythonParameter& pp = this->layer_param_.python_param();
  return "Python layer '" + this->layer_param_.name() + "' (" + pp.module() +
         "." + pp.layer() + ")";
}

void PythonLayer::LayerSetUp(const vector<Blob<float>*>& bottom,
                             const vector<Blob<float>*>& top) {
  py::gil_scoped_acquire gil;
  try {
    py::handle self(self_);
    self.attr("param_str") =
        py::str(this->layer_param_.python_param().param_str());
    self.attr("phase") = py::int_(static_cast<int>(this->phase_));
    self.attr("setup")(BlobList(bottom), BlobList(top));
  } catch (const py::error_already_set& e) {
    throw Error(Describe() + ".setup raised:\n" + FormatPythonError(e));
  }
}

void PythonLayer::Reshape(const vector<Blob<float>*>& bottom,
                          const vector<Blob<float>*>& top) {
  py::gil_scoped_acquire gil;
  try {
    py::handle(self_).attr("reshape")(BlobList(bottom), BlobList(top));
  } catch (const py::error_already_set& e) {
    throw Error(Describe() + ".reshape raised:\n" + FormatPythonError(e));
  }
}

void PythonLayer::Forward_cpu(const vector<Blob<float>*>& bottom,
                              const vector<Blob<float>*>& top) {
  // The layer is the producer of its tops: writing them is what clears
  // mem_param's not-readable mark, and Python writes through views that
  // are taken only for readable memory.
  for (Blob<float>* t : top)
    if (t->count() > 0) t->mutable_cpu_data();
  py::gil_scoped_acquire gil;
  try {
    py::handle(self_).attr("forward")(BlobList(bottom), BlobList(top));
  } catch (const py::error_already_set& e) {
    throw Error(Describe() + ".forward raised:\n" + FormatPythonError(e));
  }
}

void PythonLayer::Backward_cpu(const vector<Blob<float>*>& top,
                               const vector<bool>& propagate_down,
                               const vector<Blob<float>*>& bottom) {
  for (size_t i = 0; i < bottom.size(); ++i)  // as for tops in Forward
    if (propagate_down[i] && bottom[i]->count() > 0)
      bottom[i]->mutable_cpu_diff();
  py::gil_scoped_acquire gil;
  try {
    py::list down;
    for (bool d : propagate_down) down.append(py::bool_(d));
    py::handle(self_).attr("backward")(BlobList(top), down, BlobList(bottom));
  } catch (const py::error_already_set& e) {
    throw Error(Describe() + ".backward raised:\n" + FormatPythonError(e));
  }
}

void RegisterPythonLayer(const vector<string>& prototxt_files) {
  for (const string& f : prototxt_files)
    if (!f.empty()) SysPathDirs().push_back(DirName(f));
  if (!LayerRegistry<float>::Registry().count("Python"))
    LayerRegistry<float>::AddCreator("Python", &CreatePythonLayer);
  if (!LayerRegistry<double>::Registry().count("Python"))
    LayerRegistry<double>::AddCreator("Python", &RefuseDoublePythonLayer);
}

}  // namespace caffe
