// model_zoo_util.hpp: the nets of models/ made runnable in tests without
// their datasets: every Data layer becomes a DummyData layer with the same
// tops and shapes (random images, labels drawn from the classes), at a
// small batch.
#ifndef CAFFE_TEST_MODEL_ZOO_UTIL_HPP_
#define CAFFE_TEST_MODEL_ZOO_UTIL_HPP_

#include <ostream>
#include <cstdlib>
#include <string>
#include <vector>

#include "caffe/caffe.hpp"

namespace caffe {

struct ZooModel {
  std::string name;      // folder under models/
  int channels, size;    // input image
};

// Test names and ctest listings show the model's name.
inline void PrintTo(const ZooModel& m, std::ostream* os) { *os << m.name; }

inline std::vector<ZooModel> ZooModels() {
  return {{"lenet", 1, 28},     {"cifar10_quick", 3, 32},
          {"caffenet", 3, 227}, {"alexnet", 3, 227},
          {"googlenet", 3, 224}, {"vgg16", 3, 224},
          {"resnet50", 3, 224}};
}

// The checkout the tests were built from, or $CAFFE_SOURCE_DIR when set
// (the GPU bundle runs on another machine, in another folder).
inline std::string SourceDir() {
  const char* env = std::getenv("CAFFE_SOURCE_DIR");
  return env && *env ? std::string(env) : std::string(CAFFE_SOURCE_DIR);
}

inline std::string ModelPath(const std::string& model,
                             const std::string& file) {
  return SourceDir() + "/models/" + model + "/" + file;
}

// train_val.prototxt with Data layers replaced by DummyData of `batch`,
// without its mem_param block: each test says whether it optimizes.
inline NetParameter ZooTrainVal(const ZooModel& m, int batch) {
  NetParameter p;
  ReadNetParamsFromTextFileOrDie(ModelPath(m.name, "train_val.prototxt"), &p);
  p.clear_mem_param();
  for (int i = 0; i < p.layer_size(); ++i) {
    LayerParameter* l = p.mutable_layer(i);
    if (l->type() != "Data") continue;
    l->set_type("DummyData");
    l->clear_data_param();
    l->clear_transform_param();
    DummyDataParameter* d = l->mutable_dummy_data_param();
    BlobShape* s = d->add_shape();
    s->add_dim(batch);
    s->add_dim(m.channels);
    s->add_dim(m.size);
    s->add_dim(m.size);
    FillerParameter* f = d->add_data_filler();
    f->set_type("gaussian");
    f->set_std(1);
    if (l->top_size() > 1) {
      d->add_shape()->add_dim(batch);
      // Labels: constant class 1 keeps them valid for every net.
      FillerParameter* lf = d->add_data_filler();
      lf->set_type("constant");
      lf->set_value(1);
    }
  }
  return p;
}

// The model of ZooModels() called `name`, as ZooTrainVal makes it, set to
// the TRAIN phase; an empty NetParameter when no model has that name (the
// caller asserts it has layers).
inline NetParameter ZooTrainNet(const std::string& name, int batch) {
  NetParameter p;
  for (const ZooModel& model : ZooModels())
    if (model.name == name) p = ZooTrainVal(model, batch);
  p.mutable_state()->set_phase(TRAIN);
  return p;
}

}  // namespace caffe

#endif  // CAFFE_TEST_MODEL_ZOO_UTIL_HPP_
