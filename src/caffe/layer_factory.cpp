#include "caffe/layer_factory.hpp"

#include "caffe/layer.hpp"

namespace caffe {

template <typename Dtype>
typename LayerRegistry<Dtype>::CreatorRegistry&
LayerRegistry<Dtype>::Registry() {
  static CreatorRegistry* registry = new CreatorRegistry();
  return *registry;
}

template <typename Dtype>
void LayerRegistry<Dtype>::AddCreator(const string& type, Creator creator) {
  CreatorRegistry& registry = Registry();
  CAFFE_CHECK_EQ(registry.count(type), 0u)
      << "Layer type " << type << " already registered.";
  registry[type] = creator;
}

template <typename Dtype>
shared_ptr<Layer<Dtype> > LayerRegistry<Dtype>::CreateLayer(
    const LayerParameter& param) {
  const string& type = param.type();
  CreatorRegistry& registry = Registry();
  CAFFE_CHECK_EQ(registry.count(type), 1u)
      << "Unknown layer type: \"" << type << "\" (layer \"" << param.name()
      << "\"; known types: " << LayerTypeListString() << ")";
  return registry[type](param);
}

template <typename Dtype>
vector<string> LayerRegistry<Dtype>::LayerTypeList() {
  vector<string> list;
  for (const auto& kv : Registry()) list.push_back(kv.first);
  return list;
}

template <typename Dtype>
string LayerRegistry<Dtype>::LayerTypeListString() {
  string s;
  for (const string& t : LayerTypeList()) {
    if (!s.empty()) s += ", ";
    s += t;
  }
  return s;
}

template class LayerRegistry<float>;
template class LayerRegistry<double>;

}  // namespace caffe
