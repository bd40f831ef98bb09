// pyblob.hpp: the C++ objects behind pycaffe's Blob and Layer classes.
//
// Shared by the _caffe module (which binds them) and the Python layer (which
// hands bottoms and tops to Python code, also inside the `caffe` tool).
//
// Contract:
//  * PyBlob is a Blob as Python sees it.  A PyBlob taken from a Net
//    (Net._blobs) carries that net and the blob's name, so reading its
//    .data/.diff can refuse memory that mem_param gave to another blob.
//    Every other PyBlob (layer parameters, a Python layer's bottoms and
//    tops, standalone blobs) has no net and is always readable.
//  * PyLayerHandle is a Layer as Python sees it.  For a C++ layer it owns
//    the layer.  For a Python layer (an instance of a caffe.Layer subclass)
//    the C++ PythonLayer owns the Python object, so the handle refers back
//    weakly: it stops working once the net that owns the layer is gone.
#ifndef PYCAFFE_PYBLOB_HPP_
#define PYCAFFE_PYBLOB_HPP_

#include <memory>
#include <string>

#include "caffe/blob.hpp"
#include "caffe/layer.hpp"
#include "caffe/net.hpp"

namespace caffe {

struct PyBlob {
  std::shared_ptr<Blob<float> > blob;
  std::shared_ptr<Net<float> > net;  // null when not read through a net
  std::string name;
};

// A PyBlob for a blob the caller does not own (a layer's bottom or top);
// the blob must outlive the PyBlob's use, as in Caffe.
inline PyBlob BorrowedPyBlob(Blob<float>* blob) {
  PyBlob b;
  b.blob = std::shared_ptr<Blob<float> >(blob, [](Blob<float>*) {});
  return b;
}

struct PyLayerHandle {
  std::shared_ptr<Layer<float> > owned;  // a C++ layer
  std::weak_ptr<Layer<float> > python;   // the PythonLayer of a Python object
  bool is_python = false;

  std::shared_ptr<Layer<float> > get() const {
    if (owned) return owned;
    std::shared_ptr<Layer<float> > layer = python.lock();
    if (!layer) {
      throw Error(is_python
                      ? "this Python layer is no longer part of a net (the "
                        "net that created it was destroyed)"
                      : "this Layer object is not attached to a net; layers "
                        "are created by caffe.Net from a prototxt");
    }
    return layer;
  }
};

}  // namespace caffe

#endif  // PYCAFFE_PYBLOB_HPP_
