//===- CPUSchedule.h - the schedule templates as a search space -----------===//
//
// What int21-cpu-schedule (and int21-gpu-schedule, for the GPU templates)
// decides, exposed for the schedule search: which
// templates may schedule a fusion group, with the knob values the default
// schedule picks and the domain of every knob and alternative. A point of
// that space is applied by putting `#int21.schedule<name, knobs>` on the
// group (or, for every group of a template, with the pass's `knobs` option).
//
//===----------------------------------------------------------------------===//

#ifndef INT21_TRANSFORMS_CPUSCHEDULE_H
#define INT21_TRANSFORMS_CPUSCHEDULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>

namespace mlir::int21 {
class FusionGroupOp;

/// Which template set schedules a group: lib/Transforms/Schedules/cpu
/// (int21-cpu-schedule) or lib/Transforms/Schedules/gpu
/// (int21-gpu-schedule). The types below serve both.
enum class ScheduleTarget { CPU, GPU };
} // namespace mlir::int21

namespace mlir::int21::cpu {

/// Values of a template's knobs and alternatives, by name (an alternative's
/// value is the index of its region).
using Knobs = llvm::StringMap<int64_t>;

/// The values one knob or alternative of a template may take.
struct KnobDomain {
  std::string name;
  llvm::SmallVector<int64_t> options;
  /// True for a `transform.tune.alternatives` (a choice of pass-pipeline
  /// fragment), false for a `transform.tune.knob` (a tile or vector size).
  bool alternative = false;
};

/// One template that may schedule a group.
struct ScheduleChoice {
  /// The template's named sequence, e.g. "cpu.matmul".
  std::string sequence;
  /// The default schedule's values (every knob and alternative).
  Knobs defaults;
  /// Every knob and alternative, each domain containing its default; the
  /// sizes are derived from the work (divisors, powers of two up to the
  /// dimension, register limits).
  llvm::SmallVector<KnobDomain> domains;
  /// The dimensions the template's knobs tile (m, n, k for a matmul; the
  /// iteration space for an elementwise group).
  llvm::SmallVector<int64_t> dims;
};

/// Registers what the templates need (the transform dialect and its
/// extensions, the tiling and value-bounds interfaces) with `registry`.
void registerScheduleDialects(DialectRegistry &registry);

/// Puts the module into the form int21-cpu-schedule schedules (aggregate ops
/// decomposed, linalg ops outside groups wrapped in groups of their own,
/// reshapes moved out of groups). Idempotent: the pass runs it again.
LogicalResult prepareForScheduling(ModuleOp module);

/// The templates of `target` that may schedule `group` (prepared), most
/// specific first; empty when none does. The first is what the default
/// schedule tries first.
llvm::SmallVector<ScheduleChoice>
getScheduleChoices(FusionGroupOp group,
                   ScheduleTarget target = ScheduleTarget::CPU);

/// Whether `knobs` is a plausible point of `choice`'s space: every value in
/// its domain and the tiles nested sensibly (a register tile no larger than
/// its thread tile, accumulators that fit the registers). Candidates that
/// fail are rejected before compiling; `why` says which rule failed.
bool isPlausible(const ScheduleChoice &choice, const Knobs &knobs,
                 std::string &why);

/// Puts on `group`'s ops the tags template `sequence` finds them by, as
/// int21-cpu-schedule does before applying it. Fails when the template does
/// not fit the group.
LogicalResult tagGroupForTemplate(FusionGroupOp group, StringRef sequence);

/// The main op of `group`: its only reduction, or, without one, the op
/// whose result it yields; null when neither exists.
Operation *groupAnchor(FusionGroupOp group);

/// Removes those tags from every op nested in `scope`.
void clearScheduleTags(Operation *scope);

/// Adds to `library` (a module with `transform.with_named_sequence`) the
/// template `sequence` resolved with `knobs` (every knob and alternative
/// selected, the template's defaults where `knobs` is silent) as the named
/// sequence `name`, which first tags the group it is given
/// (transform.int21.prepare_group), then runs the template and takes the
/// tags off. The sequences it includes come along: those with knobs of
/// their own as "<name>.<their name>", the others once under their own name.
LogicalResult addResolvedSchedule(ModuleOp library, StringRef sequence,
                                  const Knobs &knobs, StringRef name);

/// Registers the transform ops int21 adds (transform.int21.prepare_group,
/// transform.int21.clear_tags).
void registerTransformExtension(DialectRegistry &registry);

} // namespace mlir::int21::cpu

#endif // INT21_TRANSFORMS_CPUSCHEDULE_H
