//===- TransformOps.cpp - int21's transform dialect extension -------------===//

#include "int21/Transforms/TransformOps.h"

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/CPUSchedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"

using namespace mlir;
using namespace mlir::int21;

#define GET_OP_CLASSES
#include "int21/Transforms/TransformOps.cpp.inc"

DiagnosedSilenceableFailure
PrepareGroupOp::apply(transform::TransformRewriter &rewriter,
                      transform::TransformResults &results,
                      transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getGroup())) {
    auto group = dyn_cast<FusionGroupOp>(op);
    if (!group)
      return emitSilenceableError()
             << "expects int21.fusion_group payload, got " << op->getName();
    if (failed(cpu::tagGroupForTemplate(group, getTemplateName())))
      return emitSilenceableError()
             << "template '" << getTemplateName()
             << "' does not fit the group at " << group.getLoc();
  }
  return DiagnosedSilenceableFailure::success();
}

void PrepareGroupOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getGroupMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
ClearTagsOp::apply(transform::TransformRewriter &rewriter,
                   transform::TransformResults &results,
                   transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getScope()))
    cpu::clearScheduleTags(op);
  return DiagnosedSilenceableFailure::success();
}

void ClearTagsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getScopeMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure
MatchAnchorOp::matchOperation(Operation *current,
                              transform::TransformResults &results,
                              transform::TransformState &state) {
  auto group = dyn_cast<FusionGroupOp>(current);
  if (!group)
    return emitSilenceableError() << "not a fusion group";
  Operation *anchor = cpu::groupAnchor(group);
  if (!anchor)
    return emitSilenceableError() << "the group has no main op";
  results.set(cast<OpResult>(getAnchor()), {anchor});
  return DiagnosedSilenceableFailure::success();
}

LogicalResult MatchShapeClassOp::verify() {
  size_t rank = getMultipleOf().size();
  if (getMin().size() != rank || getMax().size() != rank)
    return emitOpError("expects multiple_of, min and max of one length");
  for (size_t i = 0; i < rank; ++i)
    if (getMultipleOf()[i] < 1 || getMin()[i] > getMax()[i])
      return emitOpError("expects positive multiples and min <= max, loop ")
             << i;
  return success();
}

DiagnosedSilenceableFailure
MatchShapeClassOp::matchOperation(Operation *current,
                                  transform::TransformResults &results,
                                  transform::TransformState &state) {
  auto op = dyn_cast<linalg::LinalgOp>(current);
  if (!op)
    return emitSilenceableError() << "not a structured op";
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (sizes.size() != getMultipleOf().size())
    return emitSilenceableError() << "has " << sizes.size() << " loops";
  for (auto [i, size] : llvm::enumerate(sizes))
    if (ShapedType::isDynamic(size) || size % getMultipleOf()[i] != 0 ||
        size < getMin()[i] || size > getMax()[i])
      return emitSilenceableError() << "loop " << i << " of size " << size
                                    << " is outside the class";
  return DiagnosedSilenceableFailure::success();
}

namespace {
class Int21TransformExtension
    : public transform::TransformDialectExtension<Int21TransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Int21TransformExtension)
  using Base::Base;

  void init() {
    declareDependentDialect<Int21Dialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "int21/Transforms/TransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::int21::cpu::registerTransformExtension(DialectRegistry &registry) {
  registry.addExtensions<Int21TransformExtension>();
}
