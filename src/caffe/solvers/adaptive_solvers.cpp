// The adaptive SGD variants; each differs from SGD only in how a gradient
// becomes an update, so each is one ComputeUpdateValue.
#include <cmath>

#include "caffe/sgd_solvers.hpp"

namespace caffe {

template <typename Dtype>
void NesterovSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const int n = p->count();
  const Dtype momentum = this->param_.momentum();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Dtype* history = this->history_[param_id]->mutable_cpu_data();
  Dtype* update = this->update_[param_id]->mutable_cpu_data();
  // Keep the old momentum to step back, then step ahead with the new one.
  caffe_copy(n, history, update);
  caffe_cpu_axpby(n, local_rate, p->cpu_diff(), momentum, history);
  caffe_cpu_axpby(n, Dtype(1) + momentum, history, -momentum, update);
  caffe_copy(n, update, p->mutable_cpu_diff());
}

template <typename Dtype>
void AdaGradSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const int n = p->count();
  const Dtype delta = this->param_.delta();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Dtype* history = this->history_[param_id]->mutable_cpu_data();
  Dtype* update = this->update_[param_id]->mutable_cpu_data();
  caffe_powx(n, p->cpu_diff(), Dtype(2), update);
  caffe_add(n, update, history, history);
  caffe_powx(n, history, Dtype(0.5), update);
  caffe_add_scalar(n, delta, update);
  caffe_div(n, p->cpu_diff(), update, update);
  caffe_cpu_axpby(n, local_rate, update, Dtype(0), p->mutable_cpu_diff());
}

template <typename Dtype>
void RMSPropSolver<Dtype>::ComputeUpdateValue(int param_id, Dtype rate) {
  Blob<Dtype>* p = this->net_->learnable_params()[param_id];
  const int n = p->count();
  const Dtype delta = this->param_.delta();
  const Dtype rms_decay = this->param_.rms_decay();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Dtype* history = this->history_[param_id]->mutable_cpu_data();
  Dtype* update = this->update_[param_id]->mutable_cpu_data();
  caffe_powx(n, p->cpu_diff(), Dtype(2), update);
  caffe_cpu_axpby(n, Dtype(1) - rms_decay, update, rms_decay, history);
  caffe_powx(n, history, Dtype(0.5), update);
  caffe_add_scalar(n, delta, update);
  caffe_div(n, p->cpu_diff(), update, update);
  caffe_cpu_axpby(n, local_rate, update, Dtype(0), p->mutable_cpu_diff());
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
  const int n = p->count();
  const Dtype delta = this->param_.delta();
  const Dtype momentum = this->param_.momentum();
  const Dtype local_rate = rate * this->net_->params_lr()[param_id];
  Dtype* grad_history = this->history_[param_id]->mutable_cpu_data();
  Dtype* update_history =
      this->history_[update_history_offset + param_id]->mutable_cpu_data();
  Dtype* update = this->update_[param_id]->mutable_cpu_data();
  Dtype* temp = this->temp_[param_id]->mutable_cpu_data();
  Dtype* diff = p->mutable_cpu_diff();
  caffe_powx(n, diff, Dtype(2), update);
  caffe_cpu_axpby(n, Dtype(1) - momentum, update, momentum, grad_history);
  // delta guards both square roots against zero.
  caffe_set(n, delta, temp);
  caffe_add(n, temp, update_history, update);
  caffe_add(n, temp, grad_history, temp);
  caffe_div(n, update, temp, update);
  caffe_powx(n, update, Dtype(0.5), update);
  caffe_mul(n, diff, update, diff);
  caffe_powx(n, diff, Dtype(2), update);
  caffe_cpu_axpby(n, Dtype(1) - momentum, update, momentum, update_history);
  caffe_cpu_scale(n, local_rate, diff, diff);
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
  Dtype* m = this->history_[param_id]->mutable_cpu_data();
  Dtype* v = this->history_[param_id + update_history_offset]
                 ->mutable_cpu_data();
  Dtype* val_t = this->temp_[param_id]->mutable_cpu_data();
  const int t = this->iter_ + 1;
  const Dtype correction = std::sqrt(Dtype(1) - std::pow(beta2, Dtype(t))) /
                           (Dtype(1) - std::pow(beta1, Dtype(t)));
  const int n = p->count();
  const Dtype eps_hat = this->param_.delta();
  caffe_cpu_axpby(n, Dtype(1) - beta1, p->cpu_diff(), beta1, m);
  caffe_mul(n, p->cpu_diff(), p->cpu_diff(), val_t);
  caffe_cpu_axpby(n, Dtype(1) - beta2, val_t, beta2, v);
  caffe_powx(n, v, Dtype(0.5), val_t);
  caffe_add_scalar(n, eps_hat, val_t);
  caffe_div(n, m, val_t, val_t);
  caffe_cpu_scale(n, local_rate * correction, val_t, p->mutable_cpu_diff());
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
