//===- GPUPlan.h - the host plan of a GPU engine --------------------------===//
//
// A GPU engine runs a fixed list of steps, in order, on one stream: kernel
// launches, device-to-device copies and memsets. Every pointer a step uses is
// a byte offset into one of the engine's buffers: an input, a weight, an
// output (in the order and with the sizes of EngineMetadata) or the
// workspace (EngineMetadata::workspaceSize bytes).
//
// The plan is stored as JSON in the engine's plan section ("gpu.plan"); the
// code (PTX, and a cubin when ptxas made one) in code sections named
// "<module>.ptx" and "<module>.<sm_XY>.cubin". Reading validates everything
// a step could get wrong before anything runs on a device: known buffers,
// modules and kernels, argument kinds against the kernel's parameters, and
// every byte range a pointer is known to reach inside its buffer.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_GPUPLAN_H
#define INT21_RUNTIME_GPUPLAN_H

#include "int21/Runtime/EngineFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace int21::runtime {

/// The plan format version this runtime writes and reads.
constexpr int64_t kGPUPlanVersion = 1;
/// The name of the plan section in an engine file.
constexpr llvm::StringLiteral kGPUPlanSection = "gpu.plan";

enum class BufferKind { Input, Weight, Output, Workspace };
llvm::StringRef bufferKindName(BufferKind kind);

/// A device pointer: `offset` bytes into buffer `index` of `kind` (index 0
/// for the workspace). `size` is how many bytes from there the step may
/// touch, when known (0: unknown, only the offset is checked).
struct BufferRef {
  BufferKind kind = BufferKind::Input;
  unsigned index = 0;
  uint64_t offset = 0;
  uint64_t size = 0;

  bool operator==(const BufferRef &other) const {
    return kind == other.kind && index == other.index &&
           offset == other.offset && size == other.size;
  }
};

/// A kernel parameter or argument kind: a device pointer or a scalar.
enum class ArgKind { Pointer, I32, I64, F32, F64 };
llvm::StringRef argKindName(ArgKind kind);
/// The bytes the argument takes in the kernel's parameter space.
size_t argKindSize(ArgKind kind);

/// One argument of a launch. Scalars keep their bits in `bits` (an f32 in
/// the low 32 bits, as the kernel reads it).
struct KernelArg {
  ArgKind kind = ArgKind::Pointer;
  BufferRef pointer;
  uint64_t bits = 0;

  static KernelArg ptr(BufferRef ref);
  static KernelArg i32(int32_t value);
  static KernelArg i64(int64_t value);
  static KernelArg f32(float value);
  static KernelArg f64(double value);

  bool operator==(const KernelArg &other) const {
    return kind == other.kind &&
           (kind == ArgKind::Pointer ? pointer == other.pointer
                                     : bits == other.bits);
  }
};

/// A kernel of a module, with the parameters it takes in order.
struct GPUKernel {
  std::string name;
  std::vector<ArgKind> params;
  bool operator==(const GPUKernel &other) const {
    return name == other.name && params == other.params;
  }
};

/// A module: one PTX text (section "<name>.ptx") with its kernels.
struct GPUModule {
  std::string name;
  std::vector<GPUKernel> kernels;
  bool operator==(const GPUModule &other) const {
    return name == other.name && kernels == other.kernels;
  }
};

struct GPUStep {
  enum class Kind { Launch, Copy, Memset };
  Kind kind = Kind::Launch;
  /// Launch: the kernel, the grid and block sizes (x, y, z), the dynamic
  /// shared memory in bytes and the arguments.
  std::string module, kernel;
  std::array<uint32_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<KernelArg> args;
  /// Copy: `bytes` from `src` to `dst`. Memset: `bytes` of `dst` set to
  /// `value`.
  BufferRef src, dst;
  uint64_t bytes = 0;
  uint8_t value = 0;

  bool operator==(const GPUStep &other) const;
  /// "launch kernels::scale", "copy", "memset": how errors name the step.
  std::string describe() const;
};

struct GPUPlan {
  std::vector<GPUModule> modules;
  std::vector<GPUStep> steps;

  const GPUKernel *findKernel(llvm::StringRef module,
                              llvm::StringRef kernel) const;
  bool operator==(const GPUPlan &other) const {
    return modules == other.modules && steps == other.steps;
  }
};

/// The plan as JSON (what the plan section holds).
llvm::json::Value gpuPlanToJSON(const GPUPlan &plan);
/// The plan as the text of its section.
std::string gpuPlanToString(const GPUPlan &plan, bool pretty = false);

/// The plan as text, one line per module and per step, e.g.
///   step 0: launch kernels::axpy grid 1x1x1 block 8x1x1 shared 0
///           (input 0 +0 [48], weight 0 +0 [32], workspace +64 [32], f32 2)
///   step 1: copy 32 bytes workspace +64 -> output 0 +0
void printGPUPlan(const GPUPlan &plan, llvm::raw_ostream &os);

/// Parses and validates a plan section against the engine's metadata.
/// `path` names the engine in errors ("PATH: plan step 3 (launch m::k):
/// ...").
llvm::Expected<GPUPlan> parseGPUPlan(llvm::StringRef text,
                                     const EngineMetadata &meta,
                                     llvm::StringRef path);

/// Checks `plan` against `meta`: buffers, kernels, argument kinds and byte
/// ranges (see the file comment).
llvm::Error validateGPUPlan(const GPUPlan &plan, const EngineMetadata &meta,
                            llvm::StringRef path);

/// The size in bytes of a buffer of the engine, or std::nullopt when there
/// is no such buffer.
std::optional<uint64_t> bufferSize(const EngineMetadata &meta, BufferKind kind,
                                   unsigned index);

/// The kernels a PTX text defines (its `.entry` names) with their parameter
/// sizes in bytes, in order.
struct PTXEntry {
  std::string name;
  std::vector<unsigned> paramSizes;
};
std::vector<PTXEntry> listPTXEntries(llvm::StringRef ptx);

/// The PTX `.target` of `ptx` ("sm_90"), or "" when it has none.
std::string ptxTarget(llvm::StringRef ptx);

/// Reads the plan and checks it against the code in `file`: each module has
/// a PTX section whose entries are the plan's kernels with parameters of the
/// sizes the plan says.
llvm::Expected<GPUPlan> readGPUPlan(const EngineFile &file,
                                    llvm::StringRef path);

/// Whether `target` names an NVIDIA chip ("sm_80", "sm_90", "sm_90a").
bool isGPUTarget(llvm::StringRef target);
/// The compute capability of a chip name ("sm_90" -> 90), or std::nullopt.
std::optional<unsigned> smVersion(llvm::StringRef target);

} // namespace int21::runtime

#endif // INT21_RUNTIME_GPUPLAN_H
