// The adaptive SGD variants; each differs from SGD only in how a gradient
// becomes an update, so each is one ComputeUpdateValue.
#include <cmath>

#include "caffe/sgd_solvers.hpp"
#include "caffe/util/blob_math.hpp"

namespace caffe {

// The update math is device-neutral (util/blob_math.hpp): it names blobs'
// data and diffs, not host pointers.
using blob_math::Data;
using blob_math::Diff;

template <typename Dtype>
void NesterovSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype momentum = this->param_.momentum();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Blob<Dtype>* history = this->history_[param_id].get();
  Blob<Dtype>* update = this->update_[param_id].get();
  // Keep the old momentum to step back, then step ahead with the new one.
  blob_math::Copy(Data(history), Data(update));
  blob_math::Axpby(local_rate, Diff(p), momentum, Data(history));
  blob_math::Axpby(Dtype(1) + momentum, Data(history), -momentum,
                   Data(update));
  blob_math::Copy(Data(update), Diff(p));
}

template <typename Dtype>
void AdaGradSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype delta = this->param_.delta();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Blob<Dtype>* history = this->history_[param_id].get();
  Blob<Dtype>* update = this->update_[param_id].get();
  blob_math::Powx(Diff(p), Dtype(2), Data(update));
  blob_math::Add(Data(update), Data(history), Data(history));
  blob_math::Powx(Data(history), Dtype(0.5), Data(update));
  blob_math::AddScalar(delta, Data(update));
  blob_math::Div(Diff(p), Data(update), Data(update));
  blob_math::Axpby(local_rate, Data(update), Dtype(0), Diff(p));
}

template <typename Dtype>
void RMSPropSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const Dtype delta = this->param_.delta();
  const Dtype rms_decay = this->param_.rms_decay();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Blob<Dtype>* history = this->history_[param_id].get();
  Blob<Dtype>* update = this->update_[param_id].get();
  blob_math::Powx(Diff(p), Dtype(2), Data(update));
  blob_math::Axpby(Dtype(1) - rms_decay, Data(update), rms_decay,
                   Data(history));
  blob_math::Powx(Data(history), Dtype(0.5), Data(update));
  blob_math::AddScalar(delta, Data(update));
  blob_math::Div(Diff(p), Data(update), Data(update));
  blob_math::Axpby(local_rate, Data(update), Dtype(0), Diff(p));
}

// Second-moment history goes after all first moments, as Caffe stores it.
template <typename Dtype>
static void AppendHistory(vector<shared_ptr<Blob<Dtype> > >* history,
                          const vector<Blob<Dtype>*>& params) {
  for (Blob<Dtype>* p : params)
    history->push_back(shared_ptr<Blob<Dtype> >(new Blob<Dtype>(p->shape())));
}

template <typename Dtype>
void AdaDeltaSolver<Dtype>::AddSecondMoments() {
  AppendHistory(&this->history_, this->net_->learnable_params());
}

template <typename Dtype>
void AdaDeltaSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  const vector<Blob<Dtype>*>& params = this->net_->learnable_params();
  Blob<Dtype>* p = params[param_id];
  const size_t update_history_offset = params.size();
  const Dtype delta = this->param_.delta();
  const Dtype momentum = this->param_.momentum();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  const blob_math::Part<Dtype> grad_history =
      Data(this->history_[param_id].get());
  const blob_math::Part<Dtype> update_history =
      Data(this->history_[update_history_offset + param_id].get());
  const blob_math::Part<Dtype> update = Data(this->update_[param_id].get());
  const blob_math::Part<Dtype> temp = Data(this->temp_[param_id].get());
  const blob_math::Part<Dtype> diff = Diff(p);
  blob_math::Powx(diff, Dtype(2), update);
  blob_math::Axpby(Dtype(1) - momentum, update, momentum, grad_history);
  // delta guards both square roots against zero.
  blob_math::Set(delta, temp);
  blob_math::Add(temp, update_history, update);
  blob_math::Add(temp, grad_history, temp);
  blob_math::Div(update, temp, update);
  blob_math::Powx(update, Dtype(0.5), update);
  blob_math::Mul(diff, update, diff);
  blob_math::Powx(diff, Dtype(2), update);
  blob_math::Axpby(Dtype(1) - momentum, update, momentum, update_history);
  blob_math::Scale(local_rate, diff, diff);
}

template <typename Dtype>
void AdamSolver<Dtype>::AddSecondMoments() {
  AppendHistory(&this->history_, this->net_->learnable_params());
}

template <typename Dtype>
void AdamSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  const vector<Blob<Dtype>*>& params = this->net_->learnable_params();
  Blob<Dtype>* p = params[param_id];
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  const Dtype beta1 = this->param_.momentum();
  const Dtype beta2 = this->param_.momentum2();
  const size_t update_history_offset = params.size();
  const blob_math::Part<Dtype> m = Data(this->history_[param_id].get());
  const blob_math::Part<Dtype> v =
      Data(this->history_[param_id + update_history_offset].get());
  const blob_math::Part<Dtype> val_t = Data(this->temp_[param_id].get());
  const int t = this->iter_ + 1;
  const Dtype correction = std::sqrt(Dtype(1) - std::pow(beta2, Dtype(t))) /
                           (Dtype(1) - std::pow(beta1, Dtype(t)));
  const Dtype eps_hat = this->param_.delta();
  blob_math::Axpby(Dtype(1) - beta1, Diff(p), beta1, m);
  blob_math::Mul(Diff(p), Diff(p), val_t);
  blob_math::Axpby(Dtype(1) - beta2, val_t, beta2, v);
  blob_math::Powx(v, Dtype(0.5), val_t);
  blob_math::AddScalar(eps_hat, val_t);
  blob_math::Div(m, val_t, val_t);
  blob_math::Scale(local_rate * correction, val_t, Diff(p));
}

INSTANTIATE_CLASS(NesterovSolver);
INSTANTIATE_CLASS(AdaGradSolver);
INSTANTIATE_CLASS(RMSPropSolver);
INSTANTIATE_CLASS(AdaDeltaSolver);
INSTANTIATE_CLASS(AdamSolver);
REGISTER_SOLVER_CLASS(Nesterov);
REGISTER_SOLVER_CLASS(AdaGrad);
REGISTER_SOLVER_CLASS(RMSProp);
REGISTER_SOLVER_CLASS(AdaDelta);
REGISTER_SOLVER_CLASS(Adam);

}  // namespace caffe
