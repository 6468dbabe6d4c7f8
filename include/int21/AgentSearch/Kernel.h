//===- Kernel.h - the kernels of a model, as the search sees them ---------===//
//
// A kernel is one fusion group of a model lowered to linalg, cut out into a
// module of its own: `func.func @main` takes the values the group reads from
// outside (small constants are copied in) and returns what it yields. That
// module compiles to an engine like any model, so a schedule for the group is
// compiled, checked and timed in isolation. Groups whose kernel modules print
// the same share a signature, and one schedule serves them all.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_KERNEL_H
#define INT21_AGENTSEARCH_KERNEL_H

#include "int21/Transforms/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace int21 {
class FusionGroupOp;
} // namespace int21

namespace int21::search {

struct Kernel {
  /// Hex digest of the kernel module's text: equal for equal work.
  std::string signature;
  /// A readable name: the anchor op and its loop sizes, and the ONNX node.
  std::string name;
  /// The kernel module (func.func @main around the fusion group).
  std::string ir;
  /// The main op's kind ("matmul", "conv_2d_nchw_fchw", "generic") and the
  /// element types the kernel reads and writes ("f32", "f16,f32"): with the
  /// first choice's dims, what makes work similar to other work.
  std::string opKind;
  std::string elementTypes;
  /// The main op's loop sizes (schedule::groupAnchor).
  std::vector<int64_t> loops;
  /// Groups of the model with this signature.
  unsigned instances = 0;
  /// The templates that may schedule it, with knob domains and defaults.
  std::vector<int21::schedule::ScheduleChoice> choices;
  /// Work and traffic, for the roofline bound: arithmetic operations and
  /// the bytes of the kernel's inputs and outputs.
  double flops = 0;
  double bytes = 0;
  /// Set for a merged kernel (two groups of the model fused into one by the
  /// search, see Fusion.h): the kernels of its producer and consumer groups,
  /// which it replaces where it wins.
  std::optional<std::pair<unsigned, unsigned>> mergeOf;

  /// The choice for template `sequence`, or null.
  const int21::schedule::ScheduleChoice *
  findChoice(llvm::StringRef sequence) const;
};

/// The kernel module of `group`: a new module in `group`'s context.
mlir::OwningOpRef<mlir::ModuleOp>
buildKernelModule(int21::FusionGroupOp group);

/// The signature of `group` (the digest of its kernel module's text).
std::string kernelSignature(int21::FusionGroupOp group);

/// The kernel of `group` alone (one instance); std::nullopt when no template
/// schedules it.
std::optional<Kernel> describeKernel(int21::FusionGroupOp group);

/// The kernels of `module`, which must be lowered to linalg and prepared
/// (schedule::prepareForScheduling): one per distinct signature, in the order of
/// their first group. Groups no template schedules are left out.
std::vector<Kernel> extractKernels(mlir::ModuleOp module);

/// A schedule chosen for a kernel: a template and its knob values.
struct Schedule {
  std::string sequence;
  std::map<std::string, int64_t> knobs;
};

/// Puts `#int21.schedule` on every group of `module` whose signature
/// `schedules` names. Returns how many groups got one.
unsigned applySchedules(mlir::ModuleOp module,
                        const std::map<std::string, Schedule> &schedules);

/// `schedule` as the attribute int21-cpu-schedule reads.
mlir::Attribute toScheduleAttr(mlir::MLIRContext *ctx,
                               const Schedule &schedule);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_KERNEL_H
