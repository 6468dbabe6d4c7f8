//===- CudaExecutor.cpp - run GPU engines through the CUDA driver API -----===//
//
// The driver is opened at run time (dlopen of libcuda.so.1) and reached
// through the function pointers below; the types are the driver API's own
// ABI (handles are pointers, CUdeviceptr a 64-bit integer, CUresult an int),
// declared here so that neither CUDA headers nor a CUDA toolkit are needed
// to build. The versioned symbol names (`_v2`) are those cuda.h maps the
// plain names to.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/Cuda.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <dlfcn.h>
#include <mutex>

using namespace llvm;
using namespace int21::runtime;

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0;
/// Dynamic shared memory beyond this needs the function attribute.
constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
constexpr StringLiteral kDriverLibrary = "libcuda.so.1";

/// The driver entry points int21 uses, resolved from libcuda.so.1.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext *);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  /// "CUDA_ERROR_X (description)" for `result`.
  std::string describe(CUresult result) const {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
      name = nullptr;
    if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
      text = nullptr;
    std::string out = name ? name : ("CUresult " + Twine(result)).str();
    if (text)
      out += std::string(" (") + text + ")";
    return out;
  }
};

/// Pops the context pushed before it, at the end of the scope.
struct ContextScope {
  const Driver &driver;
  ~ContextScope() {
    CUcontext popped;
    driver.cuCtxPopCurrent(&popped);
  }
};

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Opens the driver and resolves every entry point. The library stays
/// loaded for the life of the process (unloading a GPU driver while
/// contexts may live is not safe); dlopen counts references, so opening it
/// again is cheap.
Expected<Driver> openDriver(StringRef who) {
  std::string prefix = who.empty() ? "" : (who + ": ").str();
  void *library = dlopen(kDriverLibrary.data(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    std::string text = reason ? reason : "cannot be opened";
    // dlerror names the library itself; keep the message one short line.
    StringRef shown(text);
    if (shown.starts_with(kDriverLibrary))
      shown = shown.drop_front(kDriverLibrary.size()).ltrim(": ");
    return makeError(prefix + "no CUDA driver found (" + kDriverLibrary + ": " +
                     shown + ")");
  }
  Driver driver;
  std::string missing;
  auto resolve = [&](auto &fn, const char *symbol) {
    void *address = dlsym(library, symbol);
    if (!address && missing.empty())
      missing = symbol;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(address);
  };
  resolve(driver.cuInit, "cuInit");
  resolve(driver.cuDriverGetVersion, "cuDriverGetVersion");
  resolve(driver.cuDeviceGetCount, "cuDeviceGetCount");
  resolve(driver.cuDeviceGet, "cuDeviceGet");
  resolve(driver.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(driver.cuDeviceGetName, "cuDeviceGetName");
  resolve(driver.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(driver.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  resolve(driver.cuCtxPushCurrent, "cuCtxPushCurrent_v2");
  resolve(driver.cuCtxPopCurrent, "cuCtxPopCurrent_v2");
  resolve(driver.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(driver.cuModuleUnload, "cuModuleUnload");
  resolve(driver.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(driver.cuFuncSetAttribute, "cuFuncSetAttribute");
  resolve(driver.cuMemAlloc, "cuMemAlloc_v2");
  resolve(driver.cuMemFree, "cuMemFree_v2");
  resolve(driver.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  resolve(driver.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  resolve(driver.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  resolve(driver.cuMemsetD8Async, "cuMemsetD8Async");
  resolve(driver.cuLaunchKernel, "cuLaunchKernel");
  resolve(driver.cuStreamCreate, "cuStreamCreate");
  resolve(driver.cuStreamSynchronize, "cuStreamSynchronize");
  resolve(driver.cuStreamDestroy, "cuStreamDestroy_v2");
  resolve(driver.cuEventCreate, "cuEventCreate");
  resolve(driver.cuEventRecord, "cuEventRecord");
  resolve(driver.cuEventSynchronize, "cuEventSynchronize");
  // CUDA 12.8 added a _v2 that cuda.h now maps the name to; older drivers
  // have only the first.
  if (void *v2 = dlsym(library, "cuEventElapsedTime_v2"))
    driver.cuEventElapsedTime =
        reinterpret_cast<decltype(driver.cuEventElapsedTime)>(v2);
  else
    resolve(driver.cuEventElapsedTime, "cuEventElapsedTime");
  resolve(driver.cuEventDestroy, "cuEventDestroy_v2");
  resolve(driver.cuGetErrorName, "cuGetErrorName");
  resolve(driver.cuGetErrorString, "cuGetErrorString");
  if (!missing.empty())
    return makeError(prefix + "the CUDA driver (" + kDriverLibrary +
                     ") has no entry point " + missing +
                     "; the driver is too old");
  return driver;
}

/// cuInit, then the number of devices: "no CUDA GPU found" when none.
Expected<int> initDriver(const Driver &driver, StringRef who) {
  std::string prefix = who.empty() ? "" : (who + ": ").str();
  CUresult result = driver.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE)
    return makeError(prefix + "no CUDA GPU found");
  // The toolkit's link-time stub (lib64/stubs) found before a driver.
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return makeError(prefix + "no CUDA driver found (" + kDriverLibrary +
                     ": the CUDA toolkit's stub library, not a driver; "
                     "check LD_LIBRARY_PATH)");
  if (result != CUDA_SUCCESS)
    return makeError(prefix + "cuInit failed: " + driver.describe(result));
  int count = 0;
  result = driver.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return makeError(prefix +
                     "cuDeviceGetCount failed: " + driver.describe(result));
  if (count == 0)
    return makeError(prefix + "no CUDA GPU found");
  return count;
}

Expected<CudaDevice> describeDevice(const Driver &driver, int ordinal,
                                    StringRef prefix) {
  auto check = [&](CUresult result, StringRef call) -> Error {
    if (result == CUDA_SUCCESS)
      return Error::success();
    return makeError(prefix + call + " failed for device " + Twine(ordinal) +
                     ": " + driver.describe(result));
  };
  CUdevice device;
  if (Error error = check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet"))
    return std::move(error);
  CudaDevice info;
  info.ordinal = ordinal;
  char name[256] = {0};
  if (Error error =
          check(driver.cuDeviceGetName(name, sizeof(name) - 1, device),
                "cuDeviceGetName"))
    return std::move(error);
  info.name = name;
  int major = 0, minor = 0;
  if (Error error = check(
          driver.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
          "cuDeviceGetAttribute"))
    return std::move(error);
  if (Error error = check(
          driver.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
          "cuDeviceGetAttribute"))
    return std::move(error);
  info.chip = ("sm_" + Twine(major * 10 + minor)).str();
  if (Error error = check(driver.cuDeviceGetAttribute(
                              &info.multiprocessors,
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
                          "cuDeviceGetAttribute"))
    return std::move(error);
  size_t bytes = 0;
  if (Error error =
          check(driver.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem"))
    return std::move(error);
  info.memoryBytes = bytes;
  return info;
}

} // namespace

Expected<std::vector<CudaDevice>>
int21::runtime::listCudaDevices(StringRef who) {
  Expected<Driver> driver = openDriver(who);
  if (!driver)
    return driver.takeError();
  Expected<int> count = initDriver(*driver, who);
  if (!count)
    return count.takeError();
  std::string prefix = who.empty() ? "" : (who + ": ").str();
  std::vector<CudaDevice> devices;
  for (int i = 0; i < *count; ++i) {
    Expected<CudaDevice> device = describeDevice(*driver, i, prefix);
    if (!device)
      return device.takeError();
    devices.push_back(std::move(*device));
  }
  return devices;
}

//===----------------------------------------------------------------------===//
// CudaExecutor
//===----------------------------------------------------------------------===//

/// A launch with everything resolved at load time: the function and its
/// parameter values (device addresses and scalars, one 8-byte slot each)
/// with the pointer array cuLaunchKernel takes.
struct ResolvedLaunch {
  CUfunction function = nullptr;
  std::vector<uint64_t> values;
  std::vector<void *> params;
};

struct CudaExecutor::Impl {
  Driver driver;
  std::string name;
  GPUPlan plan;
  EngineMetadata meta;
  CudaDevice info;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool contextRetained = false;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  std::vector<CUmodule> modules;
  bool fromCubin = false;
  /// One allocation per buffer; 0 for an empty one.
  CUdeviceptr weights = 0, workspace = 0;
  std::vector<CUdeviceptr> inputs, outputs;
  std::vector<uint64_t> inputBytes, outputBytes;
  /// Indexed like plan.steps (only launches are filled).
  std::vector<ResolvedLaunch> launches;
  std::mutex runMutex;

  Error check(CUresult result, StringRef call, const Twine &context = "") {
    if (result == CUDA_SUCCESS)
      return Error::success();
    std::string where = context.str();
    return makeError(name + ": " + (where.empty() ? "" : where + ": ") + call +
                     " failed: " + driver.describe(result));
  }

  Error load(const EngineFile &file);
  Expected<CUdeviceptr> allocate(uint64_t bytes, const Twine &what);
  CUdeviceptr address(const BufferRef &ref) const;
  Error runSteps();
  Error run(ArrayRef<const void *> in, ArrayRef<void *> out, double *deviceMs);
  void release();
};

Expected<CUdeviceptr> CudaExecutor::Impl::allocate(uint64_t bytes,
                                                   const Twine &what) {
  if (bytes == 0)
    return CUdeviceptr(0);
  CUdeviceptr pointer = 0;
  if (Error error = check(driver.cuMemAlloc(&pointer, bytes), "cuMemAlloc",
                          "allocating " + Twine(bytes) + " bytes for " + what))
    return std::move(error);
  return pointer;
}

CUdeviceptr CudaExecutor::Impl::address(const BufferRef &ref) const {
  CUdeviceptr base = 0;
  switch (ref.kind) {
  case BufferKind::Input:
    base = inputs[ref.index];
    break;
  case BufferKind::Output:
    base = outputs[ref.index];
    break;
  case BufferKind::Weight:
    base = weights + meta.weights[ref.index].offset;
    break;
  case BufferKind::Workspace:
    base = workspace;
    break;
  }
  return base + ref.offset;
}

Error CudaExecutor::Impl::load(const EngineFile &file) {
  meta = file.metadata();
  std::optional<unsigned> wanted = smVersion(meta.target);
  std::optional<unsigned> have = smVersion(info.chip);
  bool archSpecific = StringRef(meta.target).ends_with("a");
  if (!wanted || !have || *have < *wanted ||
      (archSpecific && info.chip + "a" != meta.target))
    return makeError(name + ": engine was compiled for " + meta.target +
                     "; GPU " + Twine(info.ordinal) + " (" + info.name +
                     ") is " + info.chip +
                     ": recompile the model with "
                     "--target=" +
                     info.chip);

  if (Error error = check(driver.cuDevicePrimaryCtxRetain(&context, device),
                          "cuDevicePrimaryCtxRetain"))
    return error;
  contextRetained = true;
  if (Error error = check(driver.cuCtxPushCurrent(context), "cuCtxPushCurrent"))
    return error;
  ContextScope scope{driver};

  if (Error error =
          check(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                "cuStreamCreate"))
    return error;
  if (Error error = check(driver.cuEventCreate(&start, CU_EVENT_DEFAULT),
                          "cuEventCreate"))
    return error;
  if (Error error =
          check(driver.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"))
    return error;

  // Code: the cubin made for this very chip, else the PTX (the driver's JIT
  // compiles it for this device, newer chips included).
  int maxShared = 0;
  driver.cuDeviceGetAttribute(
      &maxShared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
      device);
  fromCubin = !plan.modules.empty();
  for (const GPUModule &module : plan.modules) {
    std::optional<Section> cubin =
        file.find(SectionKind::Code, module.name + "." + info.chip + ".cubin");
    std::optional<Section> ptx =
        file.find(SectionKind::Code, module.name + ".ptx");
    std::string image;
    std::string how;
    if (cubin) {
      image = cubin->data.str();
      how = "cubin for " + info.chip;
    } else if (ptx) {
      fromCubin = false;
      image = ptx->data.str();
      how = "PTX JIT for " + info.chip;
    } else {
      return makeError(name + ": GPU engine has no code section '" +
                       module.name + ".ptx' for module '" + module.name + "'");
    }
    image.push_back('\0');
    std::string log(8192, '\0');
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(),
                      reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
    CUmodule handle = nullptr;
    CUresult result =
        driver.cuModuleLoadDataEx(&handle, image.data(), 2, options, values);
    if (result != CUDA_SUCCESS) {
      log.resize(std::strlen(log.c_str()));
      std::replace(log.begin(), log.end(), '\n', ' ');
      std::string detail = StringRef(log).trim().str();
      if (!detail.empty())
        detail = ": " + detail;
      return makeError(
          name + ": module '" + module.name + "' (" + how +
          "): cuModuleLoadDataEx failed: " + driver.describe(result) + detail);
    }
    modules.push_back(handle);
  }

  // Buffers: weights once, the rest allocated once and reused by every run.
  std::optional<Section> weightSection =
      file.find(SectionKind::Weights, "weights");
  if (!meta.weights.empty() && !weightSection)
    return makeError(name +
                     ": engine lists weights but has no weights section");
  for (const WeightSpec &weight : meta.weights)
    if (weight.offset > weightSection->data.size() ||
        weight.size > weightSection->data.size() - weight.offset)
      return makeError(name + ": weight '" + weight.name +
                       "' lies outside the weights section");
  if (weightSection && !weightSection->data.empty()) {
    Expected<CUdeviceptr> p =
        allocate(weightSection->data.size(), "the weights");
    if (!p)
      return p.takeError();
    weights = *p;
    if (Error error =
            check(driver.cuMemcpyHtoDAsync(weights, weightSection->data.data(),
                                           weightSection->data.size(), stream),
                  "cuMemcpyHtoDAsync", "uploading the weights"))
      return error;
  }
  for (auto [i, spec] : llvm::enumerate(meta.inputs)) {
    uint64_t bytes = *bufferSize(meta, BufferKind::Input, i);
    Expected<CUdeviceptr> p = allocate(bytes, "input '" + spec.name + "'");
    if (!p)
      return p.takeError();
    inputs.push_back(*p);
    inputBytes.push_back(bytes);
  }
  // The outputs, then the index checks (EngineMetadata::checks).
  for (size_t i = 0, e = meta.numResultBuffers(); i < e; ++i) {
    uint64_t bytes = *bufferSize(meta, BufferKind::Output, i);
    Expected<CUdeviceptr> p =
        allocate(bytes, "output '" + meta.resultBuffer(i).name + "'");
    if (!p)
      return p.takeError();
    outputs.push_back(*p);
    outputBytes.push_back(bytes);
  }
  Expected<CUdeviceptr> p = allocate(meta.workspaceSize, "the workspace");
  if (!p)
    return p.takeError();
  workspace = *p;

  // Launches: functions and parameter values, once.
  launches.resize(plan.steps.size());
  DenseMap<CUfunction, uint32_t> sharedSet;
  for (auto [s, step] : llvm::enumerate(plan.steps)) {
    if (step.kind != GPUStep::Kind::Launch)
      continue;
    std::string where =
        ("plan step " + Twine(s) + " (" + step.describe() + ")").str();
    unsigned m = llvm::find_if(plan.modules,
                               [&](const GPUModule &module) {
                                 return module.name == step.module;
                               }) -
                 plan.modules.begin();
    ResolvedLaunch &launch = launches[s];
    if (Error error =
            check(driver.cuModuleGetFunction(&launch.function, modules[m],
                                             step.kernel.c_str()),
                  "cuModuleGetFunction", where))
      return error;
    if (step.sharedBytes > kDefaultSharedLimit) {
      if (maxShared > 0 && step.sharedBytes > static_cast<uint32_t>(maxShared))
        return makeError(name + ": " + where + ": needs " +
                         Twine(step.sharedBytes) +
                         " bytes of dynamic shared memory, the device allows " +
                         Twine(maxShared));
      uint32_t &set = sharedSet[launch.function];
      if (step.sharedBytes > set) {
        if (Error error =
                check(driver.cuFuncSetAttribute(
                          launch.function,
                          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          static_cast<int>(step.sharedBytes)),
                      "cuFuncSetAttribute", where))
          return error;
        set = step.sharedBytes;
      }
    }
    for (const KernelArg &arg : step.args)
      launch.values.push_back(
          arg.kind == ArgKind::Pointer ? address(arg.pointer) : arg.bits);
    // Slots are 8 bytes, little-endian: a 4-byte parameter reads the low
    // half, which holds its value.
    for (uint64_t &value : launch.values)
      launch.params.push_back(&value);
  }
  return check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize",
               "uploading the weights");
}

Error CudaExecutor::Impl::runSteps() {
  for (auto [s, step] : llvm::enumerate(plan.steps)) {
    auto where = [&] {
      return ("plan step " + Twine(s) + " (" + step.describe() + ")").str();
    };
    CUresult result = CUDA_SUCCESS;
    StringRef call;
    switch (step.kind) {
    case GPUStep::Kind::Launch: {
      ResolvedLaunch &launch = launches[s];
      call = "cuLaunchKernel";
      result = driver.cuLaunchKernel(
          launch.function, step.grid[0], step.grid[1], step.grid[2],
          step.block[0], step.block[1], step.block[2], step.sharedBytes, stream,
          launch.params.empty() ? nullptr : launch.params.data(), nullptr);
      break;
    }
    case GPUStep::Kind::Copy:
      call = "cuMemcpyDtoDAsync";
      result = driver.cuMemcpyDtoDAsync(address(step.dst), address(step.src),
                                        step.bytes, stream);
      break;
    case GPUStep::Kind::Memset:
      call = "cuMemsetD8Async";
      result = driver.cuMemsetD8Async(address(step.dst), step.value, step.bytes,
                                      stream);
      break;
    }
    if (Error error = check(result, call, where()))
      return error;
  }
  return Error::success();
}

Error CudaExecutor::Impl::run(ArrayRef<const void *> in, ArrayRef<void *> out,
                              double *deviceMs) {
  if (in.size() != inputs.size())
    return makeError(name + ": expected " + Twine(inputs.size()) +
                     " inputs, got " + Twine(in.size()));
  if (out.size() != outputs.size())
    return makeError(name + ": expected " + Twine(outputs.size()) +
                     " outputs, got " + Twine(out.size()));
  std::lock_guard<std::mutex> lock(runMutex);
  if (Error error = check(driver.cuCtxPushCurrent(context), "cuCtxPushCurrent"))
    return error;
  ContextScope scope{driver};
  for (size_t i = 0; i < in.size(); ++i)
    if (inputBytes[i])
      if (Error error = check(
              driver.cuMemcpyHtoDAsync(inputs[i], in[i], inputBytes[i], stream),
              "cuMemcpyHtoDAsync", "input '" + meta.inputs[i].name + "'"))
        return error;
  if (Error error = check(driver.cuEventRecord(start, stream), "cuEventRecord"))
    return error;
  if (Error error = runSteps())
    return error;
  if (Error error = check(driver.cuEventRecord(stop, stream), "cuEventRecord"))
    return error;
  for (size_t i = 0; i < out.size(); ++i)
    if (outputBytes[i])
      if (Error error = check(driver.cuMemcpyDtoHAsync(out[i], outputs[i],
                                                       outputBytes[i], stream),
                              "cuMemcpyDtoHAsync",
                              "output '" + meta.resultBuffer(i).name + "'"))
        return error;
  // A kernel that faults shows here: the error is the first one after it.
  if (Error error = check(driver.cuStreamSynchronize(stream),
                          "cuStreamSynchronize", "running the plan"))
    return error;
  if (deviceMs) {
    float ms = 0;
    if (Error error = check(driver.cuEventElapsedTime(&ms, start, stop),
                            "cuEventElapsedTime"))
      return error;
    *deviceMs = ms;
  }
  return Error::success();
}

void CudaExecutor::Impl::release() {
  if (!contextRetained)
    return;
  if (driver.cuCtxPushCurrent(context) == CUDA_SUCCESS) {
    if (stream)
      driver.cuStreamSynchronize(stream);
    for (CUdeviceptr p : inputs)
      if (p)
        driver.cuMemFree(p);
    for (CUdeviceptr p : outputs)
      if (p)
        driver.cuMemFree(p);
    if (weights)
      driver.cuMemFree(weights);
    if (workspace)
      driver.cuMemFree(workspace);
    for (CUmodule module : modules)
      driver.cuModuleUnload(module);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
    if (stream)
      driver.cuStreamDestroy(stream);
    CUcontext popped;
    driver.cuCtxPopCurrent(&popped);
  }
  driver.cuDevicePrimaryCtxRelease(device);
  contextRetained = false;
}

CudaExecutor::CudaExecutor(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}

CudaExecutor::~CudaExecutor() {
  if (impl)
    impl->release();
}

Expected<std::unique_ptr<CudaExecutor>>
CudaExecutor::create(const EngineFile &file, GPUPlan plan, StringRef name) {
  Expected<Driver> driver = openDriver(name);
  if (!driver)
    return driver.takeError();
  Expected<int> count = initDriver(*driver, name);
  if (!count)
    return count.takeError();
  auto impl = std::make_unique<Impl>();
  impl->driver = *driver;
  impl->name = name.str();
  impl->plan = std::move(plan);
  Expected<CudaDevice> info =
      describeDevice(impl->driver, 0, (name + ": ").str());
  if (!info)
    return info.takeError();
  impl->info = std::move(*info);
  if (Error error = impl->check(impl->driver.cuDeviceGet(&impl->device, 0),
                                "cuDeviceGet"))
    return std::move(error);
  // The executor owns what load acquired, even when load fails part way.
  std::unique_ptr<CudaExecutor> executor(new CudaExecutor(std::move(impl)));
  if (Error error = executor->impl->load(file))
    return std::move(error);
  return executor;
}

Error CudaExecutor::run(ArrayRef<const void *> inputs, ArrayRef<void *> outputs,
                        double *deviceMs) {
  return impl->run(inputs, outputs, deviceMs);
}

std::string CudaExecutor::deviceDescription() const {
  return formatv("{0} ({1}, device {2}, {3})", impl->info.name, impl->info.chip,
                 impl->info.ordinal, impl->fromCubin ? "cubin" : "PTX JIT")
      .str();
}

bool CudaExecutor::loadedCubin() const { return impl->fromCubin; }
