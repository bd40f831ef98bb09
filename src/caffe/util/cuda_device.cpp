// The CUDA runtime and cuBLAS side of the device seam: error messages,
// device counting, the per-thread cuBLAS handle and the device memory
// resource (memory_resource.hpp, util/cuda.hpp).
#ifdef USE_CUDA

#include <atomic>
#include <sstream>

#include "caffe/memory_resource.hpp"
#include "caffe/util/cuda.hpp"
#include "caffe/util/gpu_kernels.hpp"
#include "caffe/util/gpu_math_options.hpp"

namespace caffe {

std::string CudaErrorMessage(const char* call, cudaError_t error) {
  std::ostringstream s;
  int device = -1;
  cudaGetDevice(&device);
  s << call << " failed: " << cudaGetErrorString(error) << " (CUDA error "
    << static_cast<int>(error) << ")";
  if (device >= 0) s << " on GPU " << device;
  return s.str();
}

std::string CublasErrorMessage(const char* call, cublasStatus_t status) {
  std::ostringstream s;
  s << call << " failed: " << cublasGetStatusString(status)
    << " (cuBLAS status " << static_cast<int>(status) << ")";
  return s.str();
}

int GpuCount(std::string* why) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Clear the sticky error so a later call does not report it again.
    cudaGetLastError();
    if (why) {
      std::ostringstream s;
      s << "no GPU: cudaGetDeviceCount returned "
        << cudaGetErrorString(error) << " (CUDA error "
        << static_cast<int>(error) << ")";
      if (error == cudaErrorInsufficientDriver ||
          error == cudaErrorNoDevice)
        s << "; this machine has no NVIDIA GPU or driver";
      *why = s.str();
    }
    return 0;
  }
  if (count == 0 && why) *why = "no GPU: CUDA reports 0 devices";
  return count;
}

namespace {

struct ThreadHandles {
  int device = -1;
  cublasHandle_t cublas = nullptr;
  ~ThreadHandles() {
    if (cublas) cublasDestroy(cublas);
  }
};

std::atomic<size_t> g_device_in_use(0);
std::atomic<size_t> g_device_peak(0);

class DeviceMemoryResource : public MemoryResource {
 public:
  const char* name() const override { return "gpu"; }
  bool on_device() const override { return true; }
  void* Allocate(size_t bytes) override {
    if (bytes == 0) return nullptr;
    // 256-byte granularity, as cudaMalloc aligns, keeps the count honest.
    const size_t rounded = (bytes + 255) / 256 * 256;
    void* p = nullptr;
    const cudaError_t error = cudaMalloc(&p, rounded);
    if (error != cudaSuccess) {
      cudaGetLastError();
      std::string why;
      if (GpuCount(&why) == 0) {
        std::ostringstream s;
        s << "cannot allocate " << bytes << " bytes of GPU memory: " << why;
        throw Error(s.str());
      }
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      int device = -1;
      cudaGetDevice(&device);
      std::ostringstream s;
      s << "GPU " << device << " cannot allocate " << bytes
        << " bytes: " << cudaGetErrorString(error) << " (" << free_bytes
        << " of " << total_bytes << " bytes free).  Add mem_param { "
        << "optimize_train: true optimize_test: true } to the net, a "
        << "recompute budget, or a smaller batch";
      throw Error(s.str());
    }
    const size_t now = g_device_in_use += rounded;
    size_t peak = g_device_peak.load();
    while (now > peak && !g_device_peak.compare_exchange_weak(peak, now)) {
    }
    return p;
  }
  void Free(void* p, size_t bytes) override {
    if (!p) return;
    g_device_in_use -= (bytes + 255) / 256 * 256;
    cudaFree(p);  // never throws: called from destructors
  }
  void Fill(void* p, unsigned char value, size_t bytes) override {
    if (bytes) CUDA_CHECK(cudaMemset(p, value, bytes));
  }
  void FillNaN(void* p, size_t count, size_t element_bytes) override {
    if (element_bytes == sizeof(double)) {
      gpu_fill_nan(static_cast<double*>(p), count);
    } else {
      CAFFE_INTERNAL_CHECK(element_bytes == sizeof(float))
          << "FillNaN of " << element_bytes << "-byte elements";
      gpu_fill_nan(static_cast<float*>(p), count);
    }
  }
  void Copy(void* dst, const void* src, size_t bytes) override {
    if (bytes) CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
  }
};

}  // namespace

int CurrentDevice(const char* library) {
  int device = 0;
  const cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) return device;
  cudaGetLastError();
  std::string why;
  if (GpuCount(&why) == 0)
    throw Error(std::string(library) + " needs a GPU: " + why);
  throw Error(CudaErrorMessage("cudaGetDevice", error));
}

bool GpuHasClusters() {
  const int device = CurrentDevice("a cluster launch");
  int clusters = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch,
                                    device));
  return clusters != 0;
}

cublasHandle_t CublasHandle() {
  thread_local ThreadHandles handles;
  const int device = CurrentDevice("cuBLAS");
  if (handles.cublas && handles.device != device) {
    cublasDestroy(handles.cublas);
    handles.cublas = nullptr;
  }
  if (!handles.cublas) {
    CUBLAS_CHECK(cublasCreate(&handles.cublas));
    handles.device = device;
  }
  // Read at every fetch, so a change of the setting takes effect at once.
  CUBLAS_CHECK(cublasSetMathMode(handles.cublas,
                                 AllowTf32() ? CUBLAS_TF32_TENSOR_OP_MATH
                                             : CUBLAS_DEFAULT_MATH));
  return handles.cublas;
}

namespace {
struct DeviceWorkspace {
  std::shared_ptr<char> block;
  size_t bytes = 0;
};
DeviceWorkspace& ThreadDeviceWorkspace() {
  thread_local DeviceWorkspace workspace;
  return workspace;
}
}  // namespace

void* SharedDeviceWorkspace(size_t bytes) {
  DeviceWorkspace& w = ThreadDeviceWorkspace();
  if (bytes > w.bytes) {
    w.block.reset();  // free first: the old and new never coexist
    w.bytes = 0;
    w.block = Shared(DeviceMemory(), bytes);
    w.bytes = bytes;
  }
  return w.block.get();
}

size_t SharedDeviceWorkspaceBytes() { return ThreadDeviceWorkspace().bytes; }

MemoryResource* DeviceMemory() {
  static DeviceMemoryResource device;
  return &device;
}
size_t DeviceBytesInUse() { return g_device_in_use.load(); }
size_t DeviceBytesPeak() { return g_device_peak.load(); }
void ResetDeviceBytesPeak() { g_device_peak.store(g_device_in_use.load()); }

}  // namespace caffe

#endif  // USE_CUDA
