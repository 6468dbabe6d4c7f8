//===- Elementwise.cpp - one table-driven lowering for elementwise ops ----===//
//
// Every op with the ElementwiseBroadcastable trait becomes a linalg.generic
// whose indexing maps do the broadcasting; `buildScalar` is the table that
// says what each op computes on one element.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

/// Builds scalar arithmetic on values of one element type. Integers are
/// signless in the IR; `isUnsigned` says whether the int21 op read them as
/// unsigned, which picks the unsigned division, extrema and comparisons.
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;
  Type type;
  bool isUnsigned;

  bool isFloat() const { return isa<FloatType>(type); }
  Value constant(double v) {
    if (isFloat())
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type, static_cast<int64_t>(v)));
  }
  Value add(Value x, Value y) {
    return isFloat() ? Value(arith::AddFOp::create(b, loc, x, y))
                     : Value(arith::AddIOp::create(b, loc, x, y));
  }
  Value sub(Value x, Value y) {
    return isFloat() ? Value(arith::SubFOp::create(b, loc, x, y))
                     : Value(arith::SubIOp::create(b, loc, x, y));
  }
  Value mul(Value x, Value y) {
    return isFloat() ? Value(arith::MulFOp::create(b, loc, x, y))
                     : Value(arith::MulIOp::create(b, loc, x, y));
  }
  Value div(Value x, Value y) {
    if (isFloat())
      return arith::DivFOp::create(b, loc, x, y);
    return isUnsigned ? Value(arith::DivUIOp::create(b, loc, x, y))
                      : Value(arith::DivSIOp::create(b, loc, x, y));
  }
  Value max(Value x, Value y) {
    if (isFloat())
      return arith::MaximumFOp::create(b, loc, x, y);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, x, y))
                      : Value(arith::MaxSIOp::create(b, loc, x, y));
  }
  Value min(Value x, Value y) {
    if (isFloat())
      return arith::MinimumFOp::create(b, loc, x, y);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, x, y))
                      : Value(arith::MinSIOp::create(b, loc, x, y));
  }
  /// max(x, bound) and min(x, bound) against a constant bound that is no
  /// NaN (ReLU, Clip, the hard activations): for floats, x compared with the
  /// bound and selected, NaN kept (its compare is false), which x86 lowers
  /// to one max or min instruction whose NaN operand wins, where
  /// arith.maximumf and minimumf take a max, a NaN test and a blend. A
  /// negative zero stays negative: ReLU(-0.0) = -0.0.
  Value atLeast(Value x, double bound) { return clamp(x, bound, false); }
  Value atMost(Value x, double bound) { return clamp(x, bound, true); }
  Value clamp(Value x, double bound, bool upper) {
    Value c = constant(bound);
    if (!isFloat())
      return upper ? min(x, c) : max(x, c);
    Value beyond = arith::CmpFOp::create(
        b, loc, upper ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        x, c);
    return arith::SelectOp::create(b, loc, beyond, c, x);
  }
  /// x `pred` y, with float predicates ordered (NaN compares false). `ip` is
  /// given signed; unsigned integers use its unsigned counterpart.
  Value compare(arith::CmpFPredicate fp, arith::CmpIPredicate ip, Value x,
                Value y) {
    if (isFloat())
      return arith::CmpFOp::create(b, loc, fp, x, y);
    if (isUnsigned)
      ip = toUnsigned(ip);
    return arith::CmpIOp::create(b, loc, ip, x, y);
  }
  static arith::CmpIPredicate toUnsigned(arith::CmpIPredicate ip) {
    using IP = arith::CmpIPredicate;
    switch (ip) {
    case IP::slt:
      return IP::ult;
    case IP::sle:
      return IP::ule;
    case IP::sgt:
      return IP::ugt;
    case IP::sge:
      return IP::uge;
    default:
      return ip;
    }
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  /// Whether the shift amount `y` is below the bit width (read unsigned: a
  /// negative amount is as out of range as a huge one).
  Value shiftInRange(Value y) {
    Value width = constant(type.getIntOrFloatBitWidth());
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, y, width);
  }
  /// A logical shift (`shifted`, poison for amounts out of range) that
  /// shifts everything out, leaving 0, for amounts of the width or more.
  Value logicalShift(Value y, Value shifted) {
    return select(shiftInRange(y), shifted, constant(0));
  }
  /// -1, 0 or 1 by the sign of x (NaN stays NaN through the selects' 0);
  /// unsigned integers are never negative.
  Value sign(Value x) {
    Value zero = constant(0);
    Value positive =
        compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt, x, zero);
    Value negative =
        compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt, x, zero);
    return select(positive, constant(1), select(negative, constant(-1), zero));
  }
};

/// ONNX Cast of one element from `from` to `to` (both signless or float);
/// `fromUnsigned` and `toUnsigned` say how the int21 op read the integers.
Value castScalar(OpBuilder &b, Location loc, Value x, Type from, Type to,
                 bool fromUnsigned, bool toUnsigned) {
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  // Booleans convert as 0 and 1, not as signed 1-bit values. An integer
  // source decides between zero and sign extension (and uitofp/sitofp); a
  // float source between fptoui and fptosi by the target.
  bool isUnsignedCast =
      isa<FloatType>(from) ? toUnsigned : fromUnsigned || from.isInteger(1);
  return convertScalarToDtype(b, loc, x, to, isUnsignedCast);
}

/// x^y on integers that are read as unsigned: math.ipowi reads its exponent
/// as signed, so both are zero-extended to twice the width first; the low
/// bits of the power are the same.
Value unsignedPow(OpBuilder &b, Location loc, Value x, Value y) {
  Type type = x.getType();
  Type wide = b.getIntegerType(2 * type.getIntOrFloatBitWidth());
  Value power =
      math::IPowIOp::create(b, loc, arith::ExtUIOp::create(b, loc, wide, x),
                            arith::ExtUIOp::create(b, loc, wide, y));
  return arith::TruncIOp::create(b, loc, type, power);
}

/// What op `op` computes on one element: `args` are its operands' elements,
/// `resultType` the result's (signless) element type; `op`'s own types say
/// which integers are unsigned. Fails for ops or types the table does not
/// know.
FailureOr<Value> buildScalar(Operation *op, OpBuilder &b, Location loc,
                             ValueRange args, Type resultType) {
  Type type = args.front().getType();
  bool isUnsigned = isUnsignedElementType(op->getOperand(0).getType());
  ScalarBuilder s{b, loc, type, isUnsigned};
  Value x = args.front();
  Value y = args.size() > 1 ? args[1] : Value();
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  return TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](AddOp) { return s.add(x, y); })
      .Case([&](SubOp) { return s.sub(x, y); })
      .Case([&](MulOp) { return s.mul(x, y); })
      .Case([&](DivOp) { return s.div(x, y); })
      .Case([&](MaxOp) { return s.max(x, y); })
      .Case([&](MinOp) { return s.min(x, y); })
      .Case([&](PowOp) -> Value {
        if (s.isFloat())
          return math::PowFOp::create(b, loc, x, y);
        if (s.isUnsigned)
          return unsignedPow(b, loc, x, y);
        return math::IPowIOp::create(b, loc, x, y);
      })
      .Case([&](ModOp) -> Value {
        if (s.isFloat())
          return arith::RemFOp::create(b, loc, x, y);
        if (s.isUnsigned)
          return arith::RemUIOp::create(b, loc, x, y);
        // The remainder takes the divisor's sign (Python's %).
        Value r = arith::RemSIOp::create(b, loc, x, y);
        Value zero = s.constant(0);
        Value nonzero = s.compare(FP::ONE, IP::ne, r, zero);
        Value rNeg = s.compare(FP::OLT, IP::slt, r, zero);
        Value yNeg = s.compare(FP::OLT, IP::slt, y, zero);
        Value differ = arith::XOrIOp::create(b, loc, rNeg, yNeg);
        Value fix = arith::AndIOp::create(b, loc, nonzero, differ);
        return s.select(fix, s.add(r, y), r);
      })
      .Case([&](ShiftLeftOp) {
        return s.logicalShift(y, arith::ShLIOp::create(b, loc, x, y));
      })
      .Case([&](ShiftRightOp) -> Value {
        if (s.isUnsigned)
          return s.logicalShift(y, arith::ShRUIOp::create(b, loc, x, y));
        // An arithmetic shift by the width or more leaves only sign bits,
        // which is a shift by width - 1.
        Value last = s.constant(type.getIntOrFloatBitWidth() - 1);
        Value amount = s.select(s.shiftInRange(y), y, last);
        return arith::ShRSIOp::create(b, loc, x, amount);
      })
      .Case([&](AndOp) { return Value(arith::AndIOp::create(b, loc, x, y)); })
      .Case([&](OrOp) { return Value(arith::OrIOp::create(b, loc, x, y)); })
      .Case([&](XorOp) { return Value(arith::XOrIOp::create(b, loc, x, y)); })
      .Case([&](NotOp) {
        Value one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
        return Value(arith::XOrIOp::create(b, loc, x, one));
      })
      .Case([&](EqualOp) { return s.compare(FP::OEQ, IP::eq, x, y); })
      .Case([&](LessOp) { return s.compare(FP::OLT, IP::slt, x, y); })
      .Case([&](LessEqualOp) { return s.compare(FP::OLE, IP::sle, x, y); })
      .Case([&](GreaterOp) { return s.compare(FP::OGT, IP::sgt, x, y); })
      .Case([&](GreaterEqualOp) { return s.compare(FP::OGE, IP::sge, x, y); })
      .Case([&](WhereOp) { return s.select(x, y, args[2]); })
      .Case([&](CastOp castOp) {
        return castScalar(b, loc, x, type, resultType, isUnsigned,
                          isUnsignedElementType(castOp.getType()));
      })
      .Case([&](AbsOp) -> Value {
        if (s.isFloat())
          return math::AbsFOp::create(b, loc, x);
        if (s.isUnsigned)
          return x;
        return math::AbsIOp::create(b, loc, x);
      })
      .Case([&](NegOp) -> Value {
        if (s.isFloat())
          return arith::NegFOp::create(b, loc, x);
        return s.sub(s.constant(0), x);
      })
      .Case([&](SignOp) { return s.sign(x); })
      .Case([&](ReluOp) { return s.isUnsigned ? x : s.atLeast(x, 0); })
      .Case([&](ExpOp) { return s.exp(x); })
      .Case([&](LogOp) { return Value(math::LogOp::create(b, loc, x)); })
      .Case([&](SqrtOp) { return Value(math::SqrtOp::create(b, loc, x)); })
      .Case([&](RsqrtOp) { return Value(math::RsqrtOp::create(b, loc, x)); })
      .Case([&](ReciprocalOp) { return s.div(s.constant(1), x); })
      .Case([&](ErfOp) { return Value(math::ErfOp::create(b, loc, x)); })
      .Case([&](TanhOp) { return Value(math::TanhOp::create(b, loc, x)); })
      .Case([&](SigmoidOp) {
        Value negExp = s.exp(arith::NegFOp::create(b, loc, x));
        return s.div(s.constant(1), s.add(s.constant(1), negExp));
      })
      .Case([&](SinOp) { return Value(math::SinOp::create(b, loc, x)); })
      .Case([&](CosOp) { return Value(math::CosOp::create(b, loc, x)); })
      .Case([&](TanOp) { return Value(math::TanOp::create(b, loc, x)); })
      .Case([&](AsinOp) { return Value(math::AsinOp::create(b, loc, x)); })
      .Case([&](AcosOp) { return Value(math::AcosOp::create(b, loc, x)); })
      .Case([&](AtanOp) { return Value(math::AtanOp::create(b, loc, x)); })
      .Case([&](SinhOp) { return Value(math::SinhOp::create(b, loc, x)); })
      .Case([&](CoshOp) { return Value(math::CoshOp::create(b, loc, x)); })
      .Case([&](AsinhOp) { return Value(math::AsinhOp::create(b, loc, x)); })
      .Case([&](AcoshOp) { return Value(math::AcoshOp::create(b, loc, x)); })
      .Case([&](AtanhOp) { return Value(math::AtanhOp::create(b, loc, x)); })
      .Case([&](CeilOp) { return Value(math::CeilOp::create(b, loc, x)); })
      .Case([&](FloorOp) { return Value(math::FloorOp::create(b, loc, x)); })
      .Case(
          [&](RoundOp) { return Value(math::RoundEvenOp::create(b, loc, x)); })
      .Case([&](SoftplusOp) {
        return Value(math::Log1pOp::create(b, loc, s.exp(x)));
      })
      .Case([&](HardSwishOp) {
        Value t = s.add(s.mul(x, s.constant(1.0 / 6.0)), s.constant(0.5));
        return s.mul(x, s.atMost(s.atLeast(t, 0), 1));
      })
      .Case([&](LeakyReluOp leaky) {
        Value alpha = s.constant(leaky.getAlpha().convertToDouble());
        Value positive = s.compare(FP::OGE, IP::sge, x, s.constant(0));
        return s.select(positive, x, s.mul(alpha, x));
      })
      .Case([&](EluOp elu) {
        Value alpha = s.constant(elu.getAlpha().convertToDouble());
        Value positive = s.compare(FP::OGE, IP::sge, x, s.constant(0));
        Value expm1 = math::ExpM1Op::create(b, loc, x);
        return s.select(positive, x, s.mul(alpha, expm1));
      })
      .Case([&](HardSigmoidOp hs) {
        Value t = s.add(s.mul(s.constant(hs.getAlpha().convertToDouble()), x),
                        s.constant(hs.getBeta().convertToDouble()));
        return s.atLeast(s.atMost(t, 1), 0);
      })
      .Case([&](ClipOp clip) {
        // max with the lower bound first: with min > max every element
        // becomes max, as ONNX says.
        Value v = x;
        if (clip.getMinAttr())
          v = s.atLeast(v, clip.getMinAttr().getValueAsDouble());
        if (clip.getMaxAttr())
          v = s.atMost(v, clip.getMaxAttr().getValueAsDouble());
        return v;
      })
      .Default([](Operation *) { return failure(); });
}

struct ElementwiseToGeneric : ConversionPattern {
  ElementwiseToGeneric(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(
            converter, MatchTraitOpTypeTag(),
            TypeID::get<int21::OpTrait::ElementwiseBroadcastable>(),
            /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType =
        cast<RankedTensorType>(signlessType(op->getResult(0).getType()));
    if (failed(checkElementTypes(op, op->getOperandTypes(), rewriter)) ||
        failed(checkElementTypes(op, op->getResultTypes(), rewriter)))
      return failure();
    Location loc = op->getLoc();
    bool known = true;
    Value result = broadcastingGeneric(
        rewriter, loc, resultType, operands,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          FailureOr<Value> r =
              buildScalar(op, b, l, args, resultType.getElementType());
          known = succeeded(r);
          if (known)
            return *r;
          // A zero keeps the region well typed until the op is erased.
          Type type = resultType.getElementType();
          return arith::ConstantOp::create(
              b, l, cast<TypedAttr>(b.getZeroAttr(type)));
        });
    if (!known) {
      rewriter.eraseOp(result.getDefiningOp());
      return rewriter.notifyMatchFailure(op, "no scalar lowering");
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateElementwiseLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric>(converter, patterns.getContext());
}
