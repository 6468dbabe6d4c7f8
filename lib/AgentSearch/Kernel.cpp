//===- Kernel.cpp - fusion groups cut out into kernel modules -------------===//

#include "int21/AgentSearch/Kernel.h"

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <set>

using namespace mlir;
using namespace int21;

namespace int21::search {

/// Constants smaller than this are copied into the kernel (their values are
/// part of the work); larger ones become inputs, as weights do in engines.
static constexpr int64_t kInlineConstantElements = 64;

static bool shouldCopyIn(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return false;
  auto shaped = dyn_cast<ShapedType>(constant.getType());
  return !shaped ||
         (shaped.hasStaticShape() &&
          shaped.getNumElements() < kInlineConstantElements);
}

OwningOpRef<ModuleOp> buildKernelModule(FusionGroupOp group) {
  MLIRContext *ctx = group.getContext();
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);

  // The values the group reads from outside, in the order of first use.
  llvm::SetVector<Value> captured;
  group.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!group->isAncestor(operand.getParentRegion()->getParentOp()))
        captured.insert(operand);
  });

  SmallVector<Type> inputs;
  SmallVector<Value> arguments;
  for (Value value : captured)
    if (!shouldCopyIn(value)) {
      inputs.push_back(value.getType());
      arguments.push_back(value);
    }
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "main", b.getFunctionType(inputs, group->getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
    mapping.map(value, argument);
  for (Value value : captured)
    if (shouldCopyIn(value))
      mapping.map(value, b.clone(*value.getDefiningOp())->getResult(0));
  auto clone = cast<FusionGroupOp>(b.clone(*group.getOperation(), mapping));
  // The work, not how it is scheduled: no schedule, no locations.
  clone.removeScheduleAttr();
  func::ReturnOp::create(b, loc, clone->getResults());
  module->walk([&](Operation *op) { op->setLoc(loc); });
  return module;
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().printGenericOpForm(false));
  return text;
}

static std::string digest(StringRef text) {
  std::string hex;
  llvm::raw_string_ostream os(hex);
  os << llvm::format_hex_no_prefix(
      llvm::xxh3_64bits(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(text.data()), text.size())),
      16);
  return hex;
}

std::string kernelSignature(FusionGroupOp group) {
  OwningOpRef<ModuleOp> module = buildKernelModule(group);
  return digest(printModule(*module));
}

const schedule::ScheduleChoice *Kernel::findChoice(StringRef sequence) const {
  for (const schedule::ScheduleChoice &choice : choices)
    if (choice.sequence == sequence)
      return &choice;
  return nullptr;
}

/// The first ONNX node name in `loc`, if any.
static std::optional<std::string> nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<std::string> name = nodeName(inner))
        return name;
  return std::nullopt;
}

/// The group's main op: its reduction, or what it yields.
static linalg::LinalgOp mainOp(FusionGroupOp group) {
  linalg::LinalgOp main;
  for (Operation &op : group.getBody().front())
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!main || linalgOp.getNumReductionLoops() > 0)
        main = linalgOp;
      if (linalgOp.getNumReductionLoops() > 0)
        break;
    }
  return main;
}

/// "matmul 64x256x128 (/layer0/MatMul)": the group's main op with its loop
/// sizes, and its ONNX node.
static std::string describeGroup(FusionGroupOp group) {
  linalg::LinalgOp main = mainOp(group);
  std::string name;
  llvm::raw_string_ostream os(name);
  if (!main) {
    os << "group";
  } else {
    os << main->getName().stripDialect();
    os << " ";
    // (A dynamic size, of a dynamic model's generic code, as "?".)
    for (auto [i, size] : llvm::enumerate(main.getStaticLoopRanges())) {
      os << (i ? "x" : "");
      if (ShapedType::isDynamic(size))
        os << '?';
      else
        os << size;
    }
    if (std::optional<std::string> node = nodeName(main->getLoc()))
      os << " (" << *node << ")";
  }
  return name;
}

static double bytesOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  unsigned bits = shaped.getElementType().getIntOrFloatBitWidth();
  return shaped.getNumElements() * std::max(1u, bits / 8);
}

std::optional<Kernel> describeKernel(FusionGroupOp group) {
  SmallVector<schedule::ScheduleChoice> choices = schedule::getScheduleChoices(group);
  if (choices.empty())
    return std::nullopt;
  OwningOpRef<ModuleOp> kernelModule = buildKernelModule(group);
  Kernel kernel;
  kernel.ir = printModule(*kernelModule);
  kernel.signature = digest(kernel.ir);
  kernel.name = describeGroup(group);
  auto anchor = dyn_cast_or_null<linalg::LinalgOp>(schedule::groupAnchor(group));
  kernel.opKind = anchor ? anchor->getName().stripDialect().str() : "group";
  if (anchor)
    for (int64_t size : anchor.getStaticLoopRanges())
      kernel.loops.push_back(size);
  kernel.instances = 1;
  kernel.choices.assign(choices.begin(), choices.end());
  group.getBody().walk([&](linalg::LinalgOp op) {
    double iterations = 1;
    for (int64_t size : op.getStaticLoopRanges())
      iterations *= ShapedType::isDynamic(size) ? 1 : size;
    double ops = 0;
    for (Operation &inner : op->getRegion(0).front().without_terminator())
      if (!isa<linalg::IndexOp>(inner))
        ++ops;
    kernel.flops += iterations * std::max(1.0, ops);
  });
  auto func = cast<func::FuncOp>(kernelModule->getBody()->front());
  for (Type type : func.getArgumentTypes())
    kernel.bytes += bytesOf(type);
  for (Type type : func.getResultTypes())
    kernel.bytes += bytesOf(type);
  std::set<std::string> types;
  for (TypeRange range : {TypeRange(func.getArgumentTypes()),
                          TypeRange(func.getResultTypes())})
    for (Type type : range) {
      std::string text;
      llvm::raw_string_ostream os(text);
      getElementTypeOrSelf(type).print(os);
      types.insert(text);
    }
  kernel.elementTypes = llvm::join(types, ",");
  return kernel;
}

std::vector<Kernel> extractKernels(ModuleOp module) {
  std::vector<Kernel> kernels;
  llvm::StringMap<unsigned> bySignature;
  // Signatures whose groups no template schedules, asked only once.
  llvm::StringSet<> unschedulable;
  SmallVector<FusionGroupOp> groups;
  module.walk([&](FusionGroupOp group) { groups.push_back(group); });
  for (FusionGroupOp group : groups) {
    std::string signature = kernelSignature(group);
    if (auto it = bySignature.find(signature); it != bySignature.end()) {
      ++kernels[it->second].instances;
      continue;
    }
    if (unschedulable.contains(signature))
      continue;
    std::optional<Kernel> kernel = describeKernel(group);
    if (!kernel) {
      unschedulable.insert(signature);
      continue;
    }
    bySignature[signature] = kernels.size();
    kernels.push_back(std::move(*kernel));
  }
  return kernels;
}

Attribute toScheduleAttr(MLIRContext *ctx, const Schedule &schedule) {
  Builder b(ctx);
  SmallVector<NamedAttribute> knobs;
  for (const auto &[name, value] : schedule.knobs)
    knobs.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
  return ScheduleAttr::get(ctx, FlatSymbolRefAttr::get(ctx, schedule.sequence),
                           b.getDictionaryAttr(knobs));
}

unsigned applySchedules(ModuleOp module,
                        const std::map<std::string, Schedule> &schedules) {
  unsigned applied = 0;
  module.walk([&](FusionGroupOp group) {
    auto it = schedules.find(kernelSignature(group));
    if (it == schedules.end())
      return;
    group.setScheduleAttr(
        cast<ScheduleAttr>(toScheduleAttr(group.getContext(), it->second)));
    ++applied;
  });
  return applied;
}

} // namespace int21::search
