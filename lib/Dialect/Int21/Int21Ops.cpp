//===- Int21Ops.cpp - int21 op type inference, verifiers and builders -----===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace int21;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Reports an error of op `opName` at `loc`, in the style of emitOpError, from
/// a type-inference hook (which has no op yet).
template <typename... Args>
static LogicalResult inferError(std::optional<Location> loc, StringRef opName,
                                Args &&...args) {
  return emitOptionalError(loc, "'", opName, "' op ",
                           std::forward<Args>(args)...);
}

static RankedTensorType rankedType(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// Renders a shape as `2x3x4` for messages.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  if (shape.empty())
    os << "scalar";
  return s;
}

FailureOr<SmallVector<int64_t>>
int21::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    // A dynamic extent meets 1 (it is kept), another dynamic extent or a
    // static one (they must agree at run time: the static one is kept).
    if (ShapedType::isDynamic(l) || ShapedType::isDynamic(r)) {
      result[i] = l == 1 ? r : r == 1 || ShapedType::isDynamic(r) ? l : r;
      continue;
    }
    if (l != r && l != 1 && r != 1)
      return failure();
    result[i] = l == 1 ? r : l;
  }
  return result;
}

LogicalResult int21::inferBroadcastReturnType(
    std::optional<Location> location, StringRef opName, ValueRange operands,
    Type elementType, SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return inferError(location, opName, "expects ranked tensor operands");
    FailureOr<SmallVector<int64_t>> next =
        i == 0 ? FailureOr<SmallVector<int64_t>>(
                     SmallVector<int64_t>(type.getShape()))
               : broadcastShapes(shape, type.getShape());
    if (failed(next))
      return inferError(location, opName, "expects operand shapes ",
                        shapeStr(shape), " and ", shapeStr(type.getShape()),
                        " to be broadcast compatible");
    shape = std::move(*next);
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

/// Checks the common spatial attributes of convolution and pooling ops over
/// `k` spatial dimensions.
static LogicalResult verifyWindowAttrs(std::optional<Location> loc,
                                       StringRef opName, int64_t k,
                                       ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations) {
  if (static_cast<int64_t>(strides.size()) != k)
    return inferError(loc, opName, "expects ", k, " strides, got ",
                      strides.size());
  if (static_cast<int64_t>(dilations.size()) != k)
    return inferError(loc, opName, "expects ", k, " dilations, got ",
                      dilations.size());
  if (static_cast<int64_t>(pads.size()) != 2 * k)
    return inferError(loc, opName, "expects ", 2 * k,
                      " pads (begins, then ends), got ", pads.size());
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }))
    return inferError(loc, opName, "expects positive strides");
  if (llvm::any_of(dilations, [](int64_t d) { return d <= 0; }))
    return inferError(loc, opName, "expects positive dilations");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return inferError(loc, opName, "expects non-negative pads");
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto type = dyn_cast_if_present<RankedTensorType>(
      adaptor.getValue() ? adaptor.getValue().getType() : Type());
  if (!type)
    return inferError(location, getOperationName(),
                      "expects a ranked tensor value");
  inferred.push_back(type);
  return success();
}

LogicalResult ConstantOp::verify() {
  if (!getValue().getShapedType().hasStaticShape())
    return emitOpError() << "expects a statically shaped value";
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

void CastOp::build(OpBuilder &builder, OperationState &state, Value input,
                   Type elementType) {
  auto type = cast<RankedTensorType>(input.getType());
  build(builder, state, type.clone(elementType), input);
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  if (in.getShape() != out.getShape())
    return emitOpError()
           << "expects input and result to have the same shape, got "
           << shapeStr(in.getShape()) << " and " << shapeStr(out.getShape());
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  return inferBroadcastReturnType(
      loc, getOperationName(), adaptor.getOperands(),
      getElementTypeOrSelf(adaptor.getOnTrue().getType()), inferred);
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

FailureOr<std::pair<SmallVector<std::string>, std::string>>
EinsumOp::parseEquation(StringRef equation, std::string &error) {
  auto [lhs, rhs] = equation.split("->");
  if (!equation.contains("->")) {
    error = "expects an explicit result ('...->...')";
    return failure();
  }
  SmallVector<StringRef> inputs;
  lhs.split(inputs, ',');
  SmallVector<std::string> letters;
  for (StringRef input : inputs) {
    for (char ch : input)
      if (!llvm::isAlpha(ch) && ch != '1') {
        error = "expects letters or '1', got '" + std::string(1, ch) + "'";
        return failure();
      }
    letters.push_back(input.str());
  }
  llvm::StringSet<> seen;
  for (char ch : rhs) {
    if (!llvm::isAlpha(ch)) {
      error = "expects letters in the result, got '" + std::string(1, ch) + "'";
      return failure();
    }
    if (!seen.insert(StringRef(&ch, 1)).second) {
      error = "expects each result letter once, got '" + rhs.str() + "'";
      return failure();
    }
    if (!lhs.contains(ch)) {
      error = "result letter '" + std::string(1, ch) + "' names no input dimension";
      return failure();
    }
  }
  return std::make_pair(std::move(letters), rhs.str());
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  std::string error;
  auto parsed = parseEquation(adaptor.getEquation(), error);
  if (failed(parsed))
    return inferError(loc, name, error);
  auto &[inputs, result] = *parsed;
  if (inputs.size() != adaptor.getInputs().size() || inputs.empty())
    return inferError(loc, name, "expects ", inputs.size(),
                      " operands for the equation, got ",
                      adaptor.getInputs().size());
  llvm::DenseMap<char, int64_t> sizes;
  Type elementType;
  for (auto [letters, operand] : llvm::zip(inputs, adaptor.getInputs())) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return inferError(loc, name, "expects ranked operands");
    elementType = type.getElementType();
    if (static_cast<int64_t>(letters.size()) != type.getRank())
      return inferError(loc, name, "expects '", letters, "' to name all ",
                        type.getRank(), " dimensions of its operand");
    for (auto [ch, size] : llvm::zip(letters, type.getShape())) {
      if (ch == '1') {
        if (size != 1)
          return inferError(loc, name, "expects a dimension of size 1 for '1'"
                            ", got ", size);
        continue;
      }
      auto [it, inserted] = sizes.try_emplace(ch, size);
      if (!inserted && it->second != size)
        return inferError(loc, name, "expects dimension '", std::string(1, ch),
                          "' to have one size, got ", it->second, " and ",
                          size);
    }
  }
  SmallVector<int64_t> shape;
  for (char ch : result)
    shape.push_back(sizes.lookup(ch));
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType lhs = rankedType(adaptor.getLhs());
  RankedTensorType rhs = rankedType(adaptor.getRhs());
  if (!lhs || !rhs)
    return inferError(loc, name, "expects ranked operands");
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return inferError(loc, name, "expects operands of rank 2 or more, got ",
                      lhs.getRank(), " and ", rhs.getRank());
  int64_t k1 = lhs.getShape().back();
  int64_t k2 = rhs.getShape()[rhs.getRank() - 2];
  if (k1 != k2 && !ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2))
    return inferError(loc, name, "expects lhs and rhs to agree on K, got ", k1,
                      " and ", k2);
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.getShape().drop_back(2), rhs.getShape().drop_back(2));
  if (failed(batch))
    return inferError(loc, name, "expects batch dimensions ",
                      shapeStr(lhs.getShape().drop_back(2)), " and ",
                      shapeStr(rhs.getShape().drop_back(2)),
                      " to be broadcast compatible");
  SmallVector<int64_t> shape = std::move(*batch);
  shape.push_back(lhs.getShape()[lhs.getRank() - 2]);
  shape.push_back(rhs.getShape().back());
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// Checks that input, weight and the optional bias agree on element type and
/// rank, and that the bias is `[numFilters]`.
static LogicalResult verifyConvOperands(std::optional<Location> loc,
                                        StringRef name, RankedTensorType input,
                                        RankedTensorType weight, Value bias,
                                        int64_t numFilters) {
  if (input.getElementType() != weight.getElementType())
    return inferError(loc, name,
                      "expects input and weight of one element type");
  if (!bias)
    return success();
  RankedTensorType b = rankedType(bias);
  if (!b || b.getRank() != 1 || b.getDimSize(0) != numFilters)
    return inferError(loc, name, "expects a bias of shape ", numFilters,
                      ", got ", b ? shapeStr(b.getShape()) : "unranked");
  if (b.getElementType() != input.getElementType())
    return inferError(loc, name,
                      "expects the bias to have the input's element type");
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType weight = rankedType(adaptor.getWeight());
  if (!input || !weight)
    return inferError(loc, name, "expects ranked operands");
  if (input.getRank() < 3)
    return inferError(
        loc, name,
        "expects an input of rank 3 or more (N, C, spatial...), got rank ",
        input.getRank());
  if (weight.getRank() != input.getRank())
    return inferError(loc, name, "expects a weight of rank ", input.getRank(),
                      ", got rank ", weight.getRank());
  int64_t k = input.getRank() - 2;
  if (failed(verifyWindowAttrs(loc, name, k, adaptor.getStrides(),
                               adaptor.getPads(), adaptor.getDilations())))
    return failure();
  int64_t group = adaptor.getGroup();
  int64_t channels = input.getDimSize(1);
  int64_t filters = weight.getDimSize(0);
  if (group <= 0 || channels % group != 0 || filters % group != 0)
    return inferError(loc, name, "expects group ", group,
                      " to divide the input channels ", channels,
                      " and the filters ", filters);
  if (weight.getDimSize(1) != channels / group)
    return inferError(loc, name,
                      "expects weight dimension 1 to be channels / group = ",
                      channels / group, ", got ", weight.getDimSize(1));
  if (failed(verifyConvOperands(loc, name, input, weight, adaptor.getBias(),
                                filters)))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), filters};
  for (int64_t i = 0; i < k; ++i) {
    if (input.isDynamicDim(i + 2)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t extent =
        adaptor.getDilations()[i] * (weight.getDimSize(i + 2) - 1) + 1;
    int64_t padded = input.getDimSize(i + 2) + adaptor.getPads()[i] +
                     adaptor.getPads()[i + k];
    if (padded < extent)
      return inferError(loc, name, "expects padded spatial dimension ", i, " (",
                        padded, ") to cover the dilated kernel (", extent, ")");
    shape.push_back((padded - extent) / adaptor.getStrides()[i] + 1);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult
ConvTransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType weight = rankedType(adaptor.getWeight());
  if (!input || !weight)
    return inferError(loc, name, "expects ranked operands");
  if (input.getRank() < 3 || weight.getRank() != input.getRank())
    return inferError(loc, name,
                      "expects input and weight of one rank, 3 or more, got ",
                      input.getRank(), " and ", weight.getRank());
  int64_t k = input.getRank() - 2;
  if (failed(verifyWindowAttrs(loc, name, k, adaptor.getStrides(),
                               adaptor.getPads(), adaptor.getDilations())))
    return failure();
  ArrayRef<int64_t> outputPadding = adaptor.getOutputPadding();
  if (static_cast<int64_t>(outputPadding.size()) != k)
    return inferError(loc, name, "expects ", k, " output_padding entries, got ",
                      outputPadding.size());
  int64_t group = adaptor.getGroup();
  int64_t channels = input.getDimSize(1);
  if (group <= 0 || channels % group != 0)
    return inferError(loc, name, "expects group ", group,
                      " to divide the input channels ", channels);
  if (weight.getDimSize(0) != channels)
    return inferError(loc, name,
                      "expects weight dimension 0 to be the input channels ",
                      channels, ", got ", weight.getDimSize(0));
  int64_t filters = weight.getDimSize(1) * group;
  if (failed(verifyConvOperands(loc, name, input, weight, adaptor.getBias(),
                                filters)))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), filters};
  for (int64_t i = 0; i < k; ++i) {
    int64_t size = adaptor.getStrides()[i] * (input.getDimSize(i + 2) - 1) +
                   outputPadding[i] +
                   adaptor.getDilations()[i] * (weight.getDimSize(i + 2) - 1) +
                   1 - adaptor.getPads()[i] - adaptor.getPads()[i + k];
    if (size <= 0)
      return inferError(loc, name, "computes a non-positive output dimension ",
                        size, " for spatial dimension ", i);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

template <typename Adaptor>
static LogicalResult inferPoolType(std::optional<Location> loc, StringRef name,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (!input || input.getRank() < 3)
    return inferError(loc, name,
                      "expects an input of rank 3 or more (N, C, spatial...)");
  int64_t k = input.getRank() - 2;
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  if (static_cast<int64_t>(kernel.size()) != k)
    return inferError(loc, name, "expects ", k, " kernel_shape entries, got ",
                      kernel.size());
  if (llvm::any_of(kernel, [](int64_t s) { return s <= 0; }))
    return inferError(loc, name, "expects a positive kernel_shape");
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  if (failed(verifyWindowAttrs(loc, name, k, strides, pads, dilations)))
    return failure();
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  for (int64_t i = 0; i < k; ++i) {
    int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
    int64_t size = input.getDimSize(i + 2);
    if (ShapedType::isDynamic(size)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t padded = size + pads[i] + pads[i + k];
    if (padded < extent)
      return inferError(loc, name, "expects padded spatial dimension ", i, " (",
                        padded, ") to cover the dilated kernel (", extent, ")");
    int64_t out;
    if (adaptor.getCeilMode()) {
      out = llvm::divideCeil(padded - extent, strides[i]) + 1;
      // ONNX drops a last window that would start in the end padding.
      if ((out - 1) * strides[i] >= size + pads[i])
        --out;
    } else {
      out = (padded - extent) / strides[i] + 1;
    }
    shape.push_back(out);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPoolType(loc, getOperationName(), adaptor, inferred);
}

LogicalResult MaxPoolIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (failed(inferPoolType(loc, getOperationName(), adaptor, inferred)))
    return failure();
  inferred.back() = cast<RankedTensorType>(inferred.back())
                        .clone(IntegerType::get(ctx, 64));
  return success();
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPoolType(loc, getOperationName(), adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifyAxis(OpTy op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op.emitOpError()
           << "expects axis in [0, " << rank << "), got " << axis;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult LayerNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(getAxis());
  for (auto [name, v] : {std::pair<StringRef, Value>{"scale", getScale()},
                         std::pair<StringRef, Value>{"bias", getBias()}}) {
    if (!v)
      continue;
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() != input.getElementType())
      return emitOpError() << "expects " << name
                           << " to have the input's element type";
    FailureOr<SmallVector<int64_t>> b =
        broadcastShapes(normalized, type.getShape());
    if (failed(b) || ArrayRef<int64_t>(*b) != normalized)
      return emitOpError() << "expects " << name << " of shape "
                           << shapeStr(type.getShape())
                           << " to broadcast to the normalised shape "
                           << shapeStr(normalized);
  }
  return success();
}

LogicalResult BatchNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() < 2)
    return emitOpError() << "expects an input of rank 2 or more (N, C, ...)";
  int64_t channels = input.getDimSize(1);
  for (Value v : {getScale(), getBias(), getMean(), getVariance()}) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getRank() != 1 || type.getDimSize(0) != channels ||
        type.getElementType() != input.getElementType())
      return emitOpError() << "expects scale, bias, mean and variance of type "
                           << RankedTensorType::get({channels},
                                                    input.getElementType())
                           << ", got " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename Adaptor>
static LogicalResult inferReduceType(std::optional<Location> loc,
                                     StringRef name, Adaptor adaptor,
                                     SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= input.getRank())
      return inferError(loc, name, "expects axes in [0, ", input.getRank(),
                        "), got ", axis);
    if (i > 0 && axes[i - 1] >= axis)
      return inferError(loc, name, "expects strictly increasing axes");
  }
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(input.getShape())) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(d));
    if (!reduced)
      shape.push_back(size);
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define INT21_REDUCE_INFER(Op)                                                 \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduceType(loc, getOperationName(), adaptor, inferred);        \
  }
INT21_REDUCE_INFER(ReduceSumOp)
INT21_REDUCE_INFER(ReduceMeanOp)
INT21_REDUCE_INFER(ReduceMaxOp)
INT21_REDUCE_INFER(ReduceMinOp)
INT21_REDUCE_INFER(ReduceProdOp)
#undef INT21_REDUCE_INFER

template <typename Adaptor>
static LogicalResult inferArgReduceType(std::optional<Location> loc,
                                        StringRef name, MLIRContext *ctx,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= input.getRank())
    return inferError(loc, name, "expects axis in [0, ", input.getRank(),
                      "), got ", axis);
  SmallVector<int64_t> shape(input.getShape());
  if (adaptor.getKeepdims())
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduceType(loc, getOperationName(), ctx, adaptor, inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduceType(loc, getOperationName(), ctx, adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return inferError(loc, getOperationName(), "expects a permutation of ",
                      input.getRank(), " dimensions, got ", perm.size(),
                      " entries");
  llvm::SmallBitVector seen(perm.size());
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= input.getRank() || seen.test(p))
      return inferError(loc, getOperationName(),
                        "expects perm to be a permutation of [0, ",
                        input.getRank(), ")");
    seen.set(p);
    shape.push_back(input.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

void ReshapeOp::build(OpBuilder &builder, OperationState &state, Value input,
                      ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  build(builder, state, RankedTensorType::get(shape, type.getElementType()),
        input);
}

/// Checks that `sizes` gives one extent per dynamic dimension of `type`.
static LogicalResult verifySizes(Operation *op, RankedTensorType type,
                                 ValueRange sizes) {
  if ((int64_t)sizes.size() == type.getNumDynamicDims())
    return success();
  return op->emitOpError() << "expects one size per dynamic extent of the "
                              "result ("
                           << type.getNumDynamicDims() << "), got "
                           << sizes.size();
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  if (!getSizes().empty())
    return verifySizes(*this, out, getSizes());
  // With dynamic extents the element counts agree at run time only: the
  // static ones must still divide into each other.
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return success();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "expects the same number of elements, got "
                         << in.getNumElements() << " ("
                         << shapeStr(in.getShape()) << ") and "
                         << out.getNumElements() << " ("
                         << shapeStr(out.getShape()) << ")";
  return success();
}

LogicalResult ExpandOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  if (failed(verifySizes(*this, out, getSizes())))
    return failure();
  // Aligned on the right, each input extent is 1 or the result's; a dynamic
  // extent on either side agrees at run time.
  bool broadcasts = in.getRank() <= out.getRank();
  for (int64_t i = 0; broadcasts && i < in.getRank(); ++i) {
    int64_t a = in.getDimSize(i),
            r = out.getDimSize(i + out.getRank() - in.getRank());
    broadcasts = a == 1 || a == r || ShapedType::isDynamic(a) ||
                 ShapedType::isDynamic(r);
  }
  if (!broadcasts)
    return emitOpError() << "expects input shape " << shapeStr(in.getShape())
                         << " to broadcast to the result shape "
                         << shapeStr(out.getShape());
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  int64_t rank = in.getRank();
  if (out.getRank() != rank || (int64_t)getStarts().size() != rank ||
      (int64_t)getSizes().size() != rank || (int64_t)getSteps().size() != rank)
    return emitOpError() << "expects a result of the input's rank " << rank
                         << " and one start, size and step per dimension";
  for (auto [d, size] : llvm::enumerate(getSizes())) {
    std::optional<int64_t> known = getConstantIntValue(size);
    if (known && !out.isDynamicDim(d) && *known != out.getDimSize(d))
      return emitOpError() << "expects dimension " << d << " of the result to "
                           << "be its size " << *known;
  }
  for (auto [d, step] : llvm::enumerate(getSteps()))
    if (std::optional<int64_t> known = getConstantIntValue(step);
        known && *known == 0)
      return emitOpError() << "expects non-zero steps, got 0 for dimension "
                           << d;
  return success();
}

LogicalResult NonZeroOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  int64_t rows = std::max<int64_t>(in.getRank(), 1);
  if (out.getRank() != 2 || out.getDimSize(0) != rows ||
      !out.isDynamicDim(1))
    return emitOpError() << "expects a result of shape " << rows
                         << "x?, got " << out;
  return success();
}

LogicalResult UniqueOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  if (in.getRank() != 2 || !in.hasStaticShape())
    return inferError(loc, getOperationName(),
                      "expects a matrix of static shape");
  int64_t dyn = ShapedType::kDynamic;
  Type i64 = IntegerType::get(ctx, 64);
  inferred.push_back(
      RankedTensorType::get({dyn, in.getDimSize(1)}, in.getElementType()));
  inferred.push_back(RankedTensorType::get({dyn}, i64));
  inferred.push_back(RankedTensorType::get({in.getDimSize(0)}, i64));
  inferred.push_back(RankedTensorType::get({dyn}, i64));
  return success();
}

LogicalResult UniqueOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto values = cast<RankedTensorType>(getValues().getType());
  auto vector = [](Type type) {
    auto t = cast<RankedTensorType>(type);
    return t.getRank() == 1 ? t.getDimSize(0) : int64_t(-2);
  };
  if (in.getRank() != 2 || !in.hasStaticShape())
    return emitOpError() << "expects a matrix of static shape, got " << in;
  if (values.getRank() != 2 || !values.isDynamicDim(0) ||
      values.getDimSize(1) != in.getDimSize(1) ||
      values.getElementType() != in.getElementType())
    return emitOpError() << "expects values of shape ?x" << in.getDimSize(1)
                         << " and the input's element type, got " << values;
  if (!ShapedType::isDynamic(vector(getIndices().getType())) ||
      !ShapedType::isDynamic(vector(getCounts().getType())) ||
      vector(getInverse().getType()) != in.getDimSize(0))
    return emitOpError() << "expects indices and counts of shape ? and "
                            "inverse of shape "
                         << in.getDimSize(0);
  return success();
}

LogicalResult NonMaxSuppressionOp::verify() {
  auto boxes = cast<RankedTensorType>(getBoxes().getType());
  auto scores = cast<RankedTensorType>(getScores().getType());
  auto selected = cast<RankedTensorType>(getSelected().getType());
  if (boxes.getRank() != 3 || boxes.getDimSize(2) != 4 ||
      !boxes.hasStaticShape())
    return emitOpError() << "expects boxes of static shape [batches, boxes, "
                            "4], got "
                         << boxes;
  if (scores.getRank() != 3 || !scores.hasStaticShape() ||
      scores.getDimSize(0) != boxes.getDimSize(0) ||
      scores.getDimSize(2) != boxes.getDimSize(1) ||
      scores.getElementType() != boxes.getElementType())
    return emitOpError() << "expects scores of shape [" << boxes.getDimSize(0)
                         << ", classes, " << boxes.getDimSize(1)
                         << "] and the boxes' element type, got " << scores;
  for (Value scalar : {getMaxOutput(), getIouThreshold(), getScoreThreshold()})
    if (cast<RankedTensorType>(scalar.getType()).getRank() != 0)
      return emitOpError() << "expects scalar limits, got "
                           << scalar.getType();
  if (getIouThreshold().getType().getElementType() != boxes.getElementType() ||
      getScoreThreshold().getType().getElementType() != boxes.getElementType())
    return emitOpError() << "expects thresholds of the boxes' element type";
  if (selected.getRank() != 2 || !selected.isDynamicDim(0) ||
      selected.getDimSize(1) != 3)
    return emitOpError() << "expects a result of shape ?x3, got " << selected;
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = cast<RankedTensorType>(getOutput().getType());
  if (failed(verifySizes(*this, type, getSizes())))
    return failure();
  if (getDimension() < 0 || getDimension() >= type.getRank())
    return emitOpError() << "expects a dimension in [0, " << type.getRank()
                         << "), got " << getDimension();
  return success();
}

LogicalResult RandomOp::verify() {
  auto type = cast<RankedTensorType>(getOutput().getType());
  if (failed(verifySizes(*this, type, getSizes())))
    return failure();
  if (std::optional<int64_t> seed = getSeed();
      seed && (*seed < 0 || *seed > std::numeric_limits<uint32_t>::max()))
    return emitOpError() << "expects a seed in [0, 2^32), got " << *seed;
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  if (adaptor.getInputs().empty())
    return inferError(loc, name, "expects at least one input");
  auto first = cast<RankedTensorType>(adaptor.getInputs().front().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return inferError(loc, name, "expects axis in [0, ", first.getRank(),
                      "), got ", axis);
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value v : adaptor.getInputs()) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getRank() != first.getRank())
      return inferError(loc, name, "expects inputs of one rank, got ",
                        first.getRank(), " and ", type.getRank());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && type.getDimSize(d) != first.getDimSize(d) &&
          !type.isDynamicDim(d) && !first.isDynamicDim(d))
        return inferError(loc, name, "expects inputs to agree on dimension ", d,
                          " (not the concatenation axis), got ",
                          first.getDimSize(d), " and ", type.getDimSize(d));
    shape[axis] = ShapedType::isDynamic(shape[axis]) || type.isDynamicDim(axis)
                      ? ShapedType::kDynamic
                      : shape[axis] + type.getDimSize(axis);
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), sizes = adaptor.getSizes(),
                    steps = adaptor.getSteps();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank ||
      static_cast<int64_t>(steps.size()) != rank)
    return inferError(loc, name, "expects starts, sizes and steps with ", rank,
                      " entries each");
  for (int64_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return inferError(loc, name,
                        "expects non-zero steps, got 0 for dimension ", d);
    int64_t dim = input.getDimSize(d);
    if (ShapedType::isDynamic(sizes[d])) {
      // A dynamic extent kept whole.
      if (!ShapedType::isDynamic(dim) || starts[d] != 0 || steps[d] != 1)
        return inferError(loc, name, "expects a size of ? only for a "
                          "dynamic dimension kept whole, got it for dimension ",
                          d);
      continue;
    }
    if (sizes[d] < 0)
      return inferError(loc, name, "expects non-negative sizes, got ", sizes[d],
                        " for dimension ", d);
    if (sizes[d] == 0)
      continue;
    int64_t last = starts[d] + (sizes[d] - 1) * steps[d];
    // Within a dynamic extent, the engine checks the upper bound.
    if (ShapedType::isDynamic(dim))
      dim = std::numeric_limits<int64_t>::max();
    if (starts[d] < 0 || starts[d] >= dim || last < 0 || last >= dim)
      return inferError(loc, name, "reads out of bounds along dimension ", d,
                        ": elements ", starts[d], " to ", last, " of ", dim);
  }
  inferred.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return inferError(loc, getOperationName(), "expects axis in [0, ",
                      data.getRank(), "), got ", axis);
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  inferred.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> pads = adaptor.getPads();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return inferError(loc, getOperationName(), "expects ", 2 * rank,
                      " pads (begins, then ends), got ", pads.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (input.isDynamicDim(d)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t size = input.getDimSize(d) + pads[d] + pads[d + rank];
    if (size < 0)
      return inferError(loc, getOperationName(), "crops dimension ", d,
                        " below zero elements");
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing: gather and scatter
//===----------------------------------------------------------------------===//

/// Checks that every dimension of `indices` but `axis` is at most the data's,
/// so that the element-wise gathers and scatters stay in bounds.
static LogicalResult verifyIndicesFit(std::optional<Location> loc,
                                      StringRef name, RankedTensorType data,
                                      RankedTensorType indices, int64_t axis) {
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) > data.getDimSize(d))
      return inferError(loc, name, "expects indices dimension ", d, " (",
                        indices.getDimSize(d), ") to be at most the data's (",
                        data.getDimSize(d), ")");
  return success();
}

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return inferError(loc, name, "expects axis in [0, ", data.getRank(),
                      "), got ", axis);
  if (indices.getRank() != data.getRank())
    return inferError(loc, name, "expects indices of the data's rank ",
                      data.getRank(), ", got ", indices.getRank());
  if (failed(verifyIndicesFit(loc, name, data, indices, axis)))
    return failure();
  inferred.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= data.getRank())
    return inferError(loc, name, "expects axis in [0, ", data.getRank(),
                      "), got ", axis);
  if (indices.getShape() != updates.getShape())
    return inferError(
        loc, name, "expects indices and updates of one shape, got ",
        shapeStr(indices.getShape()), " and ", shapeStr(updates.getShape()));
  if (indices.getRank() != data.getRank())
    return inferError(loc, name, "expects indices of the data's rank ",
                      data.getRank(), ", got ", indices.getRank());
  if (failed(verifyIndicesFit(loc, name, data, indices, axis)))
    return failure();
  inferred.push_back(data);
  return success();
}

/// Checks the index tuples of GatherND / ScatterND: `indices` is
/// `[batch..., M..., k]` with the batch dimensions equal to the data's and
/// `batch + k` at most the data's rank.
static LogicalResult verifyIndexTuples(std::optional<Location> loc,
                                       StringRef name, RankedTensorType data,
                                       RankedTensorType indices,
                                       int64_t batchDims) {
  if (indices.getRank() < 1)
    return inferError(loc, name, "expects indices of rank 1 or more");
  if (batchDims < 0 || batchDims >= std::min(data.getRank(), indices.getRank()))
    return inferError(loc, name, "expects batch_dims in [0, ",
                      std::min(data.getRank(), indices.getRank()), "), got ",
                      batchDims);
  for (int64_t d = 0; d < batchDims; ++d)
    if (indices.getDimSize(d) != data.getDimSize(d))
      return inferError(
          loc, name, "expects indices and data to agree on batch dimension ", d,
          ", got ", indices.getDimSize(d), " and ", data.getDimSize(d));
  int64_t k = indices.getShape().back();
  if (ShapedType::isDynamic(k))
    return inferError(loc, name, "expects index tuples of a static size");
  if (k < 1 || batchDims + k > data.getRank())
    return inferError(loc, name, "expects index tuples of 1 to ",
                      data.getRank() - batchDims, " entries, got ", k);
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t batchDims = adaptor.getBatchDims();
  if (failed(
          verifyIndexTuples(loc, getOperationName(), data, indices, batchDims)))
    return failure();
  int64_t k = indices.getShape().back();
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(batchDims + k));
  inferred.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  if (failed(verifyIndexTuples(loc, name, data, indices, 0)))
    return failure();
  int64_t k = indices.getShape().back();
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(k));
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return inferError(loc, name, "expects updates of shape ",
                      shapeStr(expected), ", got ",
                      shapeStr(updates.getShape()));
  inferred.push_back(data);
  return success();
}

//===----------------------------------------------------------------------===//
// Resampling, scans and selection
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  int64_t rank = in.getRank();
  if (out.getRank() != rank)
    return emitOpError() << "expects input and result of one rank, got " << rank
                         << " and " << out.getRank();
  if (static_cast<int64_t>(getSizes().size()) != out.getNumDynamicDims())
    return emitOpError() << "expects one size per dynamic extent of the "
                            "result ("
                         << out.getNumDynamicDims() << "), got "
                         << getSizes().size();
  if (!getScaleValues().empty()) {
    if (static_cast<int64_t>(getScaleValues().size()) != rank ||
        !getScales().empty())
      return emitOpError() << "expects " << rank
                           << " scale values and no scales attribute, got "
                           << getScaleValues().size() << " and "
                           << getScales().size();
  } else if (!getScales().empty()) {
    if (static_cast<int64_t>(getScales().size()) != rank)
      return emitOpError() << "expects " << rank << " scales, got "
                           << getScales().size();
    if (llvm::any_of(getScales(), [](float s) { return !(s > 0); }))
      return emitOpError() << "expects positive scales";
  }
  bool crop =
      getCoordinateTransform() == CoordinateTransform::TFCropAndResize;
  if (!getRoiValues().empty() && !getRoi().empty())
    return emitOpError() << "expects roi values or a roi attribute, not both";
  size_t roiCount = getRoiValues().empty() ? getRoi().size()
                                           : getRoiValues().size();
  if (crop && static_cast<int64_t>(roiCount) != 2 * rank)
    return emitOpError() << "expects " << 2 * rank
                         << " roi entries (starts, then ends) with "
                            "tf_crop_and_resize, got "
                         << roiCount;
  if (getMode() != ResizeMode::Nearest && !isa<FloatType>(in.getElementType()))
    return emitOpError() << "supports " << stringifyResizeMode(getMode())
                         << " interpolation of floats only, got "
                         << in.getElementType();
  for (int64_t d = 0; d < rank; ++d)
    if (in.getDimSize(d) == 0 && out.getDimSize(d) != 0)
      return emitOpError() << "cannot resize empty dimension " << d << " to "
                           << out.getDimSize(d) << " elements";
  return success();
}

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto grid = cast<RankedTensorType>(adaptor.getGrid().getType());
  if (input.getRank() != 4)
    return inferError(loc, name,
                      "expects an input of rank 4 (N, C, H, W), "
                      "got rank ",
                      input.getRank());
  if (grid.getRank() != 4 || grid.getDimSize(0) != input.getDimSize(0) ||
      grid.getDimSize(3) != 2)
    return inferError(loc, name, "expects a grid of shape ",
                      input.getDimSize(0), "xHoxWox2, got ",
                      shapeStr(grid.getShape()));
  inferred.push_back(
      RankedTensorType::get({input.getDimSize(0), input.getDimSize(1),
                             grid.getDimSize(1), grid.getDimSize(2)},
                            input.getElementType()));
  return success();
}

LogicalResult RoiAlignOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto rois = cast<RankedTensorType>(adaptor.getRois().getType());
  auto batch = cast<RankedTensorType>(adaptor.getBatchIndices().getType());
  if (input.getRank() != 4)
    return inferError(loc, name,
                      "expects an input of rank 4 (N, C, H, W), "
                      "got rank ",
                      input.getRank());
  if (rois.getRank() != 2 || rois.getDimSize(1) != 4)
    return inferError(loc, name, "expects rois of shape Rx4, got ",
                      shapeStr(rois.getShape()));
  if (batch.getRank() != 1 || batch.getDimSize(0) != rois.getDimSize(0))
    return inferError(loc, name, "expects batch_indices of shape ",
                      rois.getDimSize(0), ", got ", shapeStr(batch.getShape()));
  int64_t height = adaptor.getOutputHeight(), width = adaptor.getOutputWidth();
  int64_t ratio = adaptor.getSamplingRatio();
  if (height <= 0 || width <= 0 || ratio < 0)
    return inferError(loc, name,
                      "expects a positive output size and a "
                      "non-negative sampling_ratio");
  inferred.push_back(RankedTensorType::get(
      {rois.getDimSize(0), input.getDimSize(1), height, width},
      input.getElementType()));
  return success();
}

LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  StringRef name = getOperationName();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis(), k = adaptor.getK();
  if (axis < 0 || axis >= input.getRank())
    return inferError(loc, name, "expects axis in [0, ", input.getRank(),
                      "), got ", axis);
  if (k < 0 || k > input.getDimSize(axis))
    return inferError(loc, name, "expects k in [0, ", input.getDimSize(axis),
                      "], got ", k);
  SmallVector<int64_t> shape(input.getShape());
  shape[axis] = k;
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  inferred.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// FusionGroupOp
//===----------------------------------------------------------------------===//

YieldOp FusionGroupOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult FusionGroupOp::verify() {
  TypeRange yielded = getYield().getValues().getTypes();
  if (yielded != getResultTypes())
    return emitOpError() << "expects the body to yield the result types "
                         << getResultTypes() << ", got " << yielded;
  return success();
}

#define GET_OP_CLASSES
#include "int21/Dialect/Int21/Int21Ops.cpp.inc"
