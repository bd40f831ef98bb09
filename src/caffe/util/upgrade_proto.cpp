#include "caffe/util/upgrade_proto.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <map>

#include "caffe/common.hpp"
#include "caffe/util/io.hpp"

namespace caffe {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Reflection;

bool NetNeedsUpgrade(const NetParameter& p) {
  return NetNeedsV0ToV1Upgrade(p) || NetNeedsV1ToV2Upgrade(p) ||
         NetNeedsDataUpgrade(p) || NetNeedsInputUpgrade(p) ||
         NetNeedsBatchNormUpgrade(p);
}

bool NetNeedsV0ToV1Upgrade(const NetParameter& p) {
  for (int i = 0; i < p.layers_size(); ++i)
    if (p.layers(i).has_layer()) return true;
  return false;
}

bool NetNeedsV1ToV2Upgrade(const NetParameter& p) {
  return p.layers_size() > 0;
}

namespace {

// V0 type names and the V1 enum they became.
V1LayerParameter_LayerType V0TypeToV1(const string& type) {
  static const std::map<string, V1LayerParameter_LayerType> kMap = {
      {"accuracy", V1LayerParameter_LayerType_ACCURACY},
      {"bnll", V1LayerParameter_LayerType_BNLL},
      {"concat", V1LayerParameter_LayerType_CONCAT},
      {"conv", V1LayerParameter_LayerType_CONVOLUTION},
      {"data", V1LayerParameter_LayerType_DATA},
      {"dropout", V1LayerParameter_LayerType_DROPOUT},
      {"euclidean_loss", V1LayerParameter_LayerType_EUCLIDEAN_LOSS},
      {"flatten", V1LayerParameter_LayerType_FLATTEN},
      {"hdf5_data", V1LayerParameter_LayerType_HDF5_DATA},
      {"hdf5_output", V1LayerParameter_LayerType_HDF5_OUTPUT},
      {"im2col", V1LayerParameter_LayerType_IM2COL},
      {"images", V1LayerParameter_LayerType_IMAGE_DATA},
      {"infogain_loss", V1LayerParameter_LayerType_INFOGAIN_LOSS},
      {"innerproduct", V1LayerParameter_LayerType_INNER_PRODUCT},
      {"lrn", V1LayerParameter_LayerType_LRN},
      {"multinomial_logistic_loss",
       V1LayerParameter_LayerType_MULTINOMIAL_LOGISTIC_LOSS},
      {"pool", V1LayerParameter_LayerType_POOLING},
      {"relu", V1LayerParameter_LayerType_RELU},
      {"sigmoid", V1LayerParameter_LayerType_SIGMOID},
      {"softmax", V1LayerParameter_LayerType_SOFTMAX},
      {"softmax_loss", V1LayerParameter_LayerType_SOFTMAX_LOSS},
      {"split", V1LayerParameter_LayerType_SPLIT},
      {"tanh", V1LayerParameter_LayerType_TANH},
      {"window_data", V1LayerParameter_LayerType_WINDOW_DATA},
  };
  auto it = kMap.find(type);
  CAFFE_CHECK(it != kMap.end()) << "Unknown V0 layer type \"" << type << "\"";
  return it->second;
}

// Moves one V0 layer's flat fields into the V1 layer's *_param messages.
void UpgradeV0Layer(const V1LayerParameter& in, int pad, V1LayerParameter* out) {
  out->Clear();
  for (int i = 0; i < in.bottom_size(); ++i) out->add_bottom(in.bottom(i));
  for (int i = 0; i < in.top_size(); ++i) out->add_top(in.top(i));
  const V0LayerParameter& v0 = in.layer();
  if (v0.has_name()) out->set_name(v0.name());
  const string& type = v0.type();
  out->set_type(V0TypeToV1(type));
  for (int i = 0; i < v0.blobs_size(); ++i) out->add_blobs()->CopyFrom(v0.blobs(i));
  for (int i = 0; i < v0.blobs_lr_size(); ++i) out->add_blobs_lr(v0.blobs_lr(i));
  for (int i = 0; i < v0.weight_decay_size(); ++i)
    out->add_weight_decay(v0.weight_decay(i));
  if (type == "conv") {
    ConvolutionParameter* c = out->mutable_convolution_param();
    if (v0.has_num_output()) c->set_num_output(v0.num_output());
    if (v0.has_biasterm()) c->set_bias_term(v0.biasterm());
    if (v0.has_weight_filler()) c->mutable_weight_filler()->CopyFrom(v0.weight_filler());
    if (v0.has_bias_filler()) c->mutable_bias_filler()->CopyFrom(v0.bias_filler());
    if (v0.has_pad() || pad) c->add_pad(pad ? pad : v0.pad());
    if (v0.has_kernelsize()) c->add_kernel_size(v0.kernelsize());
    if (v0.has_group()) c->set_group(v0.group());
    if (v0.has_stride()) c->add_stride(v0.stride());
  } else if (type == "pool") {
    PoolingParameter* p = out->mutable_pooling_param();
    if (v0.has_pool()) p->set_pool(static_cast<PoolingParameter_PoolMethod>(v0.pool()));
    if (v0.has_kernelsize()) p->set_kernel_size(v0.kernelsize());
    if (v0.has_stride()) p->set_stride(v0.stride());
    if (v0.has_pad() || pad) p->set_pad(pad ? pad : v0.pad());
  } else if (type == "innerproduct") {
    InnerProductParameter* p = out->mutable_inner_product_param();
    if (v0.has_num_output()) p->set_num_output(v0.num_output());
    if (v0.has_biasterm()) p->set_bias_term(v0.biasterm());
    if (v0.has_weight_filler()) p->mutable_weight_filler()->CopyFrom(v0.weight_filler());
    if (v0.has_bias_filler()) p->mutable_bias_filler()->CopyFrom(v0.bias_filler());
  } else if (type == "dropout") {
    if (v0.has_dropout_ratio())
      out->mutable_dropout_param()->set_dropout_ratio(v0.dropout_ratio());
  } else if (type == "lrn") {
    LRNParameter* p = out->mutable_lrn_param();
    if (v0.has_local_size()) p->set_local_size(v0.local_size());
    if (v0.has_alpha()) p->set_alpha(v0.alpha());
    if (v0.has_beta()) p->set_beta(v0.beta());
    if (v0.has_k()) p->set_k(v0.k());
  } else if (type == "data") {
    DataParameter* p = out->mutable_data_param();
    if (v0.has_source()) p->set_source(v0.source());
    if (v0.has_batchsize()) p->set_batch_size(v0.batchsize());
    if (v0.has_rand_skip()) p->set_rand_skip(v0.rand_skip());
    TransformationParameter* t = out->mutable_transform_param();
    if (v0.has_scale()) t->set_scale(v0.scale());
    if (v0.has_meanfile()) t->set_mean_file(v0.meanfile());
    if (v0.has_cropsize()) t->set_crop_size(v0.cropsize());
    if (v0.has_mirror()) t->set_mirror(v0.mirror());
  } else if (type == "images") {
    ImageDataParameter* p = out->mutable_image_data_param();
    if (v0.has_source()) p->set_source(v0.source());
    if (v0.has_batchsize()) p->set_batch_size(v0.batchsize());
    if (v0.has_rand_skip()) p->set_rand_skip(v0.rand_skip());
    if (v0.has_shuffle_images()) p->set_shuffle(v0.shuffle_images());
    if (v0.has_new_height()) p->set_new_height(v0.new_height());
    if (v0.has_new_width()) p->set_new_width(v0.new_width());
    TransformationParameter* t = out->mutable_transform_param();
    if (v0.has_scale()) t->set_scale(v0.scale());
    if (v0.has_meanfile()) t->set_mean_file(v0.meanfile());
    if (v0.has_cropsize()) t->set_crop_size(v0.cropsize());
    if (v0.has_mirror()) t->set_mirror(v0.mirror());
  } else if (type == "hdf5_data") {
    HDF5DataParameter* p = out->mutable_hdf5_data_param();
    if (v0.has_source()) p->set_source(v0.source());
    if (v0.has_batchsize()) p->set_batch_size(v0.batchsize());
  } else if (type == "hdf5_output") {
    if (v0.has_hdf5_output_param())
      out->mutable_hdf5_output_param()->CopyFrom(v0.hdf5_output_param());
  } else if (type == "window_data") {
    WindowDataParameter* p = out->mutable_window_data_param();
    if (v0.has_source()) p->set_source(v0.source());
    if (v0.has_batchsize()) p->set_batch_size(v0.batchsize());
    if (v0.has_det_fg_threshold()) p->set_fg_threshold(v0.det_fg_threshold());
    if (v0.has_det_bg_threshold()) p->set_bg_threshold(v0.det_bg_threshold());
    if (v0.has_det_fg_fraction()) p->set_fg_fraction(v0.det_fg_fraction());
    if (v0.has_det_context_pad()) p->set_context_pad(v0.det_context_pad());
    if (v0.has_det_crop_mode()) p->set_crop_mode(v0.det_crop_mode());
    TransformationParameter* t = out->mutable_transform_param();
    if (v0.has_scale()) t->set_scale(v0.scale());
    if (v0.has_meanfile()) t->set_mean_file(v0.meanfile());
    if (v0.has_cropsize()) t->set_crop_size(v0.cropsize());
    if (v0.has_mirror()) t->set_mirror(v0.mirror());
  } else if (type == "concat") {
    if (v0.has_concat_dim())
      out->mutable_concat_param()->set_concat_dim(v0.concat_dim());
  }
}

// Copies every *_param submessage present in `from` into the field of the
// same name in `to` (V1 and V2 layers use the same parameter messages).
void CopySameNamedParams(const google::protobuf::Message& from,
                         google::protobuf::Message* to) {
  const Reflection* rf = from.GetReflection();
  const Reflection* rt = to->GetReflection();
  const Descriptor* dt = to->GetDescriptor();
  std::vector<const FieldDescriptor*> fields;
  rf->ListFields(from, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->type() != FieldDescriptor::TYPE_MESSAGE || f->is_repeated())
      continue;
    const string& name = f->name();
    if (name.size() < 6 || name.compare(name.size() - 6, 6, "_param") != 0)
      continue;
    const FieldDescriptor* g = dt->FindFieldByName(name);
    if (!g) continue;
    rt->MutableMessage(to, g)->CopyFrom(rf->GetMessage(from, f));
  }
}

}  // namespace

bool UpgradeV0Net(const NetParameter& v0_net, NetParameter* net) {
  net->CopyFrom(v0_net);
  net->clear_layers();
  // V0 nets express padding as a separate "padding" layer feeding a conv or
  // pool layer; fold it into the consumer.
  std::map<string, std::pair<string, int> > padded;  // top -> (bottom, pad)
  for (int i = 0; i < v0_net.layers_size(); ++i) {
    const V1LayerParameter& l = v0_net.layers(i);
    if (l.has_layer() && l.layer().type() == "padding") {
      CAFFE_CHECK(l.bottom_size() == 1 && l.top_size() == 1)
          << "padding layer " << l.layer().name() << " needs one bottom/top";
      padded[l.top(0)] = std::make_pair(l.bottom(0), l.layer().pad());
      continue;
    }
    int pad = 0;
    V1LayerParameter in = l;
    for (int b = 0; b < in.bottom_size(); ++b) {
      auto it = padded.find(in.bottom(b));
      if (it == padded.end()) continue;
      const string& t = l.layer().type();
      CAFFE_CHECK(t == "conv" || t == "pool")
          << "padding layer feeds layer " << l.layer().name()
          << " of type " << t << ", which cannot absorb it";
      in.set_bottom(b, it->second.first);
      pad = it->second.second;
    }
    if (l.has_layer()) {
      UpgradeV0Layer(in, pad, net->add_layers());
    } else {
      net->add_layers()->CopyFrom(in);
    }
  }
  return true;
}

const char* UpgradeV1LayerType(V1LayerParameter_LayerType type) {
  switch (type) {
    case V1LayerParameter_LayerType_NONE: return "";
    case V1LayerParameter_LayerType_ABSVAL: return "AbsVal";
    case V1LayerParameter_LayerType_ACCURACY: return "Accuracy";
    case V1LayerParameter_LayerType_ARGMAX: return "ArgMax";
    case V1LayerParameter_LayerType_BNLL: return "BNLL";
    case V1LayerParameter_LayerType_CONCAT: return "Concat";
    case V1LayerParameter_LayerType_CONTRASTIVE_LOSS: return "ContrastiveLoss";
    case V1LayerParameter_LayerType_CONVOLUTION: return "Convolution";
    case V1LayerParameter_LayerType_DECONVOLUTION: return "Deconvolution";
    case V1LayerParameter_LayerType_DATA: return "Data";
    case V1LayerParameter_LayerType_DROPOUT: return "Dropout";
    case V1LayerParameter_LayerType_DUMMY_DATA: return "DummyData";
    case V1LayerParameter_LayerType_EUCLIDEAN_LOSS: return "EuclideanLoss";
    case V1LayerParameter_LayerType_ELTWISE: return "Eltwise";
    case V1LayerParameter_LayerType_EXP: return "Exp";
    case V1LayerParameter_LayerType_FLATTEN: return "Flatten";
    case V1LayerParameter_LayerType_HDF5_DATA: return "HDF5Data";
    case V1LayerParameter_LayerType_HDF5_OUTPUT: return "HDF5Output";
    case V1LayerParameter_LayerType_HINGE_LOSS: return "HingeLoss";
    case V1LayerParameter_LayerType_IM2COL: return "Im2col";
    case V1LayerParameter_LayerType_IMAGE_DATA: return "ImageData";
    case V1LayerParameter_LayerType_INFOGAIN_LOSS: return "InfogainLoss";
    case V1LayerParameter_LayerType_INNER_PRODUCT: return "InnerProduct";
    case V1LayerParameter_LayerType_LRN: return "LRN";
    case V1LayerParameter_LayerType_MEMORY_DATA: return "MemoryData";
    case V1LayerParameter_LayerType_MULTINOMIAL_LOGISTIC_LOSS:
      return "MultinomialLogisticLoss";
    case V1LayerParameter_LayerType_MVN: return "MVN";
    case V1LayerParameter_LayerType_POOLING: return "Pooling";
    case V1LayerParameter_LayerType_POWER: return "Power";
    case V1LayerParameter_LayerType_RELU: return "ReLU";
    case V1LayerParameter_LayerType_SIGMOID: return "Sigmoid";
    case V1LayerParameter_LayerType_SIGMOID_CROSS_ENTROPY_LOSS:
      return "SigmoidCrossEntropyLoss";
    case V1LayerParameter_LayerType_SILENCE: return "Silence";
    case V1LayerParameter_LayerType_SOFTMAX: return "Softmax";
    case V1LayerParameter_LayerType_SOFTMAX_LOSS: return "SoftmaxWithLoss";
    case V1LayerParameter_LayerType_SPLIT: return "Split";
    case V1LayerParameter_LayerType_SLICE: return "Slice";
    case V1LayerParameter_LayerType_TANH: return "TanH";
    case V1LayerParameter_LayerType_WINDOW_DATA: return "WindowData";
    case V1LayerParameter_LayerType_THRESHOLD: return "Threshold";
  }
  CAFFE_THROW() << "Unknown V1 layer type " << static_cast<int>(type);
  return "";
}

bool UpgradeV1Net(const NetParameter& v1_net, NetParameter* net) {
  CAFFE_CHECK_EQ(v1_net.layer_size(), 0)
      << "a net may not mix V1 'layers' and V2 'layer' fields";
  net->CopyFrom(v1_net);
  net->clear_layers();
  for (int i = 0; i < v1_net.layers_size(); ++i) {
    const V1LayerParameter& v1 = v1_net.layers(i);
    CAFFE_CHECK(!v1.has_layer())
        << "V1 layer " << v1.name() << " still holds a V0 layer";
    LayerParameter* l = net->add_layer();
    for (int j = 0; j < v1.bottom_size(); ++j) l->add_bottom(v1.bottom(j));
    for (int j = 0; j < v1.top_size(); ++j) l->add_top(v1.top(j));
    if (v1.has_name()) l->set_name(v1.name());
    for (int j = 0; j < v1.include_size(); ++j)
      l->add_include()->CopyFrom(v1.include(j));
    for (int j = 0; j < v1.exclude_size(); ++j)
      l->add_exclude()->CopyFrom(v1.exclude(j));
    if (v1.has_type()) l->set_type(UpgradeV1LayerType(v1.type()));
    for (int j = 0; j < v1.blobs_size(); ++j)
      l->add_blobs()->CopyFrom(v1.blobs(j));
    auto param = [l](int j) {
      while (l->param_size() <= j) l->add_param();
      return l->mutable_param(j);
    };
    for (int j = 0; j < v1.param_size(); ++j) param(j)->set_name(v1.param(j));
    for (int j = 0; j < v1.blob_share_mode_size(); ++j)
      param(j)->set_share_mode(
          static_cast<ParamSpec_DimCheckMode>(v1.blob_share_mode(j)));
    for (int j = 0; j < v1.blobs_lr_size(); ++j)
      param(j)->set_lr_mult(v1.blobs_lr(j));
    for (int j = 0; j < v1.weight_decay_size(); ++j)
      param(j)->set_decay_mult(v1.weight_decay(j));
    for (int j = 0; j < v1.loss_weight_size(); ++j)
      l->add_loss_weight(v1.loss_weight(j));
    CopySameNamedParams(v1, l);
  }
  return true;
}

bool NetNeedsDataUpgrade(const NetParameter& p) {
  for (int i = 0; i < p.layers_size(); ++i) {
    const V1LayerParameter& l = p.layers(i);
    const DataParameter& d = l.data_param();
    if (d.has_scale() || d.has_mean_file() || d.has_crop_size() ||
        d.has_mirror())
      return true;
    const ImageDataParameter& im = l.image_data_param();
    if (im.has_scale() || im.has_mean_file() || im.has_crop_size() ||
        im.has_mirror())
      return true;
    const WindowDataParameter& w = l.window_data_param();
    if (w.has_scale() || w.has_mean_file() || w.has_crop_size() ||
        w.has_mirror())
      return true;
  }
  for (int i = 0; i < p.layer_size(); ++i) {
    const DataParameter& d = p.layer(i).data_param();
    if (d.has_scale() || d.has_mean_file() || d.has_crop_size() ||
        d.has_mirror())
      return true;
  }
  return false;
}

namespace {
template <typename P>
void MoveTransform(P* p, TransformationParameter* t) {
  if (p->has_scale()) t->set_scale(p->scale());
  if (p->has_mean_file()) t->set_mean_file(p->mean_file());
  if (p->has_crop_size()) t->set_crop_size(p->crop_size());
  if (p->has_mirror()) t->set_mirror(p->mirror());
  p->clear_scale();
  p->clear_mean_file();
  p->clear_crop_size();
  p->clear_mirror();
}
}  // namespace

void UpgradeNetDataTransformation(NetParameter* p) {
  for (int i = 0; i < p->layers_size(); ++i) {
    V1LayerParameter* l = p->mutable_layers(i);
    if (l->has_data_param())
      MoveTransform(l->mutable_data_param(), l->mutable_transform_param());
    if (l->has_image_data_param())
      MoveTransform(l->mutable_image_data_param(),
                    l->mutable_transform_param());
    if (l->has_window_data_param())
      MoveTransform(l->mutable_window_data_param(),
                    l->mutable_transform_param());
  }
  for (int i = 0; i < p->layer_size(); ++i) {
    LayerParameter* l = p->mutable_layer(i);
    if (l->has_data_param())
      MoveTransform(l->mutable_data_param(), l->mutable_transform_param());
  }
}

bool NetNeedsInputUpgrade(const NetParameter& p) { return p.input_size() > 0; }

void UpgradeNetInput(NetParameter* p) {
  const bool has_shape = p->input_shape_size() > 0;
  const bool has_dim = p->input_dim_size() > 0;
  if (has_shape || has_dim) {
    LayerParameter input;
    input.set_name("input");
    input.set_type("Input");
    InputParameter* ip = input.mutable_input_param();
    for (int i = 0; i < p->input_size(); ++i) {
      input.add_top(p->input(i));
      if (has_shape) {
        CAFFE_CHECK_EQ(p->input_size(), p->input_shape_size())
            << "one input_shape is needed per input";
        ip->add_shape()->CopyFrom(p->input_shape(i));
      } else {
        CAFFE_CHECK_EQ(p->input_dim_size(), 4 * p->input_size())
            << "input_dim needs 4 values per input";
        BlobShape* s = ip->add_shape();
        for (int j = 0; j < 4; ++j) s->add_dim(p->input_dim(4 * i + j));
      }
    }
    // The Input layer goes first.
    p->add_layer()->CopyFrom(input);
    for (int i = p->layer_size() - 1; i > 0; --i)
      p->mutable_layer()->SwapElements(i, i - 1);
  }
  p->clear_input();
  p->clear_input_shape();
  p->clear_input_dim();
}

bool NetNeedsBatchNormUpgrade(const NetParameter& p) {
  for (int i = 0; i < p.layer_size(); ++i)
    if (p.layer(i).type() == "BatchNorm" && p.layer(i).param_size() == 3)
      return true;
  return false;
}

void UpgradeNetBatchNorm(NetParameter* p) {
  // BatchNorm now fixes its statistics' lr_mult to 0 itself; the old
  // explicit param specs are dropped.
  for (int i = 0; i < p->layer_size(); ++i)
    if (p->layer(i).type() == "BatchNorm" && p->layer(i).param_size() == 3)
      p->mutable_layer(i)->clear_param();
}

bool UpgradeNetAsNeeded(const string& param_file, NetParameter* param) {
  if (NetNeedsV0ToV1Upgrade(*param)) {
    LOG(INFO) << param_file << ": upgrading V0 layers";
    NetParameter original(*param);
    UpgradeV0Net(original, param);
  }
  if (NetNeedsDataUpgrade(*param)) {
    LOG(INFO) << param_file << ": moving data transformation fields";
    UpgradeNetDataTransformation(param);
  }
  if (NetNeedsV1ToV2Upgrade(*param)) {
    LOG(INFO) << param_file << ": upgrading V1 layers";
    NetParameter original(*param);
    UpgradeV1Net(original, param);
  }
  if (NetNeedsInputUpgrade(*param)) {
    LOG(INFO) << param_file << ": upgrading input fields to an Input layer";
    UpgradeNetInput(param);
  }
  if (NetNeedsBatchNormUpgrade(*param)) {
    LOG(INFO) << param_file << ": upgrading BatchNorm param specs";
    UpgradeNetBatchNorm(param);
  }
  return true;
}

void ReadNetParamsFromTextFileOrDie(const string& param_file,
                                    NetParameter* param) {
  ReadProtoFromTextFileOrDie(param_file, param);
  UpgradeNetAsNeeded(param_file, param);
}

void ReadNetParamsFromBinaryFileOrDie(const string& param_file,
                                      NetParameter* param) {
  ReadProtoFromBinaryFileOrDie(param_file, param);
  UpgradeNetAsNeeded(param_file, param);
}

bool SolverNeedsTypeUpgrade(const SolverParameter& p) {
  return p.has_solver_type();
}

bool UpgradeSolverType(SolverParameter* p) {
  CAFFE_CHECK(!p->has_solver_type() || !p->has_type())
      << "solver_type and type are both set; remove solver_type";
  if (!p->has_solver_type()) return true;
  static const char* kNames[] = {"SGD", "Nesterov", "AdaGrad",
                                 "RMSProp", "AdaDelta", "Adam"};
  const int t = p->solver_type();
  CAFFE_CHECK(t >= 0 && t < 6) << "unknown solver_type " << t;
  p->set_type(kNames[t]);
  p->clear_solver_type();
  return true;
}

bool UpgradeSolverAsNeeded(const string& param_file, SolverParameter* p) {
  if (SolverNeedsTypeUpgrade(*p)) {
    LOG(INFO) << param_file << ": upgrading solver_type to type";
    UpgradeSolverType(p);
  }
  return true;
}

void ReadSolverParamsFromTextFileOrDie(const string& param_file,
                                       SolverParameter* param) {
  ReadProtoFromTextFileOrDie(param_file, param);
  UpgradeSolverAsNeeded(param_file, param);
}

}  // namespace caffe
