// layer_factory.hpp: the registry that maps a layer's type string to a
// constructor.
//
// Contract: each layer source registers itself once with
// REGISTER_LAYER_CLASS(Type) (class TypeLayer) or REGISTER_LAYER_CREATOR for a
// custom creator.  CreateLayer throws caffe::Error for an unknown type, and
// the message lists every registered type.
#ifndef CAFFE_LAYER_FACTORY_HPP_
#define CAFFE_LAYER_FACTORY_HPP_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class Layer;

template <typename Dtype>
class LayerRegistry {
 public:
  typedef shared_ptr<Layer<Dtype> > (*Creator)(const LayerParameter&);
  typedef std::map<string, Creator> CreatorRegistry;

  static CreatorRegistry& Registry();
  static void AddCreator(const string& type, Creator creator);
  static shared_ptr<Layer<Dtype> > CreateLayer(const LayerParameter& param);
  static vector<string> LayerTypeList();
  static string LayerTypeListString();
};

template <typename Dtype>
class LayerRegisterer {
 public:
  LayerRegisterer(const string& type,
                  shared_ptr<Layer<Dtype> > (*creator)(const LayerParameter&)) {
    LayerRegistry<Dtype>::AddCreator(type, creator);
  }
};

#define REGISTER_LAYER_CREATOR(type, creator)                                \
  static LayerRegisterer<float> g_creator_f_##type(#type, creator<float>);   \
  static LayerRegisterer<double> g_creator_d_##type(#type, creator<double>)

#define REGISTER_LAYER_CLASS(type)                                            \
  template <typename Dtype>                                                   \
  shared_ptr<Layer<Dtype> > Creator_##type##Layer(                            \
      const LayerParameter& param) {                                          \
    return shared_ptr<Layer<Dtype> >(new type##Layer<Dtype>(param));          \
  }                                                                           \
  REGISTER_LAYER_CREATOR(type, Creator_##type##Layer)

}  // namespace caffe

#endif  // CAFFE_LAYER_FACTORY_HPP_
