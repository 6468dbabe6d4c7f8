//===- Library.cpp - knowledge-base records as a transform library --------===//

#include "int21/AgentSearch/Library.h"

#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Target.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Support/ParserGuard.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <numeric>
#include <set>
#include <type_traits>

using namespace mlir;

namespace int21::search {

namespace {

constexpr llvm::StringLiteral kRecordAttr = "int21.record";
constexpr llvm::StringLiteral kClassAttr = "int21.shape_class";

/// Collects the diagnostics of a scope into one line.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error) {
            std::string text;
            llvm::raw_string_ostream os(text);
            if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation()))
              os << file.getLine() << ":" << file.getColumn() << ": ";
            os << diag;
            messages.push_back(text);
          }
          return success();
        }) {}
  std::string text() const {
    return messages.empty() ? "invalid" : llvm::join(messages, "; ");
  }

private:
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler;
};

/// Bits of an element type named like MLIR prints it, or 0.
unsigned bitwidthOf(llvm::StringRef type) {
  if (type == "bf16")
    return 16;
  unsigned bits = 0;
  if ((type.consume_front("f") || type.consume_front("i")) &&
      !type.getAsInteger(10, bits))
    return bits;
  return 0;
}

bool isContraction(llvm::StringRef opKind) {
  return opKind == "matmul" || opKind == "batch_matmul" ||
         opKind.starts_with("conv_");
}

/// `text` with every character a symbol name of the library cannot hold
/// replaced by '_'.
std::string symbolSafe(std::string text) {
  for (char &c : text)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  return text;
}

/// `matmul_16x64x48_f32_1a2b3c4d`: readable; exportLibrary makes it unique.
std::string baseName(const KnowledgeRecord &record) {
  return symbolSafe(record.opKind + "_" + dimsText(record.dims) + "_" +
                    record.elementTypes + "_" + record.signature.substr(0, 8));
}

DictionaryAttr recordToAttr(Builder &b, const KnowledgeRecord &record) {
  SmallVector<NamedAttribute> knobs;
  for (const auto &[name, value] : record.schedule.knobs)
    knobs.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("signature", b.getStringAttr(record.signature)),
      b.getNamedAttr("target", b.getStringAttr(record.target)),
      b.getNamedAttr("compiler_version",
                     b.getStringAttr(record.compilerVersion)),
      b.getNamedAttr("machine", b.getStringAttr(record.machine)),
      b.getNamedAttr("threads", b.getI64IntegerAttr(record.threads)),
      b.getNamedAttr("op_kind", b.getStringAttr(record.opKind)),
      b.getNamedAttr("dims", b.getI64ArrayAttr(record.dims)),
      b.getNamedAttr("element_types", b.getStringAttr(record.elementTypes)),
      b.getNamedAttr("template", b.getStringAttr(record.schedule.sequence)),
      b.getNamedAttr("knobs", b.getDictionaryAttr(knobs)),
      b.getNamedAttr("median_ms", b.getF64FloatAttr(record.time.medianMs)),
      b.getNamedAttr("min_ms", b.getF64FloatAttr(record.time.minMs)),
      b.getNamedAttr("max_ms", b.getF64FloatAttr(record.time.maxMs)),
      b.getNamedAttr("spread", b.getF64FloatAttr(record.time.spread)),
      b.getNamedAttr("reps", b.getI64IntegerAttr(record.time.reps)),
      b.getNamedAttr("default_ms", b.getF64FloatAttr(record.defaultMs)),
      b.getNamedAttr("seed", b.getStringAttr(std::to_string(record.seed))),
      b.getNamedAttr("max_error", b.getF64FloatAttr(record.maxError)),
      b.getNamedAttr("tolerance", b.getStringAttr(record.tolerance)),
      b.getNamedAttr("roofline_ms", b.getF64FloatAttr(record.rooflineMs)),
      b.getNamedAttr("agent", b.getStringAttr(record.agent)),
      b.getNamedAttr("parent", b.getStringAttr(record.parent)),
      b.getNamedAttr("created_at", b.getStringAttr(record.createdAt)),
  };
  return b.getDictionaryAttr(fields);
}

/// The record an action carries; `why` says what is missing.
std::optional<KnowledgeRecord> recordFromAttr(DictionaryAttr dict,
                                              std::string &why) {
  KnowledgeRecord record;
  // A string or a float entry, by the type of `out`.
  auto field = [&](llvm::StringRef key, auto &out) {
    constexpr bool isText =
        std::is_same_v<std::decay_t<decltype(out)>, std::string>;
    using AttrT = std::conditional_t<isText, StringAttr, FloatAttr>;
    auto value = dict.getAs<AttrT>(key);
    if (!value) {
      why = (llvm::Twine("no ") + (isText ? "string" : "float") + " '" + key +
             "'")
                .str();
      return false;
    }
    if constexpr (isText)
      out = value.str();
    else
      out = value.getValueAsDouble();
    return true;
  };
  std::string seed;
  bool ok = field("signature", record.signature) &&
            field("target", record.target) &&
            field("compiler_version", record.compilerVersion) &&
            field("machine", record.machine) &&
            field("op_kind", record.opKind) &&
            field("element_types", record.elementTypes) &&
            field("template", record.schedule.sequence) &&
            field("median_ms", record.time.medianMs) &&
            field("min_ms", record.time.minMs) &&
            field("max_ms", record.time.maxMs) &&
            field("spread", record.time.spread) &&
            field("default_ms", record.defaultMs) && field("seed", seed) &&
            field("max_error", record.maxError) &&
            field("tolerance", record.tolerance) &&
            field("roofline_ms", record.rooflineMs) &&
            field("agent", record.agent) && field("parent", record.parent) &&
            field("created_at", record.createdAt);
  if (!ok)
    return std::nullopt;
  if (llvm::StringRef(seed).getAsInteger(10, record.seed)) {
    why = "a bad 'seed'";
    return std::nullopt;
  }
  auto dims = dict.getAs<ArrayAttr>("dims");
  auto knobs = dict.getAs<DictionaryAttr>("knobs");
  auto reps = dict.getAs<IntegerAttr>("reps");
  if (!dims || !knobs || !reps) {
    why = "no 'dims', 'knobs' or 'reps'";
    return std::nullopt;
  }
  // Libraries written before records kept their thread count were timed on
  // one thread.
  if (Attribute threads = dict.get("threads")) {
    auto value = dyn_cast<IntegerAttr>(threads);
    if (!value || value.getInt() < 1 || value.getInt() > 4096) {
      why = "a bad 'threads'";
      return std::nullopt;
    }
    record.threads = unsigned(value.getInt());
  }
  for (Attribute dim : dims) {
    auto value = dyn_cast<IntegerAttr>(dim);
    if (!value) {
      why = "a bad 'dims'";
      return std::nullopt;
    }
    record.dims.push_back(value.getInt());
  }
  for (NamedAttribute knob : knobs) {
    auto value = dyn_cast<IntegerAttr>(knob.getValue());
    if (!value) {
      why = "a bad knob '" + knob.getName().str() + "'";
      return std::nullopt;
    }
    record.schedule.knobs[knob.getName().str()] = value.getInt();
  }
  // The template and its knobs as the templates declare them (the domains
  // are checked on the groups the schedule is applied to).
  std::string error;
  if (failed(int21::schedule::TemplateRegistry::get().check(
          record.schedule.sequence, knobs, error))) {
    why = "a schedule the templates do not take: " + error;
    return std::nullopt;
  }
  record.time.reps = unsigned(reps.getInt());
  return record;
}

/// A shape class: the loop sizes of several records with one schedule.
struct ShapeClass {
  std::vector<int64_t> multipleOf, min, max;
};

/// Writes the matcher of `record`: its group's main op, loop sizes (or
/// `shapeClass`), element width and, for a contraction, its body.
void writeMatcher(llvm::raw_ostream &os, const KnowledgeRecord &record,
                  llvm::StringRef name,
                  const ShapeClass *shapeClass = nullptr) {
  os << "  transform.named_sequence @" << name
     << "(%group: !transform.any_op {transform.readonly}) -> "
        "!transform.any_op {\n"
     << "    %anchor = transform.int21.match.anchor %group : "
        "(!transform.any_op) -> !transform.any_op\n"
     << "    transform.match.operation_name %anchor [\"linalg."
     << record.opKind << "\"] : !transform.any_op\n";
  auto list = [](const std::vector<int64_t> &values) {
    std::string text = "[";
    for (auto [i, value] : llvm::enumerate(values))
      text += (i ? ", " : "") + std::to_string(value);
    return text + "]";
  };
  if (shapeClass)
    os << "    transform.int21.match.shape_class %anchor multiple_of "
       << list(shapeClass->multipleOf) << " min " << list(shapeClass->min)
       << " max " << list(shapeClass->max) << " : !transform.any_op\n";
  else
    os << "    transform.int21.match.loop_sizes %anchor " << list(record.dims)
       << " : !transform.any_op\n";
  os << "    transform.match.structured %anchor : !transform.any_op {\n"
     << "    ^bb0(%op: !transform.any_op):\n";
  if (!llvm::StringRef(record.elementTypes).contains(',')) {
    if (unsigned bits = bitwidthOf(record.elementTypes)) {
      os << "      %init = transform.match.structured.init %op[0] : "
            "(!transform.any_op) -> !transform.any_value\n"
         << "      %bits = transform.match.structured.elemental_bitwidth "
            "%init : (!transform.any_value) -> !transform.param<i64>\n"
         << "      %bits_want = transform.param.constant " << bits
         << " : i64 -> !transform.param<i64>\n"
         << "      transform.match.param.cmpi eq %bits, %bits_want : "
            "!transform.param<i64>\n";
      if (isContraction(record.opKind)) {
        bool floating = !llvm::StringRef(record.elementTypes).starts_with("i");
        os << "      transform.match.structured.body %op {contraction = "
           << (floating ? "[\"arith.mulf\", \"arith.addf\"]"
                        : "[\"arith.muli\", \"arith.addi\"]")
           << "} : !transform.any_op\n";
      }
    }
  }
  os << "      transform.match.structured.yield\n"
     << "    }\n"
     << "    transform.yield %group : !transform.any_op\n"
     << "  }\n";
}

/// Writes `op` at two spaces of indentation.
void printIndented(llvm::raw_ostream &os, Operation *op) {
  std::string text;
  llvm::raw_string_ostream printed(text);
  // A local scope: numbering names in the enclosing library, which
  // grows with every schedule, made printing each one cost as much as the
  // whole library (quadratic export).
  printed.SetBuffered(); // the printer's writes are many and small
  op->print(printed, OpPrintingFlags().assumeVerified().useLocalScope());
  printed.flush();
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    if (!line.empty())
      os << "  " << line << "\n";
    rest = next;
  }
}

llvm::Expected<OwningOpRef<ModuleOp>> parseLibrary(MLIRContext &context,
                                                  llvm::StringRef text,
                                                  llvm::StringRef name) {
  if (std::optional<int21::ParserCrash> crash =
          int21::findKnownParserCrash(text))
    return llvm::createStringError("schedule library '" + name + "':" +
                                   llvm::Twine(crash->line) + ":" +
                                   llvm::Twine(crash->column) + ": " +
                                   crash->what);
  DiagnosticCollector diagnostics(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context), name);
  if (!module)
    return llvm::createStringError("schedule library '" + name +
                                   "': " + diagnostics.text());
  return module;
}

} // namespace

llvm::Expected<std::string>
exportLibrary(MLIRContext &context, const std::vector<KnowledgeRecord> &records,
              llvm::StringRef target, llvm::StringRef source) {
  // The fastest record of each work, in a stable order.
  std::map<std::string, const KnowledgeRecord *> bySignature;
  for (const KnowledgeRecord &record : records) {
    if (record.target != target)
      continue;
    auto [it, inserted] = bySignature.try_emplace(record.signature, &record);
    if (!inserted && record.time.medianMs < it->second->time.medianMs)
      it->second = &record;
  }
  std::vector<const KnowledgeRecord *> chosen;
  for (auto &[signature, record] : bySignature)
    chosen.push_back(record);
  llvm::stable_sort(chosen, [](const KnowledgeRecord *a,
                               const KnowledgeRecord *b) {
    return std::tie(a->opKind, a->dims, a->elementTypes, a->signature) <
           std::tie(b->opKind, b->dims, b->elementTypes, b->signature);
  });

  // Shape classes: records of one op kind, element types and schedule on
  // at least two shapes, where that schedule was measured and correct.
  std::map<std::string, std::vector<const KnowledgeRecord *>> byClass;
  for (const KnowledgeRecord *record : chosen)
    byClass[record->opKind + " " + record->elementTypes + " " +
            std::to_string(record->dims.size()) + " " +
            describe(record->schedule)]
        .push_back(record);
  std::vector<std::pair<std::string, std::vector<const KnowledgeRecord *>>>
      classes;
  for (auto &[key, members] : byClass) {
    std::set<std::vector<int64_t>> shapes;
    for (const KnowledgeRecord *member : members)
      shapes.insert(member->dims);
    if (shapes.size() >= 2)
      classes.push_back({key, members});
  }

  // The actions: each record's template with its values resolved.
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> actions = ModuleOp::create(UnknownLoc::get(&context));
  (*actions)->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                      b.getUnitAttr());
  llvm::Expected<int21::Target> parsedTarget = int21::Target::parse(target);
  if (!parsedTarget)
    return parsedTarget.takeError();
  std::unique_ptr<int21::schedule::ResolvedScheduleWriter> writer;
  {
    DiagnosticCollector diagnostics(context);
    auto created = int21::schedule::ResolvedScheduleWriter::create(
        *actions, parsedTarget->isGPU() ? ScheduleTarget::GPU
                                        : ScheduleTarget::CPU);
    if (failed(created))
      return llvm::createStringError("the schedule templates of " + target +
                                     " do not parse: " + diagnostics.text());
    writer = std::move(*created);
  }
  // Names are unique however the records' signatures begin.
  llvm::StringSet<> taken;
  auto uniqueName = [&](std::string name) {
    std::string unique = name;
    for (unsigned k = 2; !taken.insert(unique).second; ++k)
      unique = name + "_" + std::to_string(k);
    return unique;
  };
  // Writes `schedule` as the action "schedule_<name>"; null with `why` set
  // when it does not resolve.
  auto addAction = [&](const Schedule &schedule, llvm::StringRef name,
                       std::string &why) -> Operation * {
    int21::schedule::Knobs knobs;
    for (const auto &[knob, value] : schedule.knobs)
      knobs[knob] = value;
    DiagnosticCollector diagnostics(context);
    FailureOr<Operation *> action =
        writer->add(schedule.sequence, knobs, ("schedule_" + name).str());
    if (failed(action)) {
      why = diagnostics.text();
      return nullptr;
    }
    return *action;
  };
  std::vector<std::string> names;
  for (const KnowledgeRecord *record : chosen) {
    std::string name = uniqueName(baseName(*record));
    names.push_back(name);
    std::string why;
    Operation *action = addAction(record->schedule, name, why);
    if (!action)
      return llvm::createStringError(
          "record of " + record->opKind + " (kernel " + record->signature +
          "): its schedule " + describe(record->schedule) +
          " does not resolve: " + why);
    action->setAttr(kRecordAttr, recordToAttr(b, *record));
  }

  std::vector<std::string> classNames;
  std::vector<ShapeClass> shapeClasses;
  for (auto &[key, members] : classes) {
    const KnowledgeRecord &first = *members.front();
    ShapeClass shape;
    for (size_t i = 0; i < first.dims.size(); ++i) {
      int64_t multiple = 0, low = INT64_MAX, high = 0;
      for (const KnowledgeRecord *member : members) {
        multiple = std::gcd(multiple, member->dims[i]);
        low = std::min(low, member->dims[i]);
        high = std::max(high, member->dims[i]);
      }
      shape.multipleOf.push_back(std::max<int64_t>(multiple, 1));
      shape.min.push_back(low);
      shape.max.push_back(high);
    }
    std::string name = uniqueName(symbolSafe(
        "class_" + first.opKind + "_" + first.elementTypes + "_" +
        llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true)
            .substr(0, 8)));
    std::string why;
    Operation *action = addAction(first.schedule, name, why);
    if (!action)
      return llvm::createStringError("the schedule " +
                                     describe(first.schedule) +
                                     " of a shape class does not resolve: " +
                                     why);
    SmallVector<Attribute> kernels;
    for (const KnowledgeRecord *member : members)
      kernels.push_back(b.getStringAttr(member->signature));
    action->setAttr(
        kClassAttr,
        b.getDictionaryAttr(
            {b.getNamedAttr("template",
                            b.getStringAttr(first.schedule.sequence)),
             b.getNamedAttr("knobs",
                            cast<DictionaryAttr>(recordToAttr(b, first).get(
                                "knobs"))),
             b.getNamedAttr("kernels", b.getArrayAttr(kernels))}));
    classNames.push_back(name);
    shapeClasses.push_back(std::move(shape));
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  os.SetBuffered(); // raw_string_ostream appends each write by itself
  os << "// int21 schedule library for " << target << ": " << chosen.size()
     << (chosen.size() == 1 ? " schedule" : " schedules") << ", exported from "
     << source << " by " << ::int21::compilerVersion() << ".\n"
     << "// Each matcher checks a fusion group's main op (kind, loop sizes, "
        "element width, body);\n"
     << "// its action runs the schedule that won on that work: the "
        "template's\n"
     << "// @<template>.with_knobs (at the top) with the knob values that "
        "won.\n"
     << "// Apply: int21-opt --transform-preload-library="
        "transform-library-paths=THIS --transform-interpreter IR.mlir\n"
     << "//    or: int21-compile MODEL.onnx --target=cpu --schedules THIS -o "
        "MODEL.int21\n"
     << "module attributes {transform.with_named_sequence} {\n";
  // The sequences the schedules share (the templates with their knobs as
  // arguments, the sequences without knobs they include), first: an
  // include's callee is looked up from the top.
  llvm::StringMap<transform::NamedSequenceOp> actionsByName;
  bool shared = false;
  for (auto sequence : actions->getOps<transform::NamedSequenceOp>()) {
    if (!sequence.getSymName().starts_with("schedule_")) {
      if (!shared)
        os << "  // Shared by the schedules below.\n";
      shared = true;
      printIndented(os, sequence);
    } else {
      actionsByName[sequence.getSymName()] = sequence;
    }
  }
  if (shared)
    os << "\n";
  os << "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.consumed}) {\n";
  if (chosen.empty()) {
    os << "    transform.yield\n  }\n}\n";
    os.flush();
    return text;
  }
  os << "    %done = transform.foreach_match in %root\n";
  // The exact shapes first, then the classes.
  std::vector<std::string> all = names;
  all.insert(all.end(), classNames.begin(), classNames.end());
  for (auto [i, name] : llvm::enumerate(all))
    os << "        @match_" << name << " -> @schedule_" << name
       << (i + 1 < all.size() ? ",\n" : "\n");
  os << "      : (!transform.any_op) -> !transform.any_op\n"
     << "    transform.yield\n"
     << "  }\n";
  // Prints the action of schedule `name`.
  auto printAction = [&](llvm::StringRef name) {
    printIndented(os, actionsByName.lookup(("schedule_" + name).str()));
  };
  for (auto [record, name] : llvm::zip(chosen, names)) {
    os << "\n  // " << record->opKind << " " << dimsText(record->dims) << " "
       << record->elementTypes << " (kernel " << record->signature
       << "): " << llvm::format("%.2f", record->speedup())
       << "x faster than the default schedule, "
       << llvm::format("%.4g", record->time.medianMs) << " ms against "
       << llvm::format("%.4g", record->defaultMs) << " ms (spread "
       << llvm::format("%.1f", 100 * record->time.spread) << "%, "
       << record->time.reps << " runs), found by " << record->agent
       << " on " << record->machine << ", " << threadsText(record->threads)
       << "\n"
       << "  // " << describe(record->schedule) << "\n";
    writeMatcher(os, *record, "match_" + name);
    printAction(name);
  }
  for (auto [c, name] : llvm::enumerate(classNames)) {
    const auto &members = classes[c].second;
    const KnowledgeRecord &first = *members.front();
    os << "\n  // Shape class of " << first.opKind << " " << first.elementTypes
       << ": loop sizes multiples of " << dimsText(shapeClasses[c].multipleOf)
       << " from " << dimsText(shapeClasses[c].min) << " to "
       << dimsText(shapeClasses[c].max) << ", where this schedule won on";
    for (auto [i, member] : llvm::enumerate(members))
      os << (i ? "," : "") << " " << dimsText(member->dims) << " ("
         << llvm::format("%.2f", member->speedup()) << "x)";
    os << "\n  // " << describe(first.schedule) << "\n";
    writeMatcher(os, first, "match_" + name, &shapeClasses[c]);
    printAction(name);
  }
  os << "}\n";

  // What is written must read back.
  os.flush();
  llvm::Expected<OwningOpRef<ModuleOp>> check =
      parseLibrary(context, text, "the exported library");
  if (!check)
    return check.takeError();
  return text;
}

llvm::Expected<std::vector<KnowledgeRecord>>
importLibrary(MLIRContext &context, llvm::StringRef text,
              llvm::StringRef name) {
  llvm::Expected<OwningOpRef<ModuleOp>> library =
      parseLibrary(context, text, name);
  if (!library)
    return library.takeError();
  std::vector<KnowledgeRecord> records;
  for (auto sequence : (**library).getOps<transform::NamedSequenceOp>()) {
    auto dict = sequence->getAttrOfType<DictionaryAttr>(kRecordAttr);
    if (!dict)
      continue;
    std::string why;
    std::optional<KnowledgeRecord> record = recordFromAttr(dict, why);
    if (!record)
      return llvm::createStringError("schedule library '" + name + "': @" +
                                     sequence.getSymName() +
                                     ": its record has " + why);
    records.push_back(std::move(*record));
  }
  return records;
}

llvm::Expected<unsigned> applyLibrary(ModuleOp module, llvm::StringRef text,
                                      llvm::StringRef name) {
  MLIRContext &context = *module.getContext();
  llvm::Expected<OwningOpRef<ModuleOp>> library =
      parseLibrary(context, text, name);
  if (!library)
    return library.takeError();
  transform::ForeachMatchOp dispatch;
  (**library).walk([&](transform::ForeachMatchOp op) {
    if (!dispatch)
      dispatch = op;
  });
  if (!dispatch)
    return 0u;

  // The library's matchers, with actions that name the schedule for
  // int21-cpu-schedule (which applies it as the library's actions would).
  std::string script;
  llvm::raw_string_ostream os(script);
  os << "module attributes {transform.with_named_sequence} {\n";
  llvm::StringSet<> copied;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (auto [i, matcher, action] : llvm::enumerate(
           dispatch.getMatchers().getAsRange<SymbolRefAttr>(),
           dispatch.getActions().getAsRange<SymbolRefAttr>())) {
    auto match = (**library).lookupSymbol<transform::NamedSequenceOp>(matcher);
    auto act = (**library).lookupSymbol<transform::NamedSequenceOp>(action);
    auto dict = act ? act->getAttrOfType<DictionaryAttr>(kRecordAttr)
                    : DictionaryAttr();
    std::string why;
    std::optional<KnowledgeRecord> record =
        dict ? recordFromAttr(dict, why) : std::nullopt;
    if (dict && !record)
      return llvm::createStringError("schedule library '" + name + "': @" +
                                     action.getLeafReference().getValue() +
                                     ": its record has " + why);
    // A shape class names its schedule only.
    if (auto shape = act ? act->getAttrOfType<DictionaryAttr>(kClassAttr)
                         : DictionaryAttr()) {
      auto sequence = shape.getAs<StringAttr>("template");
      auto knobs = shape.getAs<DictionaryAttr>("knobs");
      std::string error;
      if (sequence && knobs &&
          failed(int21::schedule::TemplateRegistry::get().check(
              sequence.getValue(), knobs, error)))
        return llvm::createStringError("schedule library '" + name + "': @" +
                                       action.getLeafReference().getValue() +
                                       ": " + error);
      if (sequence && knobs) {
        record = KnowledgeRecord();
        record->schedule.sequence = sequence.str();
        for (NamedAttribute knob : knobs)
          if (auto value = dyn_cast<IntegerAttr>(knob.getValue()))
            record->schedule.knobs[knob.getName().str()] = value.getInt();
      }
    }
    if (!match || !record)
      return llvm::createStringError(
          "schedule library '" + name + "': @" +
          action.getLeafReference().getValue() +
          (!match ? " has no matcher"
                  : " carries no int21.record or int21.shape_class"));
    if (copied.insert(match.getSymName()).second)
      printIndented(os, match);
    std::string annotate = "annotate_" + std::to_string(i);
    os << "  transform.named_sequence @" << annotate
       << "(%group: !transform.any_op {transform.readonly}) {\n"
       << "    %schedule = transform.param.constant ";
    toScheduleAttr(&context, record->schedule).print(os);
    os << " -> !transform.any_param\n"
       << "    transform.annotate %group \"schedule\" = %schedule : "
          "!transform.any_op, !transform.any_param\n"
       << "    transform.yield\n  }\n";
    pairs.push_back({match.getSymName().str(), annotate});
  }
  os << "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.consumed}) {\n"
     << "    %done = transform.foreach_match in %root\n";
  for (auto [i, pair] : llvm::enumerate(pairs))
    os << "        @" << pair.first << " -> @" << pair.second
       << (i + 1 < pairs.size() ? ",\n" : "\n");
  os << "      : (!transform.any_op) -> !transform.any_op\n"
     << "    transform.yield\n  }\n}\n";
  if (pairs.empty())
    return 0u;

  llvm::Expected<OwningOpRef<ModuleOp>> annotator =
      parseLibrary(context, script, name);
  if (!annotator)
    return annotator.takeError();
  auto entry = (**annotator).lookupSymbol<transform::NamedSequenceOp>(
      "__transform_main");
  DenseMap<Operation *, Attribute> before;
  module.walk([&](int21::FusionGroupOp group) {
    before[group] = group.getScheduleAttr();
  });
  DiagnosticCollector diagnostics(context);
  if (failed(transform::applyTransformNamedSequence(
          module, entry, **annotator, transform::TransformOptions())))
    return llvm::createStringError("schedule library '" + name +
                                   "': " + diagnostics.text());
  unsigned scheduled = 0;
  module.walk([&](int21::FusionGroupOp group) {
    if (group.getScheduleAttr() && group.getScheduleAttr() != before[group])
      ++scheduled;
  });
  return scheduled;
}

} // namespace int21::search
