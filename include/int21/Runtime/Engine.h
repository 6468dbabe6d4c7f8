//===- Engine.h - load and run compiled int21 engines ---------------------===//
//
// An Engine is a loaded `.int21` file: its metadata, its weights and its code.
// Loading needs no compiler: the CPU code is a shared object that the runtime
// maps from memory (memfd + dlopen) and calls through one entry point,
// `int21_entry(void **args)`, with the inputs, weights and outputs in order.
// An engine for an NVIDIA chip (target "sm_80", "sm_90") runs its plan
// (GPUPlan.h) on the first CUDA device through the driver API (Cuda.h),
// which is opened only then.
//
// Engines share nothing: two engines (or the same file loaded twice) in one
// process have their own code, weights and thread count, and `run` may be
// called from several threads at once (a GPU engine's runs take turns: its
// device buffers are the engine's).
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_ENGINE_H
#define INT21_RUNTIME_ENGINE_H

#include "int21/Runtime/EngineFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace int21::runtime {

class CudaExecutor;

/// A dense tensor in host memory, row-major, 64-byte aligned.
class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor of `dtype` and `shape`.
  Tensor(DType dtype, std::vector<int64_t> shape);

  DType dtype() const { return type; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t numElements() const;
  size_t sizeInBytes() const { return numElements() * dtypeSize(type); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  template <typename T> T *dataAs() { return static_cast<T *>(data()); }
  template <typename T> const T *dataAs() const {
    return static_cast<const T *>(data());
  }

private:
  struct Free {
    void operator()(void *p) const;
  };
  DType type = DType::F32;
  std::vector<int64_t> dims;
  std::shared_ptr<void> storage;
};

class Engine {
public:
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// Loads the engine at `path`. A corrupt, truncated or foreign file, or
  /// one compiled for another target, is an error naming the file.
  static llvm::Expected<std::unique_ptr<Engine>> load(llvm::StringRef path);
  /// Loads an engine from memory; `name` stands for it in errors.
  static llvm::Expected<std::unique_ptr<Engine>>
  load(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef name);

  const EngineMetadata &metadata() const { return file.metadata(); }
  const std::vector<TensorSpec> &inputs() const { return metadata().inputs; }
  const std::vector<TensorSpec> &outputs() const { return metadata().outputs; }

  /// The threads an engine runs on unless told otherwise: the machine's
  /// physical cores (its hardware threads where those are unknown). The
  /// schedule search times kernels on as many by default.
  static unsigned defaultThreads();

  /// The number of threads `run` uses (default: defaultThreads()).
  unsigned threads() const { return threadCount; }
  void setThreads(unsigned count);

  /// Runs on caller-owned buffers, which must have the sizes the metadata
  /// gives (inputs in input order, outputs in output order). An input a node
  /// indexes with (TensorSpec::indexBounds) that holds a value outside its
  /// bounds is an error naming the input, the value and the node; so is an
  /// index a node computed in the graph outside its bounds
  /// (EngineMetadata::checks), found after the run: the outputs are then
  /// not valid.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> outputs) const;
  /// Whether some input or output has dynamic extents (TensorSpec::shape
  /// holds kDynamicExtent there): runs then give the inputs' shapes.
  bool isDynamic() const { return metadata().isDynamic(); }
  /// The outputs' shapes for inputs of `inputShapes`, which must have the
  /// inputs' ranks and static extents, and one extent per dimension name
  /// (an error names the input, the dimension and what it must be).
  llvm::Expected<std::vector<std::vector<int64_t>>>
  outputShapes(llvm::ArrayRef<std::vector<int64_t>> inputShapes) const;
  /// `run` for inputs of `inputShapes`, on outputs of the shapes
  /// outputShapes gives for them.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                  llvm::ArrayRef<void *> outputs) const;
  /// Runs on `inputs` (checked against the metadata: count, dtype, shape)
  /// and returns the outputs.
  llvm::Expected<std::vector<Tensor>> run(llvm::ArrayRef<Tensor> inputs) const;

  /// Runs like `run` and returns the milliseconds it took: on a GPU, the
  /// device time of the plan's steps (CUDA events; copies in and out not
  /// included); on the CPU, the wall-clock time of the call.
  llvm::Expected<double> runTimed(llvm::ArrayRef<const void *> inputs,
                                  llvm::ArrayRef<void *> outputs) const;
  llvm::Expected<double>
  runTimed(llvm::ArrayRef<const void *> inputs,
           llvm::ArrayRef<std::vector<int64_t>> inputShapes,
           llvm::ArrayRef<void *> outputs) const;

  /// Whether the engine runs on a GPU (its target is an NVIDIA chip).
  bool onGpu() const { return cuda != nullptr; }
  /// Where the engine runs: "cpu" or "NAME (sm_XY, device N, cubin)" (or
  /// "PTX JIT" where the driver compiled the PTX).
  std::string deviceDescription() const;

  /// The host's target name, as `int21-compile --target=cpu` records it.
  static std::string hostTarget();

private:
  Engine(EngineFile file, std::string name);
  /// The input count, and each input's values within its index bounds.
  llvm::Error checkInputValues(llvm::ArrayRef<const void *> inputs) const;
  /// The extents array of a dynamic engine's run on inputs of
  /// `inputShapes`: the inputs' dynamic extents, then the outputs' as the
  /// code computes them.
  llvm::Expected<std::vector<int64_t>>
  extentsFor(llvm::ArrayRef<std::vector<int64_t>> inputShapes) const;
  /// `run`, with the device time of a GPU engine's plan in `deviceMs`, and
  /// the extents array of a dynamic engine (null for a static one).
  llvm::Error runChecked(llvm::ArrayRef<const void *> inputs,
                         llvm::ArrayRef<void *> outputs, double *deviceMs,
                         int64_t *extents) const;
  /// Calls the CPU code on the outputs followed by the check buffers.
  llvm::Error runOnHost(llvm::ArrayRef<const void *> inputs,
                        llvm::ArrayRef<void *> results,
                        int64_t *extents) const;

  EngineFile file;
  std::string name;
  void *library = nullptr;
  /// The memfd the code was loaded from, open while it is loaded.
  int codeFile = -1;
  void (*entry)(void **) = nullptr;
  /// A dynamic engine's `int21_shapes(int64_t *extents)`: fills in the
  /// outputs' extents; 0 when the inputs' are valid.
  int32_t (*shapes)(int64_t *) = nullptr;
  void (*setNumThreads)(int) = nullptr;
  std::vector<const void *> weightPointers;
  /// Weights copied to aligned memory when the file's buffer is not.
  std::shared_ptr<void> alignedWeights;
  unsigned threadCount = 1;
  /// Scratch memory of metadata().workspaceSize bytes: one per run in
  /// flight, kept for the next run (so pages are touched once, not per run).
  mutable std::mutex workspaceMutex;
  mutable std::vector<std::shared_ptr<void>> freeWorkspaces;
  /// The executor of a GPU engine (null for a CPU engine).
  std::unique_ptr<CudaExecutor> cuda;
};

} // namespace int21::runtime

#endif // INT21_RUNTIME_ENGINE_H
