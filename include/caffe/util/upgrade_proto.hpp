// upgrade_proto.hpp: reads nets and solvers written for any Caffe version.
//
// Contract: the Read*ParamsFrom*OrDie functions parse a file and run every
// upgrade Caffe 1.0 runs (V0 layers -> V1 -> V2 string-typed layers, legacy
// `input:` fields -> an Input layer, data-layer transform fields ->
// transform_param, BatchNorm param specs, solver_type -> type).  They throw
// caffe::Error naming the file on a parse error or an impossible upgrade.
#ifndef CAFFE_UTIL_UPGRADE_PROTO_HPP_
#define CAFFE_UTIL_UPGRADE_PROTO_HPP_

#include <string>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

bool NetNeedsUpgrade(const NetParameter& net_param);
// Runs all needed upgrades; returns true when the result is complete.
bool UpgradeNetAsNeeded(const string& param_file, NetParameter* param);

bool NetNeedsV0ToV1Upgrade(const NetParameter& net_param);
bool UpgradeV0Net(const NetParameter& v0_net, NetParameter* net);
bool NetNeedsV1ToV2Upgrade(const NetParameter& net_param);
bool UpgradeV1Net(const NetParameter& v1_net, NetParameter* net);
const char* UpgradeV1LayerType(V1LayerParameter_LayerType type);

bool NetNeedsDataUpgrade(const NetParameter& net_param);
void UpgradeNetDataTransformation(NetParameter* net_param);
bool NetNeedsInputUpgrade(const NetParameter& net_param);
void UpgradeNetInput(NetParameter* net_param);
bool NetNeedsBatchNormUpgrade(const NetParameter& net_param);
void UpgradeNetBatchNorm(NetParameter* net_param);

bool SolverNeedsTypeUpgrade(const SolverParameter& solver_param);
bool UpgradeSolverType(SolverParameter* solver_param);
bool UpgradeSolverAsNeeded(const string& param_file, SolverParameter* param);

void ReadNetParamsFromTextFileOrDie(const string& param_file,
                                    NetParameter* param);
void ReadNetParamsFromBinaryFileOrDie(const string& param_file,
                                      NetParameter* param);
void ReadSolverParamsFromTextFileOrDie(const string& param_file,
                                       SolverParameter* param);

}  // namespace caffe

#endif  // CAFFE_UTIL_UPGRADE_PROTO_HPP_
