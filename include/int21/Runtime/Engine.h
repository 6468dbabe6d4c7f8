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
  /// A tensor of `dtype` and `shape` whose elements are in `storage`
  /// (64-byte aligned, at least sizeInBytes()), which it shares.
  Tensor(DType dtype, std::vector<int64_t> shape,
         std::shared_ptr<void> storage)
      : type(dtype), dims(std::move(shape)), storage(std::move(storage)) {}

  DType dtype() const { return type; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t numElements() const;
  size_t sizeInBytes() const { return numElements() * dtypeSize(type); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  /// Gives the tensor `shape`, of no more elements than it has: the first
  /// elements keep their values (an output computed at an extent below the
  /// bound it was allocated at).
  void shrinkTo(std::vector<int64_t> shape);
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
  /// inputs' ranks and static extents, extents within the inputs' profiles
  /// and one extent per dimension name (an error names the input, the
  /// dimension and what it must be). Where they depend on the values of
  /// inputs (EngineMetadata::shapeValueInputs: a Reshape's shape given as
  /// data), `inputs` gives the inputs' data, one pointer each.
  llvm::Expected<std::vector<std::vector<int64_t>>>
  outputShapes(llvm::ArrayRef<std::vector<int64_t>> inputShapes,
               llvm::ArrayRef<const void *> inputs = {}) const;
  /// `run` for inputs of `inputShapes`, on outputs of the shapes
  /// outputShapes gives for them. Inputs of the shapes of a specialisation
  /// (EngineMetadata::specializations) run its code, others the generic.
  /// When some output has extents the run computes from data
  /// (TensorSpec::dataDims), outputShapes gives upper bounds for them and
  /// `ranShapes`, when given, receives the outputs' shapes the run computed
  /// (each output's elements first in its buffer).
  /// An output the run sizes (TensorSpec::sizedByRun: outputShapes gives 0
  /// for its dynamic extents) is not written into `outputs` (its pointer
  /// there is not read and may be null): the run allocates it, and
  /// `ranBuffers`, when given, receives it (one entry per output, null for
  /// the others, each 64-byte aligned; the caller then owns it); without
  /// `ranBuffers` it is discarded.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                  llvm::ArrayRef<void *> outputs,
                  std::vector<std::vector<int64_t>> *ranShapes = nullptr,
                  std::vector<std::shared_ptr<void>> *ranBuffers =
                      nullptr) const;
  /// The specialisation a run on inputs of `inputShapes` takes (its index in
  /// EngineMetadata::specializations), or -1 for the generic code.
  int specializationFor(llvm::ArrayRef<std::vector<int64_t>> inputShapes) const;
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
  /// One piece of CPU code: the generic code, or a specialisation's.
  struct Code;
  /// Loads the code of `meta` (the engine's or a specialisation's) from
  /// the Code section `section`, its weights from `weights`.
  static llvm::Expected<std::unique_ptr<Code>>
  loadCode(const EngineFile &file, const EngineMetadata &meta,
           llvm::StringRef section, const char *weights, llvm::StringRef name);
  /// Checks `inputShapes` against the inputs (ranks, static extents,
  /// profiles, shared dimension names) and returns the inputs' dynamic
  /// extents, in order.
  llvm::Expected<std::vector<int64_t>>
  inputExtents(llvm::ArrayRef<std::vector<int64_t>> inputShapes) const;
  /// The extents array of a dynamic engine's generic run on inputs of
  /// `inputShapes`: the inputs' dynamic extents, then the outputs' as the
  /// code computes them.
  llvm::Expected<std::vector<int64_t>>
  extentsFor(llvm::ArrayRef<std::vector<int64_t>> inputShapes,
             llvm::ArrayRef<const void *> inputs) const;
  /// `run` of `code`, with the device time of a GPU engine's plan in
  /// `deviceMs`, and the extents array of a dynamic engine's generic code
  /// (null otherwise).
  llvm::Error runChecked(const Code *code, llvm::ArrayRef<const void *> inputs,
                         llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                         llvm::ArrayRef<void *> outputs, double *deviceMs,
                         int64_t *extents) const;
  /// The input count, and each input's values within the index bounds of
  /// `code`'s metadata (the engine's for a GPU engine), at `inputShapes`
  /// where an input is dynamic.
  llvm::Error
  checkInputValues(const Code *code, llvm::ArrayRef<const void *> inputs,
                   llvm::ArrayRef<std::vector<int64_t>> inputShapes) const;
  /// Calls `code` on the outputs followed by the check buffers.
  llvm::Error runOnHost(const Code &code, llvm::ArrayRef<const void *> inputs,
                        llvm::ArrayRef<void *> results,
                        int64_t *extents) const;
  /// `run` (timed when `ms` is given) for inputs of `inputShapes`.
  llvm::Error runShaped(llvm::ArrayRef<const void *> inputs,
                        llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                        llvm::ArrayRef<void *> outputs, double *ms,
                        std::vector<std::vector<int64_t>> *ranShapes = nullptr,
                        std::vector<std::shared_ptr<void>> *ranBuffers =
                            nullptr) const;

  EngineFile file;
  std::string name;
  /// A CPU engine's code: the generic code, then each specialisation's.
  std::vector<std::unique_ptr<Code>> codes;
  /// Weights copied to aligned memory when the file's buffer is not.
  std::shared_ptr<void> alignedWeights;
  unsigned threadCount = 1;
  /// The executor of a GPU engine (null for a CPU engine).
  std::unique_ptr<CudaExecutor> cuda;
};

} // namespace int21::runtime

#endif // INT21_RUNTIME_ENGINE_H
