// solver_factory.hpp: maps a solver's `type` string to its constructor.
//
// Contract: REGISTER_SOLVER_CLASS(Name) registers NameSolver for float and
// double; CreateSolver throws caffe::Error listing the known types when the
// type is unknown.
#ifndef CAFFE_SOLVER_FACTORY_HPP_
#define CAFFE_SOLVER_FACTORY_HPP_

#include <map>
#include <string>
#include <vector>

#include "caffe/common.hpp"
#include "caffe/proto/caffe.pb.h"

namespace caffe {

template <typename Dtype>
class Solver;

template <typename Dtype>
class SolverRegistry {
 public:
  typedef Solver<Dtype>* (*Creator)(const SolverParameter&);
  typedef std::map<string, Creator> CreatorRegistry;

  static CreatorRegistry& Registry() {
    static CreatorRegistry* registry = new CreatorRegistry();
    return *registry;
  }
  static void AddCreator(const string& type, Creator creator) {
    CAFFE_CHECK_EQ(Registry().count(type), 0u)
        << "Solver type " << type << " already registered.";
    Registry()[type] = creator;
  }
  static Solver<Dtype>* CreateSolver(const SolverParameter& param) {
    const string& type = param.type();
    CAFFE_CHECK_EQ(Registry().count(type), 1u)
        << "Unknown solver type: " << type
        << " (known types: " << SolverTypeListString() << ")";
    return Registry()[type](param);
  }
  static vector<string> SolverTypeList() {
    vector<string> list;
    for (const auto& kv : Registry()) list.push_back(kv.first);
    return list;
  }

 private:
  static string SolverTypeListString() {
    string s;
    for (const string& t : SolverTypeList()) s += (s.empty() ? "" : ", ") + t;
    return s;
  }
};

template <typename Dtype>
class SolverRegisterer {
 public:
  SolverRegisterer(const string& type,
                   Solver<Dtype>* (*creator)(const SolverParameter&)) {
    SolverRegistry<Dtype>::AddCreator(type, creator);
  }
};

#define REGISTER_SOLVER_CLASS(type)                                          \
  template <typename Dtype>                                                  \
  Solver<Dtype>* Creator_##type##Solver(const SolverParameter& param) {      \
    return new type##Solver<Dtype>(param);                                   \
  }                                                                          \
  static SolverRegisterer<float> g_solver_f_##type(#type,                    \
                                                   Creator_##type##Solver<float>); \
  static SolverRegisterer<double> g_solver_d_##type(                         \
      #type, Creator_##type##Solver<double>)

}  // namespace caffe

#endif  // CAFFE_SOLVER_FACTORY_HPP_
