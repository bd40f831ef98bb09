// step_hook.hpp: what Net calls around each step of an iteration.
//
// Contract:
//  * Net runs one iteration as a schedule of steps (mem/recompute.hpp
//    Step: forward, recompute or backward of one layer); `step` is the
//    step's index in that schedule.  Every hook registered with
//    Net::AddStepHook is called, in registration order, before and after
//    each step it runs.
//  * The memory plan (NetMemory) is one such hook: it binds, pools and
//    poisons buffers around steps.  Code that works per layer rather than
//    per step (gradient reduction across ranks, pycaffe's callbacks) uses
//    Net::Callback instead.
//  * Hooks may throw caffe::Error; the net reports it with the layer.
#ifndef CAFFE_STEP_HOOK_HPP_
#define CAFFE_STEP_HOOK_HPP_

namespace caffe {

class StepHook {
 public:
  virtual ~StepHook() {}
  virtual void BeforeStep(int step) {}
  virtual void AfterStep(int step) {}
};

}  // namespace caffe

#endif  // CAFFE_STEP_HOOK_HPP_
