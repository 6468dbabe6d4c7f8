//===- Composer.cpp - building an ONNX function body from int21 ops ------===//

#include "Composer.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

Value Composer::reshape(Value v, ArrayRef<int64_t> shape) {
  if (failed_)
    return {};
  FailureOr<Value> r = n.reshape(v, shape);
  if (mlir::failed(r)) {
    failed_ = true;
    return {};
  }
  return *r;
}

Value Composer::slice(Value v, int64_t axis, int64_t start, int64_t size) {
  if (failed_)
    return {};
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), sizes(type.getShape()),
      steps(type.getRank(), 1);
  starts[axis] = start;
  sizes[axis] = size;
  return op<SliceOp>(v, n.b.getDenseI64ArrayAttr(starts),
                     n.b.getDenseI64ArrayAttr(sizes),
                     n.b.getDenseI64ArrayAttr(steps));
}

Value Composer::transpose(Value v, ArrayRef<int64_t> perm) {
  return op<TransposeOp>(v, n.b.getDenseI64ArrayAttr(perm));
}

Value Composer::concat(ValueRange values, int64_t axis) {
  if (values.size() == 1)
    return values.front();
  return op<ConcatOp>(values, n.b.getI64IntegerAttr(axis));
}

Value Composer::reduceMean(Value v, ArrayRef<int64_t> axes, bool keepdims) {
  return op<ReduceMeanOp>(v, n.b.getDenseI64ArrayAttr(axes),
                          n.b.getBoolAttr(keepdims));
}

Value Composer::fail(const Twine &message) {
  if (!failed_)
    n.emitError() << message;
  failed_ = true;
  return {};
}

LogicalResult Composer::setOutput(unsigned i, Value v) {
  if (failed_ || !v)
    return failure();
  n.setOutput(i, v);
  return success();
}
