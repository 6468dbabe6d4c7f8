//===- RecurrentOps.cpp - import of ONNX RNN, GRU and LSTM ---------------===//
//
// A static sequence length unrolls the recurrence at import into int21 ops;
// a dynamic one makes it an scf.for over the time steps, the step's ops
// inside (kernels of the loop body); the batch may be dynamic in both. The
// input projection of all time steps is one matmul per direction; each step
// adds the recurrent matmul and applies the gates. With `sequence_lens`, a
// step beyond a batch entry's length keeps its state and writes zeros to Y,
// which also makes the reverse direction start at each entry's own last
// step.
//
//===----------------------------------------------------------------------===//

#include "Composer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// One activation function of the `activations` attribute with its
/// parameters.
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

struct RecurrentImporter {
  NodeImporter &n;
  Composer c;
  Cell cell;
  int64_t gates;
  int64_t hidden = 0, seqLength = 0, batch = 0, layout = 0;
  /// X as [T, B, I].
  Value xSteps;
  Type elementType;
  std::optional<float> clip;
  bool linearBeforeReset = false;
  SmallVector<Activation> activations;

  RecurrentImporter(NodeImporter &n, Cell cell)
      : n(n), c(n), cell(cell),
        gates(cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4) {}

  Value splat(double v) { return n.splat(elementType, v); }

  /// Parses `activations` with their alphas and betas (each list consumed
  /// in order by the functions that take a parameter), `perDirection`
  /// functions for each of `directions`.
  LogicalResult parseActivations(int64_t directions) {
    SmallVector<std::string> defaults;
    switch (cell) {
    case Cell::RNN:
      defaults = {"Tanh"};
      break;
    case Cell::GRU:
      defaults = {"Sigmoid", "Tanh"};
      break;
    case Cell::LSTM:
      defaults = {"Sigmoid", "Tanh", "Tanh"};
      break;
    }
    SmallVector<std::string> names;
    const onnx::AttributeProto *attr = nullptr;
    for (const onnx::AttributeProto &a : n.node.attribute())
      if (a.name() == "activations")
        attr = &a;
    if (attr) {
      for (const std::string &s : attr->strings())
        names.push_back(s);
    } else {
      for (int64_t d = 0; d < directions; ++d)
        llvm::append_range(names, defaults);
    }
    if (names.size() != defaults.size() * directions)
      return n.emitError() << "activations must name "
                           << defaults.size() * directions << " functions ("
                           << defaults.size() << " per direction), got "
                           << names.size(),
             failure();
    std::vector<float> alphas, betas;
    for (const onnx::AttributeProto &a : n.node.attribute()) {
      if (a.name() == "activation_alpha")
        alphas.assign(a.floats().begin(), a.floats().end());
      if (a.name() == "activation_beta")
        betas.assign(a.floats().begin(), a.floats().end());
    }
    size_t nextAlpha = 0, nextBeta = 0;
    for (const std::string &name : names) {
      Activation act{name};
      auto take = [](std::vector<float> &list, size_t &next, float dflt) {
        return next < list.size() ? list[next++] : dflt;
      };
      StringRef lower = name;
      if (lower.equals_insensitive("LeakyRelu")) {
        act.alpha = take(alphas, nextAlpha, 0.01f);
      } else if (lower.equals_insensitive("ThresholdedRelu") ||
                 lower.equals_insensitive("Elu")) {
        act.alpha = take(alphas, nextAlpha, 1.0f);
      } else if (lower.equals_insensitive("HardSigmoid")) {
        act.alpha = take(alphas, nextAlpha, 0.2f);
        act.beta = take(betas, nextBeta, 0.5f);
      } else if (lower.equals_insensitive("Affine") ||
                 lower.equals_insensitive("ScaledTanh")) {
        act.alpha = take(alphas, nextAlpha, 1.0f);
        act.beta = take(betas, nextBeta, 1.0f);
      } else if (!lower.equals_insensitive("Tanh") &&
                 !lower.equals_insensitive("Sigmoid") &&
                 !lower.equals_insensitive("Relu") &&
                 !lower.equals_insensitive("Softsign") &&
                 !lower.equals_insensitive("Softplus")) {
        return n.emitError() << "activation '" << name
                             << "' is not supported",
               failure();
      }
      activations.push_back(act);
    }
    return success();
  }

  /// f(x), after clipping x to [-clip, clip] when `clip` is set.
  Value apply(const Activation &act, Value x) {
    if (clip)
      x = c.op<ClipOp>(x, n.b.getF64FloatAttr(-*clip),
                       n.b.getF64FloatAttr(*clip));
    StringRef name = act.name;
    if (name.equals_insensitive("Tanh"))
      return c.op<TanhOp>(x);
    if (name.equals_insensitive("Sigmoid"))
      return c.op<SigmoidOp>(x);
    if (name.equals_insensitive("Relu"))
      return c.op<ReluOp>(x);
    if (name.equals_insensitive("LeakyRelu"))
      return c.op<LeakyReluOp>(x, n.b.getF32FloatAttr(act.alpha));
    if (name.equals_insensitive("Elu"))
      return c.op<EluOp>(x, n.b.getF32FloatAttr(act.alpha));
    if (name.equals_insensitive("HardSigmoid"))
      return c.op<HardSigmoidOp>(x, n.b.getF32FloatAttr(act.alpha),
                                 n.b.getF32FloatAttr(act.beta));
    if (name.equals_insensitive("Softplus"))
      return c.op<SoftplusOp>(x);
    if (name.equals_insensitive("Softsign"))
      return c.op<DivOp>(x, c.op<AddOp>(c.op<AbsOp>(x), splat(1)));
    if (name.equals_insensitive("Affine"))
      return c.op<AddOp>(c.op<MulOp>(x, splat(act.alpha)), splat(act.beta));
    if (name.equals_insensitive("ScaledTanh"))
      return c.op<MulOp>(c.op<TanhOp>(c.op<MulOp>(x, splat(act.beta))),
                         splat(act.alpha));
    // ThresholdedRelu: x if x > alpha else 0.
    Value above = c.op<GreaterOp>(x, splat(act.alpha));
    return c.op<WhereOp>(above, x, splat(0));
  }

  /// Input `i` of direction `d` as [rows...] (the direction axis dropped),
  /// or null when absent.
  Value perDirection(unsigned i, int64_t d) {
    if (!n.hasInput(i))
      return {};
    Value v = n.input(i);
    auto type = cast<RankedTensorType>(v.getType());
    return c.reshape(c.slice(v, 0, d, 1), type.getShape().drop_front());
  }

  /// What the steps of one direction share.
  struct Direction {
    bool reverse = false;
    ArrayRef<Activation> acts;
    /// R transposed ([H, G*H]), R's bias ([G*H]) and the peepholes ([3*H]),
    /// the last two null when absent.
    Value rT, rb, peephole;
  };

  Type lensElementType() {
    return getElementTypeOrSelf(n.input(4).getType());
  }

  /// Whether each batch entry is still inside its sequence at time step `t`
  /// (a scalar tensor of sequence_lens's type), as [B, 1].
  Value stepMask(Value t) {
    Value inside = c.op<LessOp>(t, n.input(4));
    return c.reshape(inside, {batch, 1});
  }

  /// Initial state input `i` of direction `d` as `type` ([B, H]), zeros
  /// when absent.
  Value initialState(unsigned i, int64_t d, RankedTensorType type) {
    if (!n.hasInput(i)) {
      if (!ShapedType::isDynamic(batch))
        return n.splat(elementType, 0, type.getShape());
      // Zeros of the run's batch (X's extent).
      return c.op<ExpandOp>(type, n.splat(elementType, 0),
                            ValueRange{n.extentOf(xSteps, 1)});
    }
    Value v = n.input(i);
    if (layout == 1)
      v = c.transpose(v, {1, 0, 2});
    v = c.reshape(c.slice(v, 0, d, 1),
                  cast<RankedTensorType>(v.getType()).getShape().drop_front());
    if (!v || v.getType() == type)
      return v;
    return tensor::CastOp::create(n.b, n.loc, type, v);
  }

  /// One time step of `dir`: `xt` the step's input projection with its
  /// biases ([B, G*H]), `h` and `cState` the state ([B, H]; cState for LSTM
  /// only), updated in place; `inside` the step mask of sequence_lens or
  /// null. Returns the step's Y ([B, H]).
  Value step(const Direction &dir, Value xt, Value &h, Value &cState,
             Value inside);

  /// The steps of `dir` as an scf.for over the sequence length (known at
  /// run time only): `h` and `cState` become the loop's final state, `y`
  /// the stacked outputs as [T, 1, B, H].
  LogicalResult loopSteps(const Direction &dir, Value projected, Value &h,
                          Value &cState, Value &y);

  LogicalResult run();
};

Value RecurrentImporter::step(const Direction &dir, Value xt, Value &h,
                              Value &cState, Value inside) {
  ArrayRef<Activation> acts = dir.acts;
  Value rT = dir.rT;
  Value newH, newC;
  switch (cell) {
  case Cell::RNN:
    newH = apply(acts[0], c.op<AddOp>(xt, c.op<MatMulOp>(h, rT)));
    break;
  case Cell::GRU: {
    Value xz = c.slice(xt, 1, 0, hidden);
    Value xr = c.slice(xt, 1, hidden, hidden);
    Value xh = c.slice(xt, 1, 2 * hidden, hidden);
    Value rZR = c.slice(rT, 1, 0, 2 * hidden);
    Value rH = c.slice(rT, 1, 2 * hidden, hidden);
    Value hZR = c.op<MatMulOp>(h, rZR);
    Value z = apply(acts[0], c.op<AddOp>(xz, c.slice(hZR, 1, 0, hidden)));
    Value rGate =
        apply(acts[0], c.op<AddOp>(xr, c.slice(hZR, 1, hidden, hidden)));
    Value candidateIn;
    if (linearBeforeReset) {
      Value hH = c.op<MatMulOp>(h, rH);
      if (dir.rb)
        hH = c.op<AddOp>(hH, c.slice(dir.rb, 0, 2 * hidden, hidden));
      candidateIn = c.op<AddOp>(xh, c.op<MulOp>(rGate, hH));
    } else {
      candidateIn =
          c.op<AddOp>(xh, c.op<MatMulOp>(c.op<MulOp>(rGate, h), rH));
    }
    Value candidate = apply(acts[1], candidateIn);
    // (1 - z) * candidate + z * h = candidate + z * (h - candidate)
    newH = c.op<AddOp>(candidate, c.op<MulOp>(z, c.op<SubOp>(h, candidate)));
    break;
  }
  case Cell::LSTM: {
    Value peephole = dir.peephole;
    Value all = c.op<AddOp>(xt, c.op<MatMulOp>(h, rT));
    Value i = c.slice(all, 1, 0, hidden);
    Value o = c.slice(all, 1, hidden, hidden);
    Value f = c.slice(all, 1, 2 * hidden, hidden);
    Value g = c.slice(all, 1, 3 * hidden, hidden);
    if (peephole) {
      i = c.op<AddOp>(i, c.op<MulOp>(cState, c.slice(peephole, 0, 0, hidden)));
      f = c.op<AddOp>(
          f, c.op<MulOp>(cState, c.slice(peephole, 0, 2 * hidden, hidden)));
    }
    i = apply(acts[0], i);
    f = apply(acts[0], f);
    g = apply(acts[1], g);
    newC = c.op<AddOp>(c.op<MulOp>(f, cState), c.op<MulOp>(i, g));
    if (peephole)
      o = c.op<AddOp>(o,
                      c.op<MulOp>(newC, c.slice(peephole, 0, hidden, hidden)));
    o = apply(acts[0], o);
    newH = c.op<MulOp>(o, apply(acts[2], newC));
    break;
  }
  }
  Value y = newH;
  if (inside) {
    newH = c.op<WhereOp>(inside, newH, h);
    if (newC)
      newC = c.op<WhereOp>(inside, newC, cState);
    y = c.op<WhereOp>(inside, y, n.splat(elementType, 0));
  }
  h = newH;
  cState = newC;
  return y;
}

LogicalResult RecurrentImporter::loopSteps(const Direction &dir,
                                           Value projected, Value &h,
                                           Value &cState, Value &y) {
  OpBuilder &b = n.b;
  Location loc = n.loc;
  Value count = n.extentOf(xSteps, 0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto stateType = cast<RankedTensorType>(h.getType());
  // A batch known at run time only: X's extent. The state is viewed at it
  // wherever the loop gives it (iteration arguments and results), so every
  // step's extents are X's, checked once before the run.
  Value batchExtent =
      stateType.isDynamicDim(0) ? n.extentOf(xSteps, 1) : Value();
  // Y of every step, [T, B, H].
  SmallVector<Value> ySizes{count};
  if (batchExtent)
    ySizes.push_back(batchExtent);
  auto stackType = RankedTensorType::get(
      {ShapedType::kDynamic, batch, hidden}, elementType);
  Value stack = tensor::EmptyOp::create(b, loc, stackType, ySizes);
  SmallVector<Value> inits{h};
  if (cState)
    inits.push_back(cState);
  inits.push_back(stack);
  auto atBatch = [&](Value v) -> Value {
    if (!batchExtent)
      return v;
    SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes{batchExtent, b.getIndexAttr(hidden)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, stateType, v, offsets, sizes,
                                          strides);
  };
  if (batchExtent) {
    b.getContext()->getOrLoadDialect<cf::ControlFlowDialect>();
    std::string node = "node '" + n.displayName() + "': ";
    for (auto [value, what] : {std::pair<Value, StringRef>{h, "initial_h"},
                               {cState, "initial_c"}}) {
      if (!value || !n.hasInput(what == "initial_h" ? 5 : 6))
        continue;
      Value same = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          tensor::DimOp::create(b, loc, value, 0), batchExtent);
      cf::AssertOp::create(b, loc, same,
                           node + what.str() +
                               "'s batch extent must match X's");
    }
  }
  auto loop = scf::ForOp::create(b, loc, zero, count, one, inits);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *body = loop.getBody();
    if (body->mightHaveTerminator())
      body->getTerminator()->erase();
    b.setInsertionPointToEnd(body);
    Value s = loop.getInductionVar();
    Value t = dir.reverse
                  ? arith::SubIOp::create(
                        b, loc, arith::SubIOp::create(b, loc, count, one), s)
                        .getResult()
                  : s;
    // The step's projection, [B, G*H].
    SmallVector<OpFoldResult> offsets{t, b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                    batchExtent
                                        ? OpFoldResult(batchExtent)
                                        : OpFoldResult(b.getIndexAttr(batch)),
                                    b.getIndexAttr(gates * hidden)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    Value xt = tensor::ExtractSliceOp::create(
        b, loc,
        RankedTensorType::get({batch, gates * hidden}, elementType),
        projected, offsets, sizes, strides);
    Value inside;
    if (n.hasInput(4)) {
      Type lensType = lensElementType();
      Value position = arith::IndexCastOp::create(b, loc, lensType, t);
      Value scalar = tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({}, lensType), position);
      inside = stepMask(scalar);
    }
    Value stepH = atBatch(loop.getRegionIterArgs()[0]);
    Value stepC = cState ? atBatch(loop.getRegionIterArgs()[1]) : Value();
    Value stepY = step(dir, xt, stepH, stepC, inside);
    if (c.hasFailed())
      return failure();
    auto cast = [&](Value v) {
      return v.getType() == stateType
                 ? v
                 : tensor::CastOp::create(b, loc, stateType, v).getResult();
    };
    SmallVector<Value> yields{cast(stepH)};
    if (cState)
      yields.push_back(cast(stepC));
    sizes[2] = b.getIndexAttr(hidden);
    yields.push_back(tensor::InsertSliceOp::create(
        b, loc, cast(stepY), loop.getRegionIterArgs().back(), offsets, sizes,
        strides));
    scf::YieldOp::create(b, loc, yields);
  }
  h = atBatch(loop.getResult(0));
  if (cState)
    cState = atBatch(loop.getResult(1));
  y = c.reshape(loop.getResults().back(),
                {ShapedType::kDynamic, 1, batch, hidden});
  return success();
}

LogicalResult RecurrentImporter::run() {
  RankedTensorType xType = n.inputType(0);
  if (xType.getRank() != 3)
    return n.emitError() << "X must have rank 3, got rank " << xType.getRank(),
           failure();
  elementType = xType.getElementType();
  if (!isa<FloatType>(elementType))
    return n.emitError() << "X must hold floats, not " << elementType,
           failure();
  layout = n.attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return n.emitError() << "layout must be 0 or 1, got " << layout, failure();
  Value x = n.input(0);
  if (layout == 1)
    x = c.transpose(x, {1, 0, 2}); // [B, T, I] -> [T, B, I]
  if (c.hasFailed())
    return failure();
  xSteps = x;
  auto seqType = cast<RankedTensorType>(x.getType());
  seqLength = seqType.getDimSize(0);
  batch = seqType.getDimSize(1);
  int64_t inputSize = seqType.getDimSize(2);

  if (ShapedType::isDynamic(inputSize))
    return n.emitError() << "X's input size (its last extent) must be static",
           failure();
  for (auto [i, name] : {std::pair<unsigned, StringRef>{1, "W"},
                         {2, "R"},
                         {3, "B"},
                         {7, "P"}})
    if (n.hasInput(i) && !n.inputType(i).hasStaticShape())
      return n.emitError() << name << " must have a static shape, not "
                           << n.inputType(i),
             failure();
  std::string direction = n.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.emitError() << "direction '" << direction << "' is not supported "
                         << "(forward, reverse or bidirectional)",
           failure();
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  hidden = n.attrInt("hidden_size", 0);
  RankedTensorType wType = n.inputType(1);
  if (hidden <= 0 && wType.getRank() == 3)
    hidden = wType.getDimSize(1) / gates;
  if (hidden <= 0)
    return n.emitError() << "hidden_size must be positive", failure();
  int64_t width = gates * hidden;
  auto expect = [&](unsigned i, ArrayRef<int64_t> shape,
                    StringRef name) -> LogicalResult {
    if (!n.hasInput(i))
      return success();
    if (failed(verifyCompatibleShape(n.inputType(i).getShape(), shape))) {
      std::string dims;
      for (auto [k, s] : llvm::enumerate(shape))
        dims += (k ? "x" : "") +
                (ShapedType::isDynamic(s) ? "?" : std::to_string(s));
      return n.emitError() << name << " must be [" << dims << "]", failure();
    }
    return success();
  };
  SmallVector<int64_t> stateShape =
      layout == 0 ? SmallVector<int64_t>{directions, batch, hidden}
                  : SmallVector<int64_t>{batch, directions, hidden};
  if (failed(expect(1, {directions, width, inputSize}, "W")) ||
      failed(expect(2, {directions, width, hidden}, "R")) ||
      failed(expect(3, {directions, 2 * width}, "B")) ||
      failed(expect(4, {batch}, "sequence_lens")) ||
      failed(expect(5, stateShape, "initial_h")))
    return failure();
  if (cell == Cell::LSTM &&
      (failed(expect(6, stateShape, "initial_c")) ||
       failed(expect(7, {directions, 3 * hidden}, "P"))))
    return failure();
  if (n.hasAttr("clip"))
    clip = n.attrFloat("clip", 0);
  linearBeforeReset = cell == Cell::GRU && n.attrInt("linear_before_reset", 0);
  if (cell == Cell::LSTM && n.attrInt("input_forget", 0))
    return n.emitError() << "input_forget=1 is not supported", failure();
  if (failed(parseActivations(directions)))
    return failure();

  // Per direction: the input projection of every step, the recurrent
  // weights, the initial state; then the steps, unrolled when the sequence
  // length is static, an scf.for over the time steps otherwise.
  // Y per time step and direction ([1, D, B, H] pieces) when unrolled, per
  // direction ([T, 1, B, H]) when looped.
  SmallVector<SmallVector<Value>> outputs(
      ShapedType::isDynamic(seqLength) ? 1 : seqLength,
      SmallVector<Value>(directions));
  SmallVector<Value> finalH, finalC;
  int64_t actsPerDirection = activations.size() / directions;
  RankedTensorType stateType =
      RankedTensorType::get({batch, hidden}, elementType);
  for (int64_t d = 0; d < directions && !c.hasFailed(); ++d) {
    Direction dir;
    dir.reverse = direction == "reverse" || d == 1;
    dir.acts =
        ArrayRef(activations).slice(d * actsPerDirection, actsPerDirection);
    Value w = perDirection(1, d), r = perDirection(2, d);
    Value wT = c.transpose(w, {1, 0}); // [I, G*H]
    dir.rT = c.transpose(r, {1, 0});   // [H, G*H]
    // All steps' input projections at once: [T, B, G*H].
    Value projected = c.op<MatMulOp>(x, wT);
    Value bias = perDirection(3, d); // [2*G*H]: Wb then Rb.
    if (bias) {
      Value wb = c.slice(bias, 0, 0, width);
      dir.rb = c.slice(bias, 0, width, width);
      if (cell == Cell::GRU && linearBeforeReset) {
        // Rb of the hidden gate stays inside the reset product.
        projected = c.op<AddOp>(projected, wb);
        Value rbZR = c.slice(dir.rb, 0, 0, 2 * hidden);
        Value zeros = n.splat(elementType, 0, {hidden});
        projected = c.op<AddOp>(projected, c.concat({rbZR, zeros}, 0));
      } else {
        projected = c.op<AddOp>(projected, c.op<AddOp>(wb, dir.rb));
      }
    }
    dir.peephole = cell == Cell::LSTM ? perDirection(7, d) : Value();
    Value h = initialState(5, d, stateType);
    Value cState =
        cell == Cell::LSTM ? initialState(6, d, stateType) : Value();
    if (c.hasFailed())
      break;

    if (!ShapedType::isDynamic(seqLength)) {
      for (int64_t s = 0; s < seqLength && !c.hasFailed(); ++s) {
        int64_t t = dir.reverse ? seqLength - 1 - s : s;
        Value xt = c.reshape(c.slice(projected, 0, t, 1), {batch, width});
        Value inside;
        if (n.hasInput(4))
          inside = stepMask(n.splat(lensElementType(), t));
        Value y = step(dir, xt, h, cState, inside);
        outputs[t][d] = c.reshape(y, {1, 1, batch, hidden});
      }
    } else if (failed(loopSteps(dir, projected, h, cState, outputs[0][d]))) {
      return failure();
    }
    finalH.push_back(c.reshape(h, {1, batch, hidden}));
    if (cell == Cell::LSTM)
      finalC.push_back(c.reshape(cState, {1, batch, hidden}));
  }
  if (c.hasFailed())
    return failure();

  // Y: [T, D, B, H] (layout 1: [B, T, D, H]); Y_h, Y_c: [D, B, H]
  // (layout 1: [B, D, H]).
  if (n.outputUsed(0)) {
    SmallVector<Value> steps;
    for (SmallVector<Value> &perStep : outputs)
      steps.push_back(c.concat(perStep, 1));
    Value y = c.concat(steps, 0);
    if (layout == 1)
      y = c.transpose(y, {2, 0, 1, 3});
    if (failed(c.setOutput(0, y)))
      return failure();
  }
  auto state = [&](ArrayRef<Value> perDirection) {
    Value v = c.concat(perDirection, 0);
    return layout == 1 ? c.transpose(v, {1, 0, 2}) : v;
  };
  if (n.outputUsed(1) && failed(c.setOutput(1, state(finalH))))
    return failure();
  if (cell == Cell::LSTM && n.outputUsed(2) &&
      failed(c.setOutput(2, state(finalC))))
    return failure();
  return success();
}

template <Cell cell> LogicalResult importRecurrent(NodeImporter &n) {
  RecurrentImporter importer(n, cell);
  return importer.run();
}

} // namespace

void int21::onnx_import::registerRecurrentOps(OpImportTable &t) {
  t["RNN"] = {importRecurrent<Cell::RNN>, 7};
  t["GRU"] = {importRecurrent<Cell::GRU>, 7};
  t["LSTM"] = {importRecurrent<Cell::LSTM>, 7};
  allowDynamicShapes(t, {"RNN", "GRU", "LSTM"});
}
