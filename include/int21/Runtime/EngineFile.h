//===- EngineFile.h - the .int21 engine file format -----------------------===//
//
// An engine file is a 32-byte header followed by sections:
//
//   header:  "INT21ENG" | u32 format version | u32 section count
//            | u64 payload size | u64 xxh3 checksum of the payload
//   section: u32 kind | u32 name length | u64 data size | name
//            | padding to 64 bytes | data | padding to 64 bytes
//
// All integers are little-endian. Section data starts 64-byte aligned in the
// file, so that weights can be used in place from a memory-mapped file. The
// metadata section (JSON) names the target, the compiler version and the
// inputs and outputs; code, weight and plan sections are opaque here.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_ENGINEFILE_H
#define INT21_RUNTIME_ENGINEFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace int21::runtime {

/// The format version this runtime writes and reads.
constexpr uint32_t kEngineFormatVersion = 1;

enum class DType { F16, BF16, F32, F64, Bool, I8, I16, I32, I64, U8, U16, U32, U64 };

/// The ONNX-style name of a dtype ("float32", "int64", "bool", ...).
llvm::StringRef dtypeName(DType type);
std::optional<DType> parseDType(llvm::StringRef name);
/// Size of one element in bytes.
size_t dtypeSize(DType type);

/// The values an integer input may hold because a node indexes with them
/// (Gather's indices along an axis of size d: [-d, d - 1]). Engine::run
/// refuses an input outside its bounds with an error naming the node, as
/// ONNX Runtime does; the code itself clamps, so it never reads out of
/// bounds either way.
struct IndexBounds {
  int64_t min = 0;
  int64_t max = 0;
  /// The node, as errors name it: "'embed' (Gather)".
  std::string node;

  bool operator==(const IndexBounds &other) const {
    return min == other.min && max == other.max && node == other.node;
  }
};

/// An input or output of an engine.
struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  /// The extents; kDynamicExtent where a run gives it (a dynamic engine).
  std::vector<int64_t> shape;
  /// For an integer input that nodes index with directly.
  std::vector<IndexBounds> indexBounds;
  /// The model's name of each dynamic extent (its dim_param), "" where it
  /// has none; empty when the shape is static. Inputs that share a name
  /// share the extent.
  std::vector<std::string> dimNames;

  /// The shapes a run may give this input, its shape profile
  /// (int21-compile --shape-profile): extent d within [profileMin[d],
  /// profileMax[d]], and profileOpt the shape the engine was optimised for.
  /// Empty (any extent) without a profile; only on dynamic inputs.
  std::vector<int64_t> profileMin, profileOpt, profileMax;

  /// For an output: its dynamic dimensions whose extents the run computes
  /// from data (ONNX NonZero's count, Unique's): a shape query gives an
  /// upper bound, which the output is allocated at, and the run gives the
  /// extent (Engine::run's output shapes). Increasing.
  std::vector<int64_t> dataDims;
  /// For an output: whether the run computes its dynamic extents with no
  /// bound known before it (a value a loop grows, a slice at a position
  /// the run computes). A shape query gives 0 for them; the run allocates
  /// the output and gives its shape (Engine::run's ranBuffers).
  bool sizedByRun = false;

  static constexpr int64_t kDynamicExtent = -1;
  bool hasProfile() const { return !profileMin.empty(); }
  bool hasDataDims() const { return !dataDims.empty(); }
  bool isDynamic() const {
    for (int64_t d : shape)
      if (d == kDynamicExtent)
        return true;
    return false;
  }
  bool operator==(const TensorSpec &other) const {
    return name == other.name && dtype == other.dtype &&
           shape == other.shape && dimNames == other.dimNames &&
           indexBounds == other.indexBounds &&
           profileMin == other.profileMin && profileOpt == other.profileOpt &&
           profileMax == other.profileMax && dataDims == other.dataDims &&
           sizedByRun == other.sizedByRun;
  }
};

/// The first value of `data` (`spec`'s dtype and shape) outside one of its
/// index bounds, as an error message naming the input, the element, the
/// bounds and the node; empty when every value lies within them.
std::string checkIndexBounds(const TensorSpec &spec, const void *data);

/// The same for an index check (EngineMetadata::checks): `data` holds the
/// least and the greatest index a node computed in the graph; the message
/// names the node, the value and its bounds.
std::string checkComputedIndices(const TensorSpec &check, const void *data);

/// Plan: what a GPU engine runs, in order (GPUPlan.h).
enum class SectionKind : uint32_t {
  Metadata = 1,
  Code = 2,
  Weights = 3,
  Plan = 4
};

/// A section as written: its bytes are owned by the caller.
struct Section {
  SectionKind kind;
  std::string name;
  llvm::StringRef data;
};

/// A weight: a slice of the weights section, passed to the code by pointer.
struct WeightSpec {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;

  bool operator==(const WeightSpec &other) const {
    return name == other.name && offset == other.offset && size == other.size;
  }
};

struct EngineSpecialization;

/// What the metadata section says.
struct EngineMetadata {
  /// Where the code runs: "cpu:<triple>:<cpu>" or an NVIDIA chip "sm_90".
  std::string target;
  std::string compilerVersion;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  /// Index checks: for each node that indexes with indices computed in the
  /// graph (Gather's), the least and the greatest of them ([2], the indices'
  /// dtype) and the bounds they must lie in (TensorSpec::indexBounds). The
  /// code writes them after the outputs; Engine::run refuses a run whose
  /// indices fell outside, naming the node. Not outputs: callers never see
  /// them.
  std::vector<TensorSpec> checks;
  /// The weights in the order the code takes them (after the inputs, before
  /// the outputs). Offsets are 64-byte aligned.
  std::vector<WeightSpec> weights;
  /// Bytes of scratch memory the code needs, passed as its last argument
  /// (after the outputs and checks) when not zero.
  uint64_t workspaceSize = 0;
  /// The number of dynamic extents of the inputs and the outputs: the code
  /// takes them in one array of int64 (its last argument, after the
  /// workspace), the inputs' in order then the outputs', and computes the
  /// outputs' with `int21_shapes(int64_t *extents, void **args)` before the
  /// run (args as int21_entry's, without the outputs). Zero for an engine
  /// of static shapes.
  uint64_t numExtents = 0;
  bool isDynamic() const { return numExtents != 0; }
  /// What `int21_shapes` checks of the inputs' extents, in order: it returns
  /// the number of the first that fails (1-based), 0 when all hold.
  std::vector<std::string> extentChecks;
  /// The inputs whose values (not only extents) `int21_shapes` reads: the
  /// outputs' shapes depend on them (a Reshape's shape, a range's limit
  /// given as data), so a shape query must give their data too.
  std::vector<std::string> shapeValueInputs;

  /// Code of a dynamic engine specialised for static input shapes (the
  /// shape profile's opt shape and the buckets of int21-compile
  /// --shape-bucket): a run whose inputs have one's shapes runs its code,
  /// any other the engine's generic code. Empty for other engines.
  std::vector<EngineSpecialization> specializations;

  /// The buffers the code writes, in order: the outputs, then the checks.
  size_t numResultBuffers() const { return outputs.size() + checks.size(); }
  const TensorSpec &resultBuffer(size_t i) const {
    return i < outputs.size() ? outputs[i] : checks[i - outputs.size()];
  }
};

/// Code specialised for static input shapes, in a dynamic engine.
struct EngineSpecialization {
  /// The name of the Code section holding it ("cpu.1.so", ...).
  std::string code;
  /// Its own metadata, as for an engine of its own but without target,
  /// compiler version or specialisations: the engine's inputs and outputs
  /// (names, dtypes) at static shapes, its checks, workspace and weights.
  /// The weights lie in the engine's weights section, where a specialisation
  /// and the generic code share the bytes they have in common.
  EngineMetadata metadata;
};

/// The first line of an ABI descriptor: the version of its contract.
constexpr llvm::StringLiteral kABIVersionLine = "int21-abi 3";

/// The symbol under which a CPU engine's code holds its ABI descriptor.
constexpr llvm::StringLiteral kABISymbol = "int21_abi";

/// The calling contract of a CPU engine's code, as text: every argument
/// `int21_entry` takes (inputs, weights, outputs, checks, the workspace), in
/// order, with what the code assumes of it (dtype and shape; a weight's
/// size; the workspace's size). The compiler stores the
/// descriptor of the metadata it writes in the code itself (kABISymbol); the
/// loader recomputes it from the metadata it reads and refuses an engine
/// whose two disagree, so metadata edited to disagree with the code never
/// reaches it. Names are not part of the contract.
std::string abiDescriptor(const EngineMetadata &metadata);

/// Where the descriptor `code` (from the code) and `metadata` (from the
/// metadata) first disagree, as a phrase naming the argument; empty when
/// they agree.
std::string abiMismatch(llvm::StringRef code, llvm::StringRef metadata);

/// Writes an engine with `metadata` and `sections` (code, weights, ...).
void writeEngineFile(const EngineMetadata &metadata,
                     llvm::ArrayRef<Section> sections, llvm::raw_ostream &os);

/// A validated engine file in memory. Section data points into the buffer,
/// which the object owns.
class EngineFile {
public:
  /// Reads and validates `buffer`: header, checksum, section bounds and the
  /// metadata. `path` names the file in errors. When `expectedTarget` is
  /// given, an engine for another target is refused.
  static llvm::Expected<EngineFile>
  read(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef path,
       std::optional<llvm::StringRef> expectedTarget = std::nullopt);

  /// Opens and reads the file at `path`.
  static llvm::Expected<EngineFile>
  open(llvm::StringRef path,
       std::optional<llvm::StringRef> expectedTarget = std::nullopt);

  const EngineMetadata &metadata() const { return meta; }
  llvm::ArrayRef<Section> sections() const { return sectionList; }
  /// The first section of `kind` (and `name`, when not empty).
  std::optional<Section> find(SectionKind kind, llvm::StringRef name = "") const;

private:
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  EngineMetadata meta;
  std::vector<Section> sectionList;
};

} // namespace int21::runtime

#endif // INT21_RUNTIME_ENGINEFILE_H
