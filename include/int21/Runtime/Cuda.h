//===- Cuda.h - run GPU engines through the CUDA driver API ---------------===//
//
// The CUDA driver (libcuda.so.1) is opened with dlopen when a GPU engine is
// loaded, never linked: the runtime builds and runs CPU engines on machines
// without CUDA. No CUDA header is needed either; the few types and entry
// points used are declared in CudaExecutor.cpp.
//
// Errors name the engine, the driver call, its CUresult name and the step or
// kernel involved:
//   ENGINE: no CUDA driver found (libcuda.so.1: <dlerror>)
//   ENGINE: no CUDA GPU found
//   ENGINE: engine was compiled for sm_90; GPU 0 (NAME) is sm_80: ...
//   ENGINE: plan step 2 (launch m::k): cuLaunchKernel failed:
//           CUDA_ERROR_INVALID_VALUE (invalid argument)
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_CUDA_H
#define INT21_RUNTIME_CUDA_H

#include "int21/Runtime/EngineFile.h"
#include "int21/Runtime/GPUPlan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace int21::runtime {

/// A CUDA device as the driver reports it.
struct CudaDevice {
  int ordinal = 0;
  std::string name;
  /// "sm_90" for compute capability 9.0.
  std::string chip;
  uint64_t memoryBytes = 0;
  int multiprocessors = 0;
};

/// The devices the driver sees. Fails with "no CUDA driver found (...)" or
/// "no CUDA GPU found" (prefixed by `who` and ": " when not empty).
llvm::Expected<std::vector<CudaDevice>>
listCudaDevices(llvm::StringRef who = "");

/// One loaded GPU engine on one device: its modules, its device buffers
/// (weights uploaded once, inputs, outputs and workspace allocated once), one
/// stream and two events. `run` calls are serialised: the buffers are the
/// engine's, not the call's.
class CudaExecutor {
public:
  ~CudaExecutor();
  CudaExecutor(const CudaExecutor &) = delete;
  CudaExecutor &operator=(const CudaExecutor &) = delete;

  /// Opens the driver, picks device 0 (of those CUDA_VISIBLE_DEVICES shows),
  /// checks the engine's chip against it, loads the code (the cubin whose
  /// chip is the device's, else the PTX, compiled by the driver) and
  /// allocates and fills the device buffers. `name` names the engine in
  /// errors.
  static llvm::Expected<std::unique_ptr<CudaExecutor>>
  create(const EngineFile &file, GPUPlan plan, llvm::StringRef name);

  /// Copies `inputs` (host memory, sizes from the metadata) to the device,
  /// runs the plan's steps in order on the stream, copies the outputs back
  /// and waits. When `deviceMs` is given, it receives the time the steps
  /// took on the device (CUDA events around them, copies in and out not
  /// included).
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> outputs, double *deviceMs = nullptr);

  /// The device and the code's origin, as "NAME (sm_XY, device N, cubin)"
  /// or "... PTX JIT)".
  std::string deviceDescription() const;
  /// Whether the code came from a cubin (else from the PTX, by the JIT).
  bool loadedCubin() const;

  struct Impl;

private:
  explicit CudaExecutor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace int21::runtime

#endif // INT21_RUNTIME_CUDA_H
