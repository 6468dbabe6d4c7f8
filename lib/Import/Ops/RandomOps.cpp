//===- RandomOps.cpp - Random numbers and Dropout in training mode --------===//
//
// RandomUniform, RandomNormal and their *Like forms, and Dropout with its
// training mode on, draw from int21.random: numpy's legacy Mersenne Twister,
// so that a seed gives the numbers the ONNX reference (numpy.random.seed,
// then rand or randn) gives, in every run; without a seed each run draws
// new numbers.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

FailureOr<Value> int21::onnx_import::randomNumbers(NodeImporter &n,
                                                   ArrayRef<int64_t> shape,
                                                   ValueRange sizes,
                                                   bool normal,
                                                   std::optional<double> seed) {
  OpBuilder &b = n.b;
  std::optional<int64_t> intSeed;
  if (seed) {
    if (!(*seed >= 0 && *seed < 4294967296.0))
      return n.emitError() << "seed " << *seed
                           << " is outside [0, 2^32): int21 seeds numpy's "
                              "generator with it",
             failure();
    intSeed = static_cast<int64_t>(*seed);
  }
  // The generator the lowering calls, declared once per module.
  auto module = b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  if (!module)
    return n.emitError() << "random numbers need a module", failure();
  if (!module.lookupSymbol(kRandomFunction)) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    Type i64 = b.getI64Type();
    auto decl = func::FuncOp::create(
        top, module.getLoc(), kRandomFunction,
        top.getFunctionType({i64, i64, i64, i64}, {}));
    decl.setPrivate();
  }
  auto type = RankedTensorType::get(shape, b.getF64Type());
  auto op = RandomOp::create(b, n.loc, type, sizes, normal,
                             intSeed ? b.getI64IntegerAttr(*intSeed)
                                     : IntegerAttr());
  return op.getResult();
}

namespace {

/// The seed attribute (a float in Random*, an int in Dropout), if given.
std::optional<double> seedAttr(NodeImporter &n) {
  if (!n.hasAttr("seed"))
    return std::nullopt;
  if (n.opType() == "Dropout")
    return static_cast<double>(n.attrInt("seed", 0));
  return static_cast<double>(n.attrFloat("seed", 0));
}

/// The output's element type: attribute `dtype`, else `fallback`.
FailureOr<Type> outputType(NodeImporter &n, Type fallback) {
  if (!n.hasAttr("dtype"))
    return fallback;
  Type type = convertElementType(n.attrInt("dtype", 1), n.ctx);
  if (!type || !isa<FloatType>(type))
    return n.emitError() << "dtype " << n.attrInt("dtype", 1)
                         << " is not a floating-point type",
           failure();
  return type;
}

/// low + (high - low) * U, or mean + scale * N, cast to `type`.
LogicalResult importRandom(NodeImporter &n, bool normal, bool like) {
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  Type fallback = n.b.getF32Type();
  if (like) {
    RankedTensorType input = n.inputType(0);
    shape.assign(input.getShape().begin(), input.getShape().end());
    for (int64_t d = 0; d < input.getRank(); ++d)
      if (input.isDynamicDim(d))
        sizes.push_back(n.extentOf(n.input(0), d));
    if (isa<FloatType>(input.getElementType()))
      fallback = input.getElementType();
  } else {
    shape = n.attrInts("shape", {});
    if (!n.hasAttr("shape") ||
        llvm::any_of(shape, [](int64_t d) { return d < 0; }))
      return n.emitError() << "attribute 'shape' must give non-negative "
                              "extents",
             failure();
  }
  FailureOr<Type> type = outputType(n, fallback);
  if (failed(type))
    return failure();
  FailureOr<Value> numbers =
      randomNumbers(n, shape, sizes, normal, seedAttr(n));
  if (failed(numbers))
    return failure();
  Type f64 = n.b.getF64Type();
  double offset = normal ? n.attrFloat("mean", 0) : n.attrFloat("low", 0);
  double factor = normal ? n.attrFloat("scale", 1)
                         : n.attrFloat("high", 1) - n.attrFloat("low", 0);
  FailureOr<Value> scaled = n.create<MulOp>(*numbers, n.splat(f64, factor));
  if (failed(scaled))
    return failure();
  FailureOr<Value> shifted = n.create<AddOp>(*scaled, n.splat(f64, offset));
  if (failed(shifted))
    return failure();
  return n.setResult(n.create<CastOp>(*shifted, *type));
}

LogicalResult importRandomUniform(NodeImporter &n) {
  return importRandom(n, /*normal=*/false, /*like=*/false);
}
LogicalResult importRandomNormal(NodeImporter &n) {
  return importRandom(n, /*normal=*/true, /*like=*/false);
}
LogicalResult importRandomUniformLike(NodeImporter &n) {
  return importRandom(n, /*normal=*/false, /*like=*/true);
}
LogicalResult importRandomNormalLike(NodeImporter &n) {
  return importRandom(n, /*normal=*/true, /*like=*/true);
}

/// Bernoulli: 1 where a uniform number falls below the probability (the
/// ONNX function body: RandomUniformLike, Greater, Cast).
LogicalResult importBernoulli(NodeImporter &n) {
  RankedTensorType p = n.inputType(0);
  if (!isa<FloatType>(p.getElementType()))
    return n.emitError() << "expects probabilities of a floating-point type",
           failure();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < p.getRank(); ++d)
    if (p.isDynamicDim(d))
      sizes.push_back(n.extentOf(n.input(0), d));
  FailureOr<Value> numbers = randomNumbers(n, p.getShape(), sizes,
                                           /*normal=*/false, seedAttr(n));
  if (failed(numbers))
    return failure();
  FailureOr<Value> wide = n.create<CastOp>(n.input(0), n.b.getF64Type());
  if (failed(wide))
    return failure();
  FailureOr<Value> drawn = n.create<GreaterOp>(*wide, *numbers);
  if (failed(drawn))
    return failure();
  Type type = p.getElementType();
  if (n.hasAttr("dtype")) {
    type = convertElementType(n.attrInt("dtype", 1), n.ctx);
    if (!type)
      return n.emitError() << "dtype " << n.attrInt("dtype", 1)
                           << " is not supported",
             failure();
  }
  return n.setResult(n.create<CastOp>(*drawn, type));
}

} // namespace

LogicalResult int21::onnx_import::importTrainingDropout(NodeImporter &n) {
  Value x = n.input(0);
  RankedTensorType type = n.inputType(0);
  Type f64 = n.b.getF64Type();
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(n.extentOf(x, d));
  FailureOr<Value> numbers =
      randomNumbers(n, type.getShape(), sizes, /*normal=*/false, seedAttr(n));
  if (failed(numbers))
    return failure();
  // The ratio (0.5 by default) as f64, compared with the numbers as numpy
  // compares its doubles.
  Value ratio = n.splat(f64, 0.5);
  if (n.hasInput(1)) {
    FailureOr<Value> given = n.scalarInput(1, "ratio");
    if (failed(given))
      return failure();
    FailureOr<Value> wide = n.create<CastOp>(*given, f64);
    if (failed(wide))
      return failure();
    ratio = *wide;
  }
  FailureOr<Value> keep = n.create<GreaterEqualOp>(*numbers, ratio);
  if (failed(keep))
    return failure();
  FailureOr<Value> kept = n.create<SubOp>(n.splat(f64, 1), ratio);
  if (failed(kept))
    return failure();
  FailureOr<Value> scale = n.create<DivOp>(n.splat(f64, 1), *kept);
  if (failed(scale))
    return failure();
  // A training mode read at run time: off keeps everything, unscaled.
  FailureOr<Value> training = n.scalarInput(2, "training_mode");
  if (failed(training))
    return failure();
  ElementsAttr fixed;
  if (!matchPattern(n.input(2), m_Constant(&fixed))) {
    FailureOr<Value> off = n.create<NotOp>(*training);
    if (failed(off))
      return failure();
    keep = n.create<OrOp>(*keep, *off);
    if (failed(keep))
      return failure();
    scale = n.create<WhereOp>(*training, *scale, n.splat(f64, 1));
    if (failed(scale))
      return failure();
  }
  FailureOr<Value> narrow = n.create<CastOp>(*scale, type.getElementType());
  if (failed(narrow))
    return failure();
  FailureOr<Value> scaled = n.create<MulOp>(x, *narrow);
  if (failed(scaled))
    return failure();
  FailureOr<Value> y = n.create<WhereOp>(
      *keep, *scaled, n.splat(type.getElementType(), 0));
  if (failed(y))
    return failure();
  n.setOutput(0, *y);
  if (n.outputUsed(1))
    n.setOutput(1, *keep);
  return success();
}

void int21::onnx_import::registerRandomOps(OpImportTable &table) {
  table["RandomUniform"] = {importRandomUniform, 1};
  table["RandomNormal"] = {importRandomNormal, 1};
  table["RandomUniformLike"] = {importRandomUniformLike, 1};
  table["RandomNormalLike"] = {importRandomNormalLike, 1};
  table["Bernoulli"] = {importBernoulli, 15};
  allowDynamicShapes(table,
                     {"RandomUniformLike", "RandomNormalLike", "Bernoulli"});
}
