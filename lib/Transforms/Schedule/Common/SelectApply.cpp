//===- SelectApply.cpp - choose, check and apply the schedule of each group -===//
//
// int21-select-schedules writes a checked #int21.schedule on every fusion
// group: the group's own (a library's, the search's, a hand-written one),
// else the first plan of the target's default rules, with the `knobs`
// option over either. Every schedule goes through the template registry
// (template and knobs exist, values are integers) and then through the
// template's rules for this group (each value in its domain, the rules
// between knobs). int21-apply-schedules applies the schedules with the
// transform interpreter, a template that fails falling back to the next
// default plan unless the schedule is binding (strict). int21-cpu-schedule
// and int21-gpu-schedule are the two in sequence.
//
//===----------------------------------------------------------------------===//

#include "ScheduleInternal.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#include <memory>

namespace int21 {
#define GEN_PASS_DEF_INT21SELECTSCHEDULES
#define GEN_PASS_DEF_INT21APPLYSCHEDULES
#define GEN_PASS_DEF_INT21CPUSCHEDULE
#define GEN_PASS_DEF_INT21GPUSCHEDULE
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

#define DEBUG_TYPE "int21-schedule"

using namespace mlir;
using namespace int21;
using namespace int21::schedule;

namespace {

const char *targetName(ScheduleTarget target) {
  return target == ScheduleTarget::GPU ? "GPU" : "CPU";
}

/// The target a pass option names: "cpu", "sm_80" or "sm_90".
FailureOr<ScheduleTarget> parseTarget(StringRef text, std::string &error) {
  if (text == "cpu")
    return ScheduleTarget::CPU;
  if (text == "sm_80" || text == "sm_90")
    return ScheduleTarget::GPU;
  error = ("unknown target '" + text + "' (expected cpu, sm_80 or sm_90)").str();
  return failure();
}

/// Parses a `knobs` option, TEMPLATE.NAME=VALUE,..., into knob values per
/// template, each checked against the registry and `target`.
FailureOr<llvm::StringMap<Knobs>> parseKnobOption(StringRef option,
                                                  ScheduleTarget target,
                                                  std::string &error) {
  llvm::StringMap<Knobs> byTemplate;
  SmallVector<StringRef> items;
  option.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, text] = item.trim().split('=');
    size_t dot = key.rfind('.');
    int64_t value;
    if (dot == StringRef::npos || dot == 0 || dot + 1 == key.size() ||
        text.trim().getAsInteger(10, value)) {
      error = ("expected TEMPLATE.NAME=INTEGER, got '" + item.trim() + "'")
                  .str();
      return failure();
    }
    byTemplate[key.take_front(dot)][key.drop_front(dot + 1)] = value;
  }
  const TemplateRegistry &registry = TemplateRegistry::get();
  for (const auto &entry : byTemplate) {
    const TemplateSpec *spec = registry.lookup(entry.getKey());
    if (spec && spec->target != target) {
      error = ("template @" + entry.getKey() + " is a " +
               targetName(spec->target) + " template, not one of the " +
               targetName(target) + " (" + registry.templateList(target) + ")")
                  .str();
      return failure();
    }
    if (failed(registry.check(entry.getKey(), entry.getValue(), error)))
      return failure();
  }
  return byTemplate;
}

Knobs toKnobs(DictionaryAttr dict) {
  Knobs knobs;
  for (NamedAttribute knob : dict)
    if (auto value = dyn_cast<IntegerAttr>(knob.getValue()))
      knobs[knob.getName().getValue()] = value.getValue().getSExtValue();
  return knobs;
}

ScheduleAttr toAttr(MLIRContext *ctx, StringRef sequence, const Knobs &knobs) {
  Builder b(ctx);
  SmallVector<NamedAttribute> entries;
  for (const auto &knob : knobs)
    entries.push_back(
        b.getNamedAttr(knob.getKey(), b.getI64IntegerAttr(knob.getValue())));
  return ScheduleAttr::get(ctx, FlatSymbolRefAttr::get(ctx, sequence),
                           b.getDictionaryAttr(entries));
}

/// The checked schedule of one group, or failure with an error on it.
/// `own` is false when the group's own schedule names a template that does
/// not fit it (and `strict` is off): the defaults are used instead.
LogicalResult selectGroup(FusionGroupOp group, ScheduleTarget target,
                          const llvm::StringMap<Knobs> &overrides,
                          bool strict) {
  Location loc = group.getLoc();
  MLIRContext *ctx = group->getContext();
  SmallVector<Plan> plans = planDefaults(group, target);
  ScheduleAttr own = group.getScheduleAttr();
  const Plan *plan = plans.empty() ? nullptr : &plans.front();
  Knobs knobs;
  if (own) {
    // Attributes built in C++ are not verified when built: check again.
    std::string error;
    StringRef sequence = own.getSequence().getValue();
    if (failed(TemplateRegistry::get().check(sequence, own.getKnobs(), error)))
      return emitError(loc) << "schedule " << own << ": " << error;
    auto it = llvm::find_if(
        plans, [&](const Plan &p) { return p.sequence == sequence; });
    if (it == plans.end()) {
      if (strict || plans.empty())
        return emitError(loc) << "schedule " << own
                              << " names no template that fits this group";
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << own
                              << " does not fit the group at " << loc
                              << "; the default schedule is used\n");
    } else {
      plan = &*it;
      knobs = toKnobs(own.getKnobs());
    }
  }
  if (!plan) {
    group.removeScheduleAttr();
    return success(); // No template schedules it: left as it is.
  }
  Knobs full = plan->knobs;
  for (const auto &knob : knobs)
    full[knob.getKey()] = knob.getValue();
  // A schedule that does not set a knob selecting among alternatives was
  // written for the template before it had them (a knowledge-base record,
  // say): it selects the template's own choice (its first region, which
  // holds what the template did then), not the rules' pick for this work,
  // so that its other knobs mean what they meant.
  if (own)
    if (const TemplateSpec *spec =
            TemplateRegistry::get().lookup(plan->sequence))
      for (const KnobSpec &knob : spec->knobs)
        if (knob.regions > 0 && !knobs.count(knob.name))
          full[knob.name] = knob.selected.value_or(0);
  if (auto it = overrides.find(plan->sequence); it != overrides.end())
    for (const auto &knob : it->second)
      full[knob.getKey()] = knob.getValue();

  SmallVector<ScheduleChoice> choices = getScheduleChoices(group, target);
  auto choice = llvm::find_if(choices, [&](const ScheduleChoice &c) {
    return c.sequence == plan->sequence;
  });
  if (choice == choices.end())
    return emitError(loc) << "template @" << plan->sequence
                          << " is not in the registry";
  // Knobs the template takes but neither the rules nor the schedule set
  // keep the template's own value.
  for (const KnobDomain &domain : choice->domains)
    if (!full.count(domain.name))
      full[domain.name] = choice->defaults.lookup(domain.name);
  clampToExtents(plan->sequence, choice->dims, full);
  std::string why;
  if (!isPlausible(*choice, full, why))
    return emitError(loc) << "schedule @" << plan->sequence << ": " << why;
  group.setScheduleAttr(toAttr(ctx, plan->sequence, full));
  return success();
}

/// What the select and apply passes share for one target: the template
/// library and the knob option, parsed once per pass instance and shared by
/// its clones (read-only: each application works on its own copy).
class ScheduleDriver {
public:
  LogicalResult initialize(MLIRContext *ctx, StringRef passName,
                           StringRef targetName, StringRef knobOption) {
    std::string error;
    FailureOr<ScheduleTarget> parsedTarget = parseTarget(targetName, error);
    if (failed(parsedTarget))
      return emitError(UnknownLoc::get(ctx)) << passName << ": " << error;
    target = *parsedTarget;
    FailureOr<llvm::StringMap<Knobs>> parsed =
        parseKnobOption(knobOption, target, error);
    if (failed(parsed))
      return emitError(UnknownLoc::get(ctx))
             << passName << ": knobs: " << error;
    overrides = std::make_shared<llvm::StringMap<Knobs>>(std::move(*parsed));
    FailureOr<OwningOpRef<ModuleOp>> merged =
        schedule::detail::parseTemplateLibrary(ctx, target);
    if (failed(merged))
      return failure();
    library = std::make_shared<OwningOpRef<ModuleOp>>(std::move(*merged));
    return success();
  }

  /// Writes a checked schedule on every group of `module`.
  LogicalResult select(ModuleOp module, bool strict) {
    if (failed(VectorModel::verify(module)))
      return failure();
    if (target == ScheduleTarget::GPU)
      schedule::gpu::materializeSplats(module);
    if (failed(prepareForScheduling(module)))
      return failure();
    SmallVector<FusionGroupOp> groups;
    module.walk([&](FusionGroupOp group) { groups.push_back(group); });
    bool ok = true;
    for (FusionGroupOp group : groups) {
      if (target == ScheduleTarget::GPU)
        schedule::gpu::prepareGroup(group);
      if (failed(selectGroup(group, target, *overrides, strict)))
        ok = false;
    }
    return success(ok);
  }

  /// Applies the schedule of every group of `module` and dissolves the
  /// groups. `binding` says whether a group's schedule must apply (strict)
  /// or may fall back to the next default plan; `threads` = false makes
  /// the CPU's thread tiles cover everything.
  LogicalResult apply(ModuleOp module, function_ref<bool(FusionGroupOp)> binding,
                      bool threads,
                      function_ref<LogicalResult(OpPassManager &, Operation *)>
                          runPipeline) {
    SmallVector<FusionGroupOp> groups;
    module.walk([&](FusionGroupOp group) { groups.push_back(group); });
    for (FusionGroupOp group : groups) {
      ScheduleAttr schedule = group.getScheduleAttr();
      if (!schedule)
        continue;
      Location loc = group.getLoc();
      StringRef sequence = schedule.getSequence().getValue();
      SmallVector<Plan> plans = planDefaults(group, target);
      auto it = llvm::find_if(
          plans, [&](const Plan &p) { return p.sequence == sequence; });
      if (it == plans.end())
        return emitError(loc) << "schedule " << schedule
                              << " names no template that fits this group";
      Plan own = *it;
      own.knobs = toKnobs(schedule.getKnobs());
      bool mustApply = binding(group);
      if (succeeded(applyPlan(group, own, threads)))
        continue;
      if (mustApply) {
        InFlightDiagnostic error = emitError(loc)
                                   << "schedule " << schedule
                                   << " does not apply to this group";
        if (!lastFailure.empty())
          error << ": " << lastFailure;
        return error;
      }
      // An alternative region beyond a template's first is a newer form of
      // its algorithm: where it does not apply, the first (the form the
      // template had before) is tried with the same knobs, then the other
      // templates.
      if (succeeded(applyFirstRegions(group, own, threads)))
        continue;
      for (const Plan &plan : plans)
        if (plan.sequence != sequence &&
            succeeded(applyPlan(group, plan, threads)))
          break;
    }

    clearTags(module);
    OpPassManager inliner(ModuleOp::getOperationName());
    inliner.addNestedPass<func::FuncOp>(createInt21InlineFusionGroups());
    return runPipeline(inliner, module);
  }

  /// Applies `plan` with each of its alternatives knobs set to the first
  /// region; fails (applying nothing) if it selected first regions already.
  LogicalResult applyFirstRegions(FusionGroupOp group, Plan plan,
                                  bool threads) {
    const TemplateSpec *spec = TemplateRegistry::get().lookup(plan.sequence);
    if (!spec)
      return failure();
    bool changed = false;
    for (const KnobSpec &knob : spec->knobs)
      if (knob.regions > 0)
        if (auto it = plan.knobs.find(knob.name);
            it != plan.knobs.end() && it->second != 0) {
          it->second = 0;
          changed = true;
        }
    if (!changed)
      return failure();
    return applyPlan(group, plan, threads);
  }

  /// Selects then applies, the groups' own schedules binding with
  /// `strict` (int21-cpu-schedule, int21-gpu-schedule).
  LogicalResult selectAndApply(
      ModuleOp module, bool strict, bool threads,
      function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline) {
    if (failed(VectorModel::verify(module)))
      return failure();
    DenseSet<Operation *> own;
    module.walk([&](FusionGroupOp group) {
      if (group.getScheduleAttr())
        own.insert(group);
    });
    if (failed(select(module, strict)))
      return failure();
    return apply(
        module,
        [&](FusionGroupOp group) {
          return strict && own.contains(group.getOperation());
        },
        threads, runPipeline);
  }

  ScheduleTarget getTarget() const { return target; }

private:
  /// Applies `plan` to a clone of `group`; on success the clone replaces the
  /// group, otherwise the clone is dropped and the group stays as it was.
  LogicalResult applyPlan(FusionGroupOp group, const Plan &plan,
                          bool threads) {
    MLIRContext *ctx = group->getContext();
    OwningOpRef<ModuleOp> transforms = library->get().clone();
    auto sequence = transforms->lookupSymbol<transform::NamedSequenceOp>(
        plan.sequence);
    if (!sequence)
      return failure();
    Knobs knobs = plan.knobs;
    // Without threads, a group of dynamic extents keeps its plain loops: a
    // thread tile over an extent only a run knows is no single iteration
    // that the canonicalization could fold away.
    if (!threads && target == ScheduleTarget::CPU &&
        yieldsDynamicShapes(group))
      return failure();
    if (!threads && target == ScheduleTarget::CPU) {
      // One thread tile covering everything: the templates' canonicalization
      // folds the single-iteration scf.forall away. (forall-to-for does not
      // handle the shared outputs that tensor tiling produces.)
      for (auto &knob : knobs)
        if (knob.getKey().starts_with("par_") || knob.getKey() == "ew_par_c")
          knob.second = int64_t(1) << 30;
    }
    if (failed(schedule::detail::resolveKnobs(sequence, *transforms, knobs)))
      return failure();

    for (auto [op, tag] : plan.tags)
      op->setAttr(tag, UnitAttr::get(ctx));
    // The clone is transformed inside a scratch module at the group's place,
    // so that its nearest ancestor isolated from above is the scratch, not
    // the function of every group. Upstream fuse_into_containing_op prints
    // the producer and the containing op into a remark for every producer,
    // shown or not, and printing an op verifies and numbers all of its
    // nearest isolated ancestor: each application cost as much as the
    // function was large (two thirds of a 103-group model's compile, warm).
    // The constants the folder makes land in the scratch, next to the
    // group, rather than at the top of the function. Values from above
    // still dominate the clone (dominance is structural), so the templates
    // see the same IR.
    OpBuilder b(group);
    auto scratch = ModuleOp::create(b, group.getLoc());
    b.setInsertionPointToEnd(scratch.getBody());
    auto clone = cast<FusionGroupOp>(b.clone(*group.getOperation()));
    clearTags(group);

    LogicalResult result = success();
    {
      // A template that does not fit is an expected outcome, not an error.
      // The first error is kept: it says why, where the schedule is binding.
      lastFailure.clear();
      ScopedDiagnosticHandler silence(ctx, [&](Diagnostic &diag) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << diag << "\n");
        if (diag.getSeverity() == DiagnosticSeverity::Error &&
            lastFailure.empty())
          lastFailure = diag.str();
        return success();
      });
      transform::TransformOptions options;
      options.enableExpensiveChecks(false);
      result = transform::applyTransformNamedSequence(clone, sequence,
                                                      *transforms, options);
      if (succeeded(result))
        result = verify(clone);
    }
    if (failed(result)) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << plan.sequence
                              << " does not apply at " << group.getLoc()
                              << "\n");
      scratch->erase();
      return failure();
    }

    for (Operation &op : llvm::make_early_inc_range(*scratch.getBody()))
      op.moveBefore(scratch);
    scratch->erase();
    group->replaceAllUsesWith(clone->getResults());
    group->erase();
    return success();
  }

  ScheduleTarget target = ScheduleTarget::CPU;
  std::shared_ptr<OwningOpRef<ModuleOp>> library;
  std::shared_ptr<llvm::StringMap<Knobs>> overrides;
  /// Why the last applyPlan failed (its first error), empty if it did not.
  std::string lastFailure;
};

/// What every schedule pass registers.
template <typename PassBase>
struct SchedulePass : public PassBase {
  using PassBase::PassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    PassBase::getDependentDialects(registry);
    registerScheduleDialects(registry);
  }

  ScheduleDriver driver;
};

struct SelectSchedulesPass
    : SchedulePass<int21::impl::Int21SelectSchedulesBase<SelectSchedulesPass>> {
  using SchedulePass::SchedulePass;

  LogicalResult initialize(MLIRContext *ctx) override {
    return driver.initialize(ctx, "int21-select-schedules", target, knobs);
  }

  void runOnOperation() override {
    if (failed(driver.select(getOperation(), strict)))
      signalPassFailure();
  }
};

struct ApplySchedulesPass
    : SchedulePass<int21::impl::Int21ApplySchedulesBase<ApplySchedulesPass>> {
  using SchedulePass::SchedulePass;

  LogicalResult initialize(MLIRContext *ctx) override {
    return driver.initialize(ctx, "int21-apply-schedules", target, "");
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(driver.apply(
            module, [&](FusionGroupOp) { return strict.getValue(); }, threads,
            [&](OpPassManager &pm, Operation *op) {
              return this->runPipeline(pm, op);
            })))
      return signalPassFailure();
    if (hostCheck && driver.getTarget() == ScheduleTarget::GPU)
      schedule::gpu::dropMemorySpaces(module);
  }
};

struct CPUSchedulePass
    : SchedulePass<int21::impl::Int21CPUScheduleBase<CPUSchedulePass>> {
  using SchedulePass::SchedulePass;

  LogicalResult initialize(MLIRContext *ctx) override {
    return driver.initialize(ctx, "int21-cpu-schedule", "cpu", knobs);
  }

  void runOnOperation() override {
    if (failed(driver.selectAndApply(getOperation(), strict, threads,
                                     [&](OpPassManager &pm, Operation *op) {
                                       return this->runPipeline(pm, op);
                                     })))
      signalPassFailure();
  }
};

struct GPUSchedulePass
    : SchedulePass<int21::impl::Int21GPUScheduleBase<GPUSchedulePass>> {
  using SchedulePass::SchedulePass;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (chip != "sm_80" && chip != "sm_90")
      return emitError(UnknownLoc::get(ctx))
             << "int21-gpu-schedule: unknown chip '" << chip
             << "' (expected sm_80 or sm_90)";
    return driver.initialize(ctx, "int21-gpu-schedule", chip, knobs);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(driver.selectAndApply(module, strict, /*threads=*/true,
                                     [&](OpPassManager &pm, Operation *op) {
                                       return this->runPipeline(pm, op);
                                     })))
      return signalPassFailure();
    if (hostCheck)
      schedule::gpu::dropMemorySpaces(module);
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// The space of a group's schedules
//===----------------------------------------------------------------------===//

/// The choice of template `plan.sequence` for the work of `plan`: the
/// template's knobs (the registry) with their domains for this work (the
/// template's rules) and the plan's defaults.
static std::optional<ScheduleChoice> makeChoice(const Plan &plan,
                                                const VectorModel &vectors) {
  const TemplateSpec *spec = TemplateRegistry::get().lookup(plan.sequence);
  if (!spec)
    return std::nullopt;
  const TemplateRules *rules = lookupRules(plan.sequence);
  ScheduleChoice choice;
  choice.sequence = plan.sequence;
  choice.dims = plan.dims;
  choice.vectors = vectors;
  for (const KnobSpec &knob : spec->knobs) {
    KnobDomain domain;
    domain.name = knob.name;
    domain.alternative = knob.alternative;
    std::optional<SmallVector<int64_t>> derived;
    if (!knob.alternative && rules && rules->domain)
      derived = rules->domain(knob.name, plan.dims);
    domain.options = derived ? std::move(*derived) : knob.options;
    int64_t value;
    if (auto it = plan.knobs.find(knob.name); it != plan.knobs.end())
      value = it->second;
    else if (knob.selected)
      value = *knob.selected;
    else if (knob.alternative)
      value = 0;
    else if (!domain.options.empty())
      value = domain.options.front();
    else
      continue; // Not an integer knob: not searched.
    if (!llvm::is_contained(domain.options, value))
      domain.options.push_back(value);
    llvm::sort(domain.options);
    choice.defaults[domain.name] = value;
    choice.domains.push_back(std::move(domain));
  }
  return choice;
}

SmallVector<ScheduleChoice>
int21::schedule::getScheduleChoices(FusionGroupOp group,
                                          ScheduleTarget target) {
  SmallVector<ScheduleChoice> choices;
  VectorModel vectors = VectorModel::of(group);
  for (Plan &plan : planDefaults(group, target))
    if (std::optional<ScheduleChoice> choice = makeChoice(plan, vectors))
      choices.push_back(std::move(*choice));
  return choices;
}

static std::string listOf(ArrayRef<int64_t> values) {
  SmallVector<std::string> text;
  for (int64_t v : values)
    text.push_back(std::to_string(v));
  return "[" + llvm::join(text, ", ") + "]";
}

bool int21::schedule::isPlausible(const ScheduleChoice &choice,
                                        const Knobs &knobs, std::string &why) {
  for (const KnobDomain &domain : choice.domains)
    if (!knobs.count(domain.name)) {
      why = "no value for knob '" + domain.name + "' of template @" +
            choice.sequence;
      return false;
    }
  if (!isInSpace(choice, knobs, why))
    return false;
  const TemplateRules *rules = lookupRules(choice.sequence);
  if (rules && rules->check &&
      !rules->check(knobs, choice.dims, choice.vectors, why)) {
    why = "template @" + choice.sequence + ": " + why;
    return false;
  }
  return true;
}

bool int21::schedule::isInSpace(const ScheduleChoice &choice,
                                      const Knobs &knobs, std::string &why) {
  for (const KnobDomain &domain : choice.domains) {
    auto it = knobs.find(domain.name);
    if (it == knobs.end())
      continue;
    if (!llvm::is_contained(domain.options, it->second)) {
      why = "knob '" + domain.name + "' of template @" + choice.sequence +
            " = " + std::to_string(it->second) +
            " is outside its domain for this work " + listOf(domain.options);
      return false;
    }
  }
  for (const auto &knob : knobs)
    if (llvm::none_of(choice.domains, [&](const KnobDomain &domain) {
          return domain.name == knob.getKey();
        })) {
      why = ("template @" + choice.sequence + " has no knob '" +
             knob.getKey() + "'")
                .str();
      return false;
    }
  return true;
}

LogicalResult int21::schedule::checkProposal(StringRef sequence,
                                                   const Knobs &knobs,
                                                   ArrayRef<int64_t> dims,
                                                   std::string &error) {
  if (failed(TemplateRegistry::get().check(sequence, knobs, error)))
    return failure();
  const TemplateSpec *spec = TemplateRegistry::get().lookup(sequence);
  Knobs clamped;
  for (const auto &knob : knobs)
    clamped[knob.getKey()] = knob.getValue();
  clampToExtents(sequence, dims, clamped);
  const TemplateRules *rules = lookupRules(sequence);
  // The default schedule's values belong to the domain (a default may lie
  // between the domain's points, as getScheduleChoices has it): those of
  // the reference registers (the domains hold the others' defaults).
  Knobs defaults;
  if (rules && rules->defaults)
    defaults = rules->defaults(dims, VectorModel());
  SmallVector<StringRef> names;
  for (const auto &knob : knobs)
    names.push_back(knob.getKey());
  llvm::sort(names);
  for (StringRef name : names) {
    const KnobSpec *knob = spec->lookup(name);
    if (knob->alternative || !rules || !rules->domain)
      continue;
    std::optional<SmallVector<int64_t>> domain = rules->domain(name, dims);
    int64_t value = clamped.lookup(name);
    if (auto it = defaults.find(name);
        domain && it != defaults.end() && it->second == value)
      continue;
    if (domain && !llvm::is_contained(*domain, value)) {
      error = ("knob '" + name + "' of template @" + sequence + " = " +
               std::to_string(value) + " is outside its domain for this work " +
               listOf(*domain))
                  .str();
      return failure();
    }
  }
  return success();
}
