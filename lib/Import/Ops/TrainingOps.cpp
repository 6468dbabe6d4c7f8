//===- TrainingOps.cpp - ai.onnx.preview.training optimizers --------------===//
//
// Adagrad, Momentum (standard and Nesterov) and Adam of the
// ai.onnx.preview.training domain: one optimizer step over any number of
// tensors, elementwise. The learning rate and the step count are scalars
// read at run time; the arithmetic on them is done in f64 and cast to each
// tensor's type, as the ONNX reference's numpy does with Python floats.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// Elementwise arithmetic that stops at the first failure (a diagnostic
/// naming the node is emitted then; later calls give null values).
struct Arith {
  NodeImporter &n;
  bool ok = true;

  template <typename OpTy, typename... Args> Value op(Args... args) {
    if (!ok || (!args || ...))
      return ok = false, Value();
    FailureOr<Value> r = n.create<OpTy>(args...);
    if (failed(r))
      return ok = false, Value();
    return *r;
  }
  Value add(Value a, Value b) { return op<AddOp>(a, b); }
  Value sub(Value a, Value b) { return op<SubOp>(a, b); }
  Value mul(Value a, Value b) { return op<MulOp>(a, b); }
  Value div(Value a, Value b) { return op<DivOp>(a, b); }
  Value cast(Value a, Type t) {
    if (!ok || !a)
      return ok = false, Value();
    FailureOr<Value> r = n.create<CastOp>(a, t);
    if (failed(r))
      return ok = false, Value();
    return *r;
  }
  Value c(Type t, double v) { return n.splat(t, v); }
};

/// The inputs after R and T: `groups` lists of `count` tensors each (X, G,
/// then the optimizer's states), or failure when the count does not divide.
FailureOr<unsigned> tensorsPerGroup(NodeImporter &n, unsigned groups) {
  unsigned rest = n.numInputs() >= 2 ? n.numInputs() - 2 : 0;
  if (rest == 0 || rest % groups != 0)
    return n.emitError() << "expects R, T, then " << groups
                         << " lists of tensors of one length; got "
                         << n.numInputs() << " inputs",
           failure();
  unsigned count = rest / groups;
  if (n.numOutputs() > count * (groups - 1))
    return n.emitError() << "has " << n.numOutputs() << " outputs for "
                         << count << " tensors",
           failure();
  for (unsigned i = 0; i < count; ++i)
    if (!isa<FloatType>(n.inputType(2 + i).getElementType()))
      return n.emitError() << "input '" << n.node.input(2 + i)
                           << "' must be of a floating-point type",
             failure();
  return count;
}

/// R and T as f64 scalars (rank-0 tensors).
std::pair<Value, Value> rateAndStep(NodeImporter &n, Arith &a) {
  Type f64 = n.b.getF64Type();
  FailureOr<Value> r = n.scalarInput(0, "R");
  FailureOr<Value> t = n.scalarInput(1, "T");
  if (failed(r) || failed(t)) {
    a.ok = false;
    return {};
  }
  return {a.cast(*r, f64), a.cast(*t, f64)};
}

LogicalResult importAdagrad(NodeImporter &n) {
  FailureOr<unsigned> count = tensorsPerGroup(n, 3);
  if (failed(count))
    return failure();
  Arith a{n};
  Type f64 = n.b.getF64Type();
  auto [r, t] = rateAndStep(n, a);
  double decay = n.attrFloat("decay_factor", 0);
  double epsilon = n.attrFloat("epsilon", 1e-6f);
  double norm = n.attrFloat("norm_coefficient", 0);
  // r / (1 + t * decay)
  Value rate = a.div(r, a.add(a.c(f64, 1), a.mul(t, a.c(f64, decay))));
  for (unsigned i = 0; i < *count && a.ok; ++i) {
    Value x = n.input(2 + i), g = n.input(2 + *count + i),
          h = n.input(2 + 2 * *count + i);
    Type type = n.inputType(2 + i).getElementType();
    Value regularized = a.add(a.mul(a.c(type, norm), x), g);
    Value hNew = a.add(h, a.mul(regularized, regularized));
    Value adaptive = a.add(a.op<SqrtOp>(hNew), a.c(type, epsilon));
    Value xNew = a.sub(x, a.div(a.mul(a.cast(rate, type), regularized),
                                adaptive));
    if (!a.ok)
      break;
    n.setOutput(i, xNew);
    if (*count + i < n.numOutputs())
      n.setOutput(*count + i, hNew);
  }
  return success(a.ok);
}

LogicalResult importMomentum(NodeImporter &n) {
  FailureOr<unsigned> count = tensorsPerGroup(n, 3);
  if (failed(count))
    return failure();
  std::string mode = n.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return n.emitError() << "mode '" << mode
                         << "' is neither 'standard' nor 'nesterov'",
           failure();
  Arith a{n};
  Type f64 = n.b.getF64Type();
  auto [r, t] = rateAndStep(n, a);
  double alpha = n.attrFloat("alpha", 0), beta = n.attrFloat("beta", 0);
  double norm = n.attrFloat("norm_coefficient", 0);
  // beta from the second step on, 1 at the first (t = 0).
  Value first = a.op<LessEqualOp>(t, a.c(f64, 0));
  Value betaAdjusted = a.op<WhereOp>(first, a.c(f64, 1), a.c(f64, beta));
  for (unsigned i = 0; i < *count && a.ok; ++i) {
    Value x = n.input(2 + i), g = n.input(2 + *count + i),
          v = n.input(2 + 2 * *count + i);
    Type type = n.inputType(2 + i).getElementType();
    Value regularized = a.add(a.mul(a.c(type, norm), x), g);
    Value vNew = a.add(a.mul(a.c(type, alpha), v),
                       a.mul(a.cast(betaAdjusted, type), regularized));
    Value step = mode == "standard"
                     ? vNew
                     : a.add(regularized, a.mul(a.c(type, alpha), vNew));
    Value xNew = a.sub(x, a.mul(a.cast(r, type), step));
    if (!a.ok)
      break;
    n.setOutput(i, xNew);
    if (*count + i < n.numOutputs())
      n.setOutput(*count + i, vNew);
  }
  return success(a.ok);
}

LogicalResult importAdam(NodeImporter &n) {
  FailureOr<unsigned> count = tensorsPerGroup(n, 4);
  if (failed(count))
    return failure();
  Arith a{n};
  Type f64 = n.b.getF64Type();
  auto [r, t] = rateAndStep(n, a);
  double alpha = n.attrFloat("alpha", 0.9f), beta = n.attrFloat("beta", 0.999f);
  double epsilon = n.attrFloat("epsilon", 1e-6f);
  double norm = n.attrFloat("norm_coefficient", 0);
  double post = n.attrFloat("norm_coefficient_post", 0);
  // r * sqrt(1 - beta^t) / (1 - alpha^t) from the second step on.
  Value one = a.c(f64, 1);
  Value adjusted = a.div(
      a.mul(r, a.op<SqrtOp>(a.sub(one, a.op<PowOp>(a.c(f64, beta), t)))),
      a.sub(one, a.op<PowOp>(a.c(f64, alpha), t)));
  Value first = a.op<LessEqualOp>(t, a.c(f64, 0));
  Value rate = a.op<WhereOp>(first, r, adjusted);
  for (unsigned i = 0; i < *count && a.ok; ++i) {
    Value x = n.input(2 + i), g = n.input(2 + *count + i),
          v = n.input(2 + 2 * *count + i), h = n.input(2 + 3 * *count + i);
    Type type = n.inputType(2 + i).getElementType();
    Value regularized = a.add(a.mul(a.c(type, norm), x), g);
    Value vNew = a.add(a.mul(a.c(type, alpha), v),
                       a.mul(a.c(type, 1 - alpha), regularized));
    Value hNew = a.add(a.mul(a.c(type, beta), h),
                       a.mul(a.c(type, 1 - beta),
                             a.mul(regularized, regularized)));
    Value root = a.add(a.op<SqrtOp>(hNew), a.c(type, epsilon));
    Value xNew = a.sub(x, a.mul(a.cast(rate, type), a.div(vNew, root)));
    Value xFinal = a.mul(a.c(type, 1 - post), xNew);
    if (!a.ok)
      break;
    n.setOutput(i, xFinal);
    if (*count + i < n.numOutputs())
      n.setOutput(*count + i, vNew);
    if (2 * *count + i < n.numOutputs())
      n.setOutput(2 * *count + i, hNew);
  }
  return success(a.ok);
}

} // namespace

void int21::onnx_import::registerTrainingOps(OpImportTable &table) {
  table[trainingOpKey("Adagrad")] = {importAdagrad, 1};
  table[trainingOpKey("Momentum")] = {importMomentum, 1};
  table[trainingOpKey("Adam")] = {importAdam, 1};
}
