//===- Schedule.h - the schedule templates as one typed contract ----------===//
//
// A schedule is `#int21.schedule<@template, {knob = value, ...}>` on a fusion
// group: the template is a transform-dialect named sequence of
// lib/Transforms/Schedule/{CPU,GPU}, the knobs are its own
// transform.tune.knob / transform.tune.alternatives. What a template takes
// is read from the template itself into the TemplateRegistry; what values
// suit a given group (divisors of its loops, register and hardware limits)
// comes from the rules declared beside the template (CPU/Rules.cpp,
// GPU/Rules.cpp). int21-select-schedules writes a checked schedule on every
// group, int21-apply-schedules applies them; the default rules, the
// knowledge base, libraries, --schedule-knobs and the search's agents all
// go through the same checks.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_TRANSFORMS_SCHEDULE_H
#define INT21_TRANSFORMS_SCHEDULE_H

#include "int21/Support/LLVM.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace int21 {
class FusionGroupOp;

/// Which template set schedules a group: lib/Transforms/Schedule/CPU or
/// lib/Transforms/Schedule/GPU.
enum class ScheduleTarget { CPU, GPU };
} // namespace int21

namespace int21::schedule {

/// Values of a template's knobs and alternatives, by name (an alternative's
/// value is the index of its region).
using Knobs = llvm::StringMap<int64_t>;

/// One knob or alternative a template declares, in its own body or in a
/// sequence it includes. A knob that selects the alternative of the same
/// name is one entry with `regions` set.
struct KnobSpec {
  std::string name;
  /// The template's own option list (the search's suggested points).
  llvm::SmallVector<int64_t> options;
  /// The template's `selected` value, if it gives one.
  std::optional<int64_t> selected;
  /// The number of regions of the alternatives this value selects; 0 for
  /// a plain (tile, vector size) knob.
  unsigned regions = 0;
  /// A transform.tune.alternatives without a knob of its own.
  bool alternative = false;
};

/// A schedule template: a named sequence marked `int21.schedule_template`.
struct TemplateSpec {
  std::string symbol;
  ScheduleTarget target = ScheduleTarget::CPU;
  llvm::SmallVector<KnobSpec> knobs;

  const KnobSpec *lookup(llvm::StringRef knob) const;
  /// "par_m, par_n, ..." for messages.
  std::string knobList() const;
};

/// Every template of every target, read once per process from the
/// templates embedded in the compiler. Immutable, so thread-safe.
class TemplateRegistry {
public:
  static const TemplateRegistry &get();

  const TemplateSpec *lookup(llvm::StringRef symbol) const;
  llvm::ArrayRef<TemplateSpec> getTemplates() const { return templates; }
  /// The templates of `target`, comma-separated, for messages.
  std::string templateList(ScheduleTarget target) const;

  /// Checks that `sequence` is a template and each of `knobs` one of its
  /// knobs with an integer value (an alternative's a region index); `error`
  /// names the template and the knob.
  LogicalResult check(llvm::StringRef sequence, DictionaryAttr knobs,
                      std::string &error) const;
  LogicalResult check(llvm::StringRef sequence, const Knobs &knobs,
                      std::string &error) const;

private:
  TemplateRegistry();
  std::vector<TemplateSpec> templates;
};

/// The values one knob or alternative may take for a given group.
struct KnobDomain {
  std::string name;
  llvm::SmallVector<int64_t> options;
  /// True for a `transform.tune.alternatives` (a choice of pass-pipeline
  /// fragment), false for a `transform.tune.knob` (a tile or vector size).
  bool alternative = false;
};

/// The vector registers of the CPU a module is compiled for, which the CPU
/// rules size register tiles by: their width in bits and how many there
/// are. The rules were measured on AVX-512 (32 registers of 512 bits), the
/// reference model, assumed where a module does not say; a module compiled
/// for another CPU (AVX2: 16 of 256 bits) carries its model as the module
/// attribute `int21.vector_registers = array<i64: BITS, COUNT>`, so that the
/// default schedules, their checks and the search's spaces are the same in
/// int21-compile, int21-opt and the search.
struct VectorModel {
  int64_t bits = 512;
  int64_t registers = 32;

  static constexpr llvm::StringLiteral kAttrName = "int21.vector_registers";

  bool isReference() const { return bits == 512 && registers == 32; }
  /// Floats (f32) the vector registers hold together.
  int64_t floats() const { return bits / 32 * registers; }
  /// `count` vectors of 16 floats on the reference model (a register
  /// tile's accumulators), scaled to this register file (AVX2: a quarter);
  /// at least 1.
  int64_t scaled(int64_t count) const;
  bool operator==(const VectorModel &other) const {
    return bits == other.bits && registers == other.registers;
  }

  /// The model of the module `op` is in (the nearest module that names
  /// one), the reference model where none does or where the attribute is
  /// malformed (see verify).
  static VectorModel of(Operation *op);
  /// Fails with an error naming the attribute when a module in `op` (or
  /// `op` itself) holds a malformed `int21.vector_registers`: not two
  /// integers, bits not one of 128, 256, 512, or a count not 8 to 64.
  static LogicalResult verify(Operation *op);
  /// Writes this model on `module` (removes the attribute for the
  /// reference model, so that AVX-512 modules are as they always were).
  void annotate(ModuleOp module) const;
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
  /// The vector registers the defaults and the register limits are for
  /// (the group's module's model).
  VectorModel vectors;
};

/// Registers what the templates need (the transform dialect and its
/// extensions, the tiling and value-bounds interfaces) with `registry`, and
/// the template registry as the int21 dialect's schedule contract (so that
/// #int21.schedule attributes are checked against it).
void registerScheduleDialects(DialectRegistry &registry);

/// Puts the module into the form the schedules apply to (aggregate ops
/// decomposed, linalg ops outside groups wrapped in groups of their own,
/// reshapes moved out of groups). Idempotent.
LogicalResult prepareForScheduling(ModuleOp module);

/// The templates of `target` that may schedule `group` (prepared), most
/// specific first; empty when none does. The first is the default.
llvm::SmallVector<ScheduleChoice>
getScheduleChoices(FusionGroupOp group,
                   ScheduleTarget target = ScheduleTarget::CPU);

/// Whether `knobs` is a point of `choice`'s space: every knob of the
/// template given, each value in its domain for this work, and the
/// template's rules hold (a register tile no larger than its thread tile,
/// accumulators that fit the registers). `why` names the knob and rule.
bool isPlausible(const ScheduleChoice &choice, const Knobs &knobs,
                 std::string &why);
/// Whether every knob of `knobs` (some or all of the template's) is one of
/// `choice`'s template and each value in its domain for this work: the
/// space as an agent is shown it, without the rules between knobs.
bool isInSpace(const ScheduleChoice &choice, const Knobs &knobs,
               std::string &why);

/// Checks a schedule proposed for `dims` (ScheduleChoice::dims) of a
/// group that `sequence` schedules, by whoever proposes it (the knowledge
/// base, a library, an agent): the template and its knobs (the registry),
/// then each value in its domain for those dims. Knobs not given are not
/// required. `error` names the template and the knob.
LogicalResult checkProposal(llvm::StringRef sequence, const Knobs &knobs,
                            llvm::ArrayRef<int64_t> dims, std::string &error);

/// Puts on `group`'s ops the tags template `sequence` finds them by. Fails
/// when the template does not fit the group.
LogicalResult tagGroupForTemplate(FusionGroupOp group, StringRef sequence);

/// The main op of `group`: its only reduction, or, without one, the op
/// whose result it yields; null when neither exists.
Operation *groupAnchor(FusionGroupOp group);

/// Removes those tags from every op nested in `scope`.
void clearScheduleTags(Operation *scope);

/// Writes schedules with every knob resolved into a transform library (a
/// module with `transform.with_named_sequence`, e.g. an exported knowledge
/// base). Each `add` writes the template `sequence` with `knobs` (every knob
/// and alternative given a value, the template's own where `knobs` is
/// silent) as the named sequence `name`: it tags the group it is given
/// (transform.int21.prepare_group), includes "<sequence>.with_knobs" with
/// the values as params, and takes the tags off. "<sequence>.with_knobs" is
/// the template written once per library, its knobs turned into arguments
/// (and its included sequences with knobs inlined); the sequences without
/// knobs it includes are written once under their own names. All of those
/// come first in the library. An `add` costs the same however many
/// schedules the library holds, and verifying it time linear in its size.
class ResolvedScheduleWriter {
public:
  /// A writer into `library` of `target`'s templates; failure (with a
  /// diagnostic) when the templates do not parse.
  static FailureOr<std::unique_ptr<ResolvedScheduleWriter>>
  create(ModuleOp library, ScheduleTarget target);
  ~ResolvedScheduleWriter();

  /// The entry sequence written for `name`. Fails when `sequence` is not a
  /// template of the target, a knob is not one of its knobs or has no value,
  /// an alternative has no such region, or `name` is taken; the library is
  /// then left as it was.
  FailureOr<Operation *> add(StringRef sequence, const Knobs &knobs,
                             StringRef name);

private:
  ResolvedScheduleWriter(ModuleOp library, OwningOpRef<ModuleOp> templates);
  struct State;
  std::unique_ptr<State> state;
};

/// Registers the transform ops int21 adds (transform.int21.prepare_group,
/// transform.int21.clear_tags, the matchers).
void registerTransformExtension(DialectRegistry &registry);

} // namespace int21::schedule

#endif // INT21_TRANSFORMS_SCHEDULE_H
