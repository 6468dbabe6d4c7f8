//===- Templates.cpp - the embedded schedule templates and their registry -===//
//
// The templates of lib/Transforms/Schedule/{CPU,GPU} are embedded at build
// time. Their knobs are read from their own transform.tune.knob and
// transform.tune.alternatives ops, once per process, into the registry that
// every proposer of a schedule is checked against: an unknown template or
// knob, or a value of the wrong type, is an error that names them.
//
//===----------------------------------------------------------------------===//

#include "ScheduleInternal.h"

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/ScheduleContract.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace int21;
using namespace int21::schedule;

namespace {

struct EmbeddedTemplate {
  const char *fileName;
  const char *text;
};

const EmbeddedTemplate kCPUTemplates[] = {
#include "int21/Transforms/CPUSchedules.inc"
};

const EmbeddedTemplate kGPUTemplates[] = {
#include "int21/Transforms/GPUSchedules.inc"
};

ArrayRef<EmbeddedTemplate> getTemplates(ScheduleTarget target) {
  if (target == ScheduleTarget::GPU)
    return kGPUTemplates;
  return kCPUTemplates;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
schedule::detail::parseTemplateLibrary(MLIRContext *ctx,
                                       ScheduleTarget target) {
  // The files reference each other's sequences: verify only once merged.
  OwningOpRef<ModuleOp> merged = ModuleOp::create(UnknownLoc::get(ctx));
  (*merged)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                     UnitAttr::get(ctx));
  ParserConfig config(ctx, /*verifyAfterParse=*/false);
  for (const EmbeddedTemplate &file : getTemplates(target)) {
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(file.text, config, file.fileName);
    if (!parsed)
      return failure();
    for (Operation &op :
         llvm::make_early_inc_range(parsed->getBody()->getOperations()))
      op.moveBefore(merged->getBody(), merged->getBody()->end());
  }
  if (failed(verify(*merged)))
    return failure();
  return merged;
}

void schedule::detail::forEachTunable(transform::NamedSequenceOp sequence,
                                      ModuleOp library,
                                      function_ref<void(Operation *)> fn) {
  SmallVector<transform::NamedSequenceOp> work = {sequence};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    transform::NamedSequenceOp next = work.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    next.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<transform::tune::KnobOp, transform::tune::AlternativesOp>(op))
        fn(op);
      if (auto include = dyn_cast<transform::IncludeOp>(op))
        if (auto callee = library.lookupSymbol<transform::NamedSequenceOp>(
                include.getTarget()))
          work.push_back(callee);
    });
  }
}

LogicalResult schedule::detail::resolveKnobs(
    transform::NamedSequenceOp sequence, ModuleOp library, const Knobs &knobs) {
  Builder b(sequence.getContext());
  bool ok = true;
  forEachTunable(sequence, library, [&](Operation *op) {
    if (auto knob = dyn_cast<transform::tune::KnobOp>(op)) {
      auto it = knobs.find(knob.getName());
      if (it == knobs.end())
        return;
      // The options are the search's suggested points; the value was
      // checked against the work's domain, which may lie between them.
      Attribute value = b.getI64IntegerAttr(it->second);
      if (auto options = dyn_cast<ArrayAttr>(knob.getOptions());
          options && !llvm::is_contained(options, value)) {
        SmallVector<Attribute> extended(options.getValue());
        extended.push_back(value);
        knob.setOptionsAttr(b.getArrayAttr(extended));
      }
      knob.setSelectedAttr(value);
      return;
    }
    auto alternatives = cast<transform::tune::AlternativesOp>(op);
    if (alternatives.getSelectedRegionParam())
      return;
    int64_t region = 0;
    if (auto it = knobs.find(alternatives.getName()); it != knobs.end())
      region = it->second;
    else if (auto selected = alternatives.getSelectedRegionAttrAttr())
      region = selected.getInt();
    if (region < 0 ||
        region >= static_cast<int64_t>(alternatives->getNumRegions())) {
      ok = false;
      return;
    }
    alternatives.setSelectedRegionAttrAttr(b.getIndexAttr(region));
  });
  return success(ok);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

const KnobSpec *TemplateSpec::lookup(StringRef knob) const {
  for (const KnobSpec &spec : knobs)
    if (spec.name == knob)
      return &spec;
  return nullptr;
}

std::string TemplateSpec::knobList() const {
  SmallVector<StringRef> names;
  for (const KnobSpec &spec : knobs)
    names.push_back(spec.name);
  return names.empty() ? std::string("none") : llvm::join(names, ", ");
}

/// The templates of one target's library: the named sequences that say
/// they are schedule templates (`int21.schedule_template`), each with the
/// knobs and alternatives of its own body and of the sequences it includes.
static void readTemplates(ModuleOp library, ScheduleTarget target,
                          std::vector<TemplateSpec> &out) {
  for (auto sequence : library.getOps<transform::NamedSequenceOp>()) {
    if (!sequence->hasAttr(kTemplateMarker))
      continue;
    TemplateSpec spec;
    spec.symbol = sequence.getSymName().str();
    spec.target = target;
    schedule::detail::forEachTunable(sequence, library, [&](Operation *op) {
      KnobSpec knob;
      if (auto tunable = dyn_cast<transform::tune::KnobOp>(op)) {
        knob.name = tunable.getName().str();
        if (auto options = dyn_cast<ArrayAttr>(tunable.getOptions()))
          for (Attribute option : options)
            if (auto integer = dyn_cast<IntegerAttr>(option))
              knob.options.push_back(integer.getInt());
        if (auto selected =
                dyn_cast_or_null<IntegerAttr>(tunable.getSelectedAttr()))
          knob.selected = selected.getInt();
      } else {
        auto alternatives = cast<transform::tune::AlternativesOp>(op);
        knob.name = alternatives.getName().str();
        knob.alternative = true;
        knob.regions = op->getNumRegions();
        for (unsigned i = 0; i < knob.regions; ++i)
          knob.options.push_back(i);
        if (auto selected = alternatives.getSelectedRegionAttrAttr())
          knob.selected = selected.getInt();
      }
      // A knob that selects the alternative of the same name (pack_b,
      // promote) is one entry: a knob whose values index the regions.
      for (KnobSpec &existing : spec.knobs) {
        if (existing.name != knob.name)
          continue;
        existing.regions = std::max(existing.regions, knob.regions);
        existing.alternative = existing.alternative && knob.alternative;
        return;
      }
      spec.knobs.push_back(std::move(knob));
    });
    out.push_back(std::move(spec));
  }
}

TemplateRegistry::TemplateRegistry() {
  // A context of its own: the registry is built once per process, whatever
  // context asks first, and keeps plain data only.
  DialectRegistry dialects;
  registerScheduleDialects(dialects);
  MLIRContext ctx(dialects, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  for (ScheduleTarget target : {ScheduleTarget::CPU, ScheduleTarget::GPU}) {
    // The templates are checked by lit tests of their own; a library that
    // does not parse leaves the target without templates, which every
    // schedule of it then reports.
    ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) { return success(); });
    FailureOr<OwningOpRef<ModuleOp>> library =
        schedule::detail::parseTemplateLibrary(&ctx, target);
    if (succeeded(library))
      readTemplates(**library, target, templates);
  }
}

const TemplateRegistry &TemplateRegistry::get() {
  static const TemplateRegistry registry;
  return registry;
}

const TemplateSpec *TemplateRegistry::lookup(StringRef symbol) const {
  for (const TemplateSpec &spec : templates)
    if (spec.symbol == symbol)
      return &spec;
  return nullptr;
}

std::string TemplateRegistry::templateList(ScheduleTarget target) const {
  SmallVector<StringRef> names;
  for (const TemplateSpec &spec : templates)
    if (spec.target == target)
      names.push_back(spec.symbol);
  return llvm::join(names, ", ");
}

/// Checks the knob `name` of `spec` with value `value` (an attribute, or
/// null for a value already known to be an integer `integer`).
static LogicalResult checkKnob(const TemplateSpec &spec, StringRef name,
                               Attribute value, int64_t integer,
                               std::string &error) {
  const KnobSpec *knob = spec.lookup(name);
  if (!knob) {
    error = ("template @" + spec.symbol + " has no knob '" + name +
             "' (its knobs: " + spec.knobList() + ")")
                .str();
    return failure();
  }
  if (value) {
    auto typed = dyn_cast<IntegerAttr>(value);
    if (!typed || typed.getType().isInteger(1) ||
        typed.getValue().getSignificantBits() > 64) {
      std::string text;
      llvm::raw_string_ostream os(text);
      value.print(os);
      error = ("knob '" + name + "' of template @" + spec.symbol +
               " expects an integer (i64), got " + text)
                  .str();
      return failure();
    }
    integer = typed.getValue().getSExtValue();
  }
  if (knob->regions &&
      (integer < 0 || integer >= static_cast<int64_t>(knob->regions))) {
    error = ("knob '" + name + "' of template @" + spec.symbol + " = " +
             std::to_string(integer) + " names no alternative (0 to " +
             std::to_string(knob->regions - 1) + ")")
                .str();
    return failure();
  }
  return success();
}

LogicalResult TemplateRegistry::check(StringRef sequence,
                                      DictionaryAttr knobs,
                                      std::string &error) const {
  const TemplateSpec *spec = lookup(sequence);
  if (!spec) {
    error = ("unknown schedule template @" + sequence).str();
    return failure();
  }
  for (NamedAttribute knob : knobs)
    if (failed(checkKnob(*spec, knob.getName().getValue(), knob.getValue(),
                         0, error)))
      return failure();
  return success();
}

LogicalResult TemplateRegistry::check(StringRef sequence, const Knobs &knobs,
                                      std::string &error) const {
  const TemplateSpec *spec = lookup(sequence);
  if (!spec) {
    error = ("unknown schedule template @" + sequence).str();
    return failure();
  }
  // In name order, so that the first error is the same on every run.
  SmallVector<StringRef> names;
  for (const auto &knob : knobs)
    names.push_back(knob.getKey());
  llvm::sort(names);
  for (StringRef name : names)
    if (failed(checkKnob(*spec, name, nullptr, knobs.lookup(name), error)))
      return failure();
  return success();
}

namespace {
/// The registry as the int21 dialect's schedule contract.
struct RegistryContract : public ScheduleContractInterface {
  using ScheduleContractInterface::ScheduleContractInterface;

  LogicalResult verifySchedule(function_ref<InFlightDiagnostic()> emitError,
                               StringRef sequence,
                               DictionaryAttr knobs) const override {
    std::string error;
    if (failed(TemplateRegistry::get().check(sequence, knobs, error)))
      return emitError() << error;
    return success();
  }
};
} // namespace

void schedule::detail::registerScheduleContract(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, Int21Dialect *dialect) {
    dialect->addInterfaces<RegistryContract>();
  });
}
