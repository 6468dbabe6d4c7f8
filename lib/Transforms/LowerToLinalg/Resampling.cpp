//===- Resampling.cpp - resize, grid_sample and roi_align -----------------===//
//
// Each is one parallel linalg.generic over the output whose body computes
// where an output element samples the input and reads the taps with
// tensor.extract. Resize maps every resized dimension's output coordinate to
// an input coordinate (f32, in the order of operations of the ONNX formulas,
// as ONNX Runtime does); dimensions that are copied stay a single tap at the
// output coordinate. GridSample reads its sample points from the grid and
// follows PyTorch's grid_sample (as ONNX Runtime does); RoiAlign averages
// (or takes the maximum of) bilinear samples in scf.for loops over each bin.
// Every tap index is clamped before it is read.
//
//===----------------------------------------------------------------------===//

#include "LowerToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace int21;
using namespace int21::lowering;

namespace {

/// The resized length of a dimension of `in` elements: `in * scale`, not
/// the output size rounded down from it (as in ONNX's reference, which the
/// backend tests follow; it is the output size when sizes were given).
double resizedLength(int64_t in, float scale) {
  return static_cast<double>(static_cast<float>(in) * scale);
}

/// The input coordinate of output coordinate x is a * x + c for every
/// transform; whether a dimension is a plain copy is decided with it.
std::pair<double, double> affineTransform(CoordinateTransform transform,
                                          int64_t in, int64_t out, double scale,
                                          double roiStart, double roiEnd) {
  switch (transform) {
  case CoordinateTransform::HalfPixel:
    return {1 / scale, 0.5 / scale - 0.5};
  case CoordinateTransform::PytorchHalfPixel:
    if (out <= 1)
      return {0, 0};
    return {1 / scale, 0.5 / scale - 0.5};
  case CoordinateTransform::AlignCorners:
    if (out <= 1)
      return {0, 0};
    return {double(in - 1) / (resizedLength(in, scale) - 1), 0};
  case CoordinateTransform::Asymmetric:
    return {1 / scale, 0};
  case CoordinateTransform::TFHalfPixelForNN:
    return {1 / scale, 0.5 / scale};
  case CoordinateTransform::TFCropAndResize:
    if (out <= 1)
      return {0, 0.5 * (roiStart + roiEnd) * double(in - 1)};
    return {(roiEnd - roiStart) * double(in - 1) /
                (resizedLength(in, scale) - 1),
            roiStart * double(in - 1)};
  case CoordinateTransform::HalfPixelSymmetric: {
    double adjustment = double(out) / (scale * double(in));
    double offset = double(in) / 2 * (1 - adjustment);
    return {1 / scale, offset + 0.5 / scale - 0.5};
  }
  }
  return {1, 0};
}

/// Scalar float arithmetic in one type, for the sampling bodies.
struct FloatMath {
  OpBuilder &b;
  Location l;
  Type type;
  Value c(double v) {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(type, v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, l, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, l, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, l, x, y); }
  Value floor(Value x) { return math::FloorOp::create(b, l, x); }
  Value min(Value x, Value y) { return arith::MinimumFOp::create(b, l, x, y); }
  Value max(Value x, Value y) { return arith::MaximumFOp::create(b, l, x, y); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, l, p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, l, cond, x, y);
  }
  Value fromIndex(Value i) {
    return arith::SIToFPOp::create(
        b, l, type, arith::IndexCastOp::create(b, l, b.getI64Type(), i));
  }
  /// The integer part of `x` (toward zero) as an index.
  Value toIndex(Value x) {
    return arith::IndexCastOp::create(
        b, l, b.getIndexType(),
        arith::FPToSIOp::create(b, l, b.getI64Type(), x));
  }
};

/// What the body of a resize needs of one dimension. Where the input and
/// output extents, the scale and the region are known when compiling, the
/// coordinate is computed with constants folded in double precision;
/// otherwise from these values (f32, computed once before the generic).
struct ResizeDim {
  bool known = true;
  bool copied = false;
  Value in;       // index: the input extent
  Value inF, outF; // f32: the input and output extents
  Value scale;    // f32
  Value roiStart, roiEnd;
};

/// Whether output coordinate x reads input coordinate x for any extent,
/// given a scale of 1.
bool identityAtScaleOne(CoordinateTransform transform) {
  switch (transform) {
  case CoordinateTransform::HalfPixel:
  case CoordinateTransform::PytorchHalfPixel:
  case CoordinateTransform::AlignCorners:
  case CoordinateTransform::Asymmetric:
  case CoordinateTransform::HalfPixelSymmetric:
    return true;
  case CoordinateTransform::TFHalfPixelForNN:
  case CoordinateTransform::TFCropAndResize:
    return false;
  }
  return false;
}

struct ResizeLowering : OpConversionPattern<ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkElementTypes(op, op.getInput().getType(), rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(signlessType(op.getType()));
    Type elementType = inType.getElementType();
    int64_t rank = inType.getRank();
    ResizeMode mode = op.getMode();
    CoordinateTransform transform = op.getCoordinateTransform();
    ArrayRef<float> scales = op.getScales(), roi = op.getRoi();
    ValueRange scaleValues = adaptor.getScaleValues(),
               roiValues = adaptor.getRoiValues();
    bool crop = transform == CoordinateTransform::TFCropAndResize;
    if (!scales.empty() && static_cast<int64_t>(scales.size()) != rank)
      return rewriter.notifyMatchFailure(op, "expects one scale per dimension");
    if (!scaleValues.empty() && static_cast<int64_t>(scaleValues.size()) != rank)
      return rewriter.notifyMatchFailure(op, "expects one scale per dimension");
    if (mode != ResizeMode::Nearest && !isa<FloatType>(elementType))
      return rewriter.notifyMatchFailure(op, "interpolates floats only");
    if (inType.hasStaticShape() && resultType.hasStaticShape() &&
        inType.getNumElements() == 0 && resultType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "resizes an empty tensor");
    if (crop && static_cast<int64_t>(roi.size()) != 2 * rank &&
        static_cast<int64_t>(roiValues.size()) != 2 * rank)
      return rewriter.notifyMatchFailure(op, "expects 2 * rank roi entries");

    // Weights and sums in f64 for f64 data, f32 otherwise.
    Type computeType =
        elementType.isF64() ? rewriter.getF64Type() : rewriter.getF32Type();
    Type f32 = rewriter.getF32Type();
    // (The values of the dimensions computed before the generic.)
    FloatMath before{rewriter, loc, f32};
    SmallVector<Value> outSizes(adaptor.getSizes());
    SmallVector<ResizeDim> dims(rank);
    unsigned nextSize = 0;
    for (int64_t d = 0; d < rank; ++d) {
      ResizeDim &dim = dims[d];
      int64_t in = inType.getDimSize(d), out = resultType.getDimSize(d);
      Value outIndex = resultType.isDynamicDim(d) ? outSizes[nextSize++]
                                                  : Value();
      dim.known = !ShapedType::isDynamic(in) && !ShapedType::isDynamic(out) &&
                  !scales.empty() && (!crop || !roi.empty());
      if (dim.known) {
        auto [a, c] =
            affineTransform(transform, in, out, scales[d], crop ? roi[d] : 0.0,
                            crop ? roi[d + rank] : 1.0);
        dim.copied = in == out && (in == 1 || (a == 1 && c == 0));
        continue;
      }
      // A scale of 1: given, or the output extent is the input's.
      bool sameExtent = false;
      if (scales.empty() && scaleValues.empty()) {
        if (!ShapedType::isDynamic(in))
          sameExtent = in == out;
        else if (auto extent =
                     outIndex ? outIndex.getDefiningOp<tensor::DimOp>()
                              : tensor::DimOp())
          sameExtent = (extent.getSource() == op.getInput() ||
                        extent.getSource() == input) &&
                       extent.getConstantIndex() == d;
      }
      if (((!scales.empty() && scales[d] == 1.0f) || sameExtent) &&
          identityAtScaleOne(transform)) {
        // The output extent is floor(in * 1): a copy.
        dim.copied = true;
        continue;
      }
      dim.in = ShapedType::isDynamic(in)
                   ? tensor::DimOp::create(rewriter, loc, input, d).getResult()
                   : arith::ConstantIndexOp::create(rewriter, loc, in)
                         .getResult();
      dim.inF = before.fromIndex(dim.in);
      dim.outF = outIndex ? before.fromIndex(outIndex) : before.c(out);
      if (!scaleValues.empty())
        dim.scale = scaleValues[d];
      else if (!scales.empty())
        dim.scale = before.c(scales[d]);
      else
        dim.scale = before.div(dim.outF, dim.inF);
      // Values read at run time are checked before the run.
      if (!scaleValues.empty()) {
        Value positive = before.cmp(arith::CmpFPredicate::OGT, dim.scale,
                                    before.c(0));
        Value finite =
            before.cmp(arith::CmpFPredicate::OLT, dim.scale,
                       before.c(std::numeric_limits<float>::infinity()));
        assertHolds(rewriter, loc,
                    arith::AndIOp::create(rewriter, loc, positive, finite),
                    "Resize: the scale of dimension " + Twine(d) +
                        " read at run time must be positive and finite");
      }
      if (outIndex && (ShapedType::isDynamic(in) || in == 0)) {
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value filled = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::sgt, dim.in, zero);
        Value empty = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, outIndex, zero);
        assertHolds(rewriter, loc,
                    arith::OrIOp::create(rewriter, loc, filled, empty),
                    "Resize: cannot resize the empty dimension " + Twine(d) +
                        " to a non-empty one");
      }
      if (crop) {
        dim.roiStart = roiValues.empty() ? before.c(roi[d]) : roiValues[d];
        dim.roiEnd =
            roiValues.empty() ? before.c(roi[d + rank]) : roiValues[d + rank];
      }
    }

    Value result = parallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          FloatMath fm{b, l, f32};
          auto f32Const = [&](double v) -> Value { return fm.c(v); };
          auto indexConst = [&](int64_t v) -> Value {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          // Per dimension: the taps (input indices) and their weights (none
          // for a single tap).
          SmallVector<SmallVector<Value>> taps(rank), weights(rank);
          Value outside;
          for (int64_t d = 0; d < rank; ++d) {
            const ResizeDim &dim = dims[d];
            Value index = linalg::IndexOp::create(b, l, d);
            if (dim.copied) {
              taps[d].push_back(index);
              continue;
            }
            int64_t in = inType.getDimSize(d), out = resultType.getDimSize(d);
            Value x = fm.fromIndex(index);
            Value scale = dim.known ? f32Const(scales[d]) : dim.scale;
            Value half = f32Const(0.5);
            auto halfPixel = [&]() -> Value {
              return fm.sub(fm.div(fm.add(x, half), scale), half);
            };
            // out > 1, for the transforms that map a single output to 0.
            auto outAboveOne = [&]() -> Value {
              return fm.cmp(arith::CmpFPredicate::OGT, dim.outF,
                            f32Const(1));
            };
            // in - 1, the last input coordinate.
            auto lastIn = [&]() -> Value {
              return dim.known ? f32Const(in - 1)
                               : fm.sub(dim.inF, f32Const(1));
            };
            Value coord;
            switch (transform) {
            case CoordinateTransform::HalfPixel:
              coord = halfPixel();
              break;
            case CoordinateTransform::PytorchHalfPixel:
              if (dim.known)
                coord = out > 1 ? halfPixel() : f32Const(0);
              else
                coord = fm.select(outAboveOne(), halfPixel(), f32Const(0));
              break;
            case CoordinateTransform::AlignCorners:
              if (dim.known) {
                coord = out > 1
                            ? fm.div(fm.mul(x, f32Const(in - 1)),
                                     f32Const(resizedLength(in, scales[d]) - 1))
                            : f32Const(0);
              } else {
                Value resized =
                    fm.sub(fm.mul(dim.inF, scale), f32Const(1));
                coord = fm.select(outAboveOne(),
                                  fm.div(fm.mul(x, lastIn()), resized),
                                  f32Const(0));
              }
              break;
            case CoordinateTransform::Asymmetric:
              coord = fm.div(x, scale);
              break;
            case CoordinateTransform::TFHalfPixelForNN:
              coord = fm.div(fm.add(x, half), scale);
              break;
            case CoordinateTransform::TFCropAndResize: {
              if (dim.known) {
                auto [a, c] = affineTransform(transform, in, out, scales[d],
                                              roi[d], roi[d + rank]);
                coord = fm.add(fm.mul(x, f32Const(a)), f32Const(c));
              } else {
                Value span = fm.sub(dim.roiEnd, dim.roiStart);
                Value resized =
                    fm.sub(fm.mul(dim.inF, scale), f32Const(1));
                Value a = fm.div(fm.mul(span, lastIn()), resized);
                Value c = fm.mul(dim.roiStart, lastIn());
                Value single = fm.mul(
                    fm.mul(f32Const(0.5), fm.add(dim.roiStart, dim.roiEnd)),
                    lastIn());
                coord = fm.select(outAboveOne(), fm.add(fm.mul(x, a), c),
                                  single);
              }
              Value below =
                  fm.cmp(arith::CmpFPredicate::OLT, coord, f32Const(0));
              Value above =
                  fm.cmp(arith::CmpFPredicate::OGT, coord, lastIn());
              Value beyond = arith::OrIOp::create(b, l, below, above);
              outside = outside ? arith::OrIOp::create(b, l, outside, beyond)
                                : beyond;
              break;
            }
            case CoordinateTransform::HalfPixelSymmetric: {
              Value offset;
              if (dim.known) {
                auto [a, c] =
                    affineTransform(transform, in, out, scales[d], 0, 1);
                offset = f32Const(c - (0.5 / scales[d] - 0.5));
              } else {
                Value adjustment =
                    fm.div(dim.outF, fm.mul(scale, dim.inF));
                offset = fm.mul(fm.div(dim.inF, f32Const(2)),
                                fm.sub(f32Const(1), adjustment));
              }
              coord = fm.add(halfPixel(), offset);
              break;
            }
            }
            Value inIndex = dim.known ? indexConst(in) : dim.in;
            Value lastIndex =
                dim.known ? indexConst(in - 1)
                          : arith::SubIOp::create(b, l, dim.in, indexConst(1))
                                .getResult();
            auto clampIndex = [&](Value i) -> Value {
              return arith::MaxSIOp::create(
                  b, l, arith::MinSIOp::create(b, l, i, lastIndex),
                  indexConst(0));
            };
            if (mode == ResizeMode::Nearest) {
              Value rounded;
              switch (op.getNearestMode()) {
              case NearestMode::RoundPreferFloor:
                rounded = math::CeilOp::create(b, l, fm.sub(coord, half));
                break;
              case NearestMode::RoundPreferCeil:
                rounded = fm.floor(fm.add(coord, half));
                break;
              case NearestMode::Floor:
                rounded = fm.floor(coord);
                break;
              case NearestMode::Ceil:
                rounded = math::CeilOp::create(b, l, coord);
                break;
              }
              taps[d].push_back(clampIndex(fm.toIndex(rounded)));
              continue;
            }
            Value floor = fm.floor(coord);
            Value t = fm.sub(coord, floor);
            Value first = fm.toIndex(floor);
            SmallVector<Value> w;
            int64_t firstOffset = 0;
            if (mode == ResizeMode::Linear) {
              w.push_back(fm.sub(f32Const(1), t));
              w.push_back(t);
            } else {
              // Keys' cubic convolution kernel with a = cubic_coeff_a, at
              // distances 1 + t, t, 1 - t and 2 - t.
              double ca = op.getCubicCoeffA().convertToFloat();
              Value A = f32Const(ca);
              Value one = f32Const(1);
              // |s| in [1, 2): ((a s - 5a) s + 8a) s - 4a.
              auto outer = [&](Value s) {
                return fm.sub(
                    fm.mul(fm.add(fm.mul(fm.sub(fm.mul(A, s), f32Const(5 * ca)),
                                         s),
                                  f32Const(8 * ca)),
                           s),
                    f32Const(4 * ca));
              };
              // |s| in [0, 1): ((a + 2) s - (a + 3)) s s + 1.
              auto inner = [&](Value s) {
                return fm.add(
                    fm.mul(fm.mul(fm.sub(fm.mul(f32Const(ca + 2), s),
                                         f32Const(ca + 3)),
                                  s),
                           s),
                    one);
              };
              Value oneMinusT = fm.sub(one, t);
              w.push_back(outer(fm.add(t, one)));
              w.push_back(inner(t));
              w.push_back(inner(oneMinusT));
              w.push_back(outer(fm.add(oneMinusT, one)));
              firstOffset = -1;
            }
            SmallVector<Value> raw;
            for (size_t i = 0; i < w.size(); ++i)
              raw.push_back(arith::AddIOp::create(
                  b, l, first, indexConst(firstOffset + int64_t(i))));
            if (mode == ResizeMode::Cubic && op.getExcludeOutside()) {
              // Taps outside the input weigh nothing; the rest are
              // renormalised to sum to 1.
              Value sum;
              for (size_t i = 0; i < w.size(); ++i) {
                Value inside = arith::AndIOp::create(
                    b, l,
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                          raw[i], indexConst(0)),
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                          raw[i], inIndex));
                w[i] = fm.select(inside, w[i], f32Const(0));
                sum = sum ? fm.add(sum, w[i]) : w[i];
              }
              for (Value &wi : w)
                wi = fm.div(wi, sum);
            }
            for (size_t i = 0; i < w.size(); ++i) {
              taps[d].push_back(clampIndex(raw[i]));
              weights[d].push_back(
                  computeType == f32
                      ? w[i]
                      : arith::ExtFOp::create(b, l, computeType, w[i]));
            }
          }

          // Sum over every combination of taps, weighted by the product of
          // the per-dimension weights.
          Value sum;
          SmallVector<size_t> choice(rank, 0);
          while (true) {
            SmallVector<Value> at;
            Value weight;
            for (int64_t d = 0; d < rank; ++d) {
              at.push_back(taps[d][choice[d]]);
              if (weights[d].empty())
                continue;
              Value w = weights[d][choice[d]];
              weight = weight ? arith::MulFOp::create(b, l, weight, w) : w;
            }
            Value v = tensor::ExtractOp::create(b, l, input, at);
            if (weight) {
              if (v.getType() != computeType)
                v = arith::ExtFOp::create(b, l, computeType, v);
              v = arith::MulFOp::create(b, l, weight, v);
            }
            sum = sum ? arith::AddFOp::create(b, l, sum, v) : v;
            int64_t d = rank - 1;
            while (d >= 0 && ++choice[d] == taps[d].size())
              choice[d--] = 0;
            if (d < 0)
              break;
          }
          if (sum.getType() != elementType)
            sum = arith::TruncFOp::create(b, l, elementType, sum);
          if (outside) {
            double value = op.getExtrapolationValue().convertToFloat();
            TypedAttr attr =
                isa<FloatType>(elementType)
                    ? TypedAttr(b.getFloatAttr(elementType, value))
                    : TypedAttr(b.getIntegerAttr(elementType,
                                                 static_cast<int64_t>(value)));
            sum = arith::SelectOp::create(
                b, l, outside, arith::ConstantOp::create(b, l, attr), sum);
          }
          return sum;
        },
        outSizes);
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value clampIndex(OpBuilder &b, Location l, Value i, int64_t size) {
  return arith::MaxSIOp::create(
      b, l,
      arith::MinSIOp::create(b, l, i,
                             arith::ConstantIndexOp::create(b, l, size - 1)),
      arith::ConstantIndexOp::create(b, l, 0));
}

/// Whether index `i` lies in [0, size).
Value inBounds(OpBuilder &b, Location l, Value i, int64_t size) {
  return arith::AndIOp::create(
      b, l,
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                            arith::ConstantIndexOp::create(b, l, 0)),
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                            arith::ConstantIndexOp::create(b, l, size)));
}

/// PyTorch's grid_sample: x[n, c] sampled at the grid point of
/// grid[n, ho, wo], with taps outside the input read as zeros after the
/// padding mode has moved the coordinates.
struct GridSampleLowering : OpConversionPattern<GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), grid = adaptor.getGrid();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = inType.getElementType();
    Type computeType =
        elementType.isF64() ? rewriter.getF64Type() : rewriter.getF32Type();
    int64_t height = inType.getDimSize(2), width = inType.getDimSize(3);
    bool alignCorners = op.getAlignCorners();
    GridPadding padding = op.getPadding();
    GridSampleMode mode = op.getMode();
    if (inType.getNumElements() == 0 && resultType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "samples an empty input");

    Value result = parallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          FloatMath m{b, l, computeType};
          Value n = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value h = linalg::IndexOp::create(b, l, 2);
          Value w = linalg::IndexOp::create(b, l, 3);
          auto gridAt = [&](int64_t k) -> Value {
            Value v = tensor::ExtractOp::create(
                b, l, grid,
                ValueRange{n, h, w, arith::ConstantIndexOp::create(b, l, k)});
            return v.getType() == computeType
                       ? v
                       : arith::ExtFOp::create(b, l, computeType, v);
          };
          // From [-1, 1] to pixel coordinates.
          auto unnormalize = [&](Value g, int64_t size) -> Value {
            if (alignCorners)
              return m.mul(m.div(m.add(g, m.c(1)), m.c(2)), m.c(size - 1));
            return m.div(m.sub(m.mul(m.add(g, m.c(1)), m.c(size)), m.c(1)),
                         m.c(2));
          };
          auto clip = [&](Value x, int64_t size) -> Value {
            return m.min(m.max(x, m.c(0)), m.c(size - 1));
          };
          // Reflects x into [twiceLow / 2, twiceHigh / 2].
          auto reflect = [&](Value x, int64_t twiceLow,
                             int64_t twiceHigh) -> Value {
            if (twiceLow == twiceHigh)
              return m.c(0);
            double low = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
            Value d = math::AbsFOp::create(b, l, m.sub(x, m.c(low)));
            Value extra = arith::RemFOp::create(b, l, d, m.c(span));
            Value flips = m.floor(m.div(d, m.c(span)));
            Value even =
                m.cmp(arith::CmpFPredicate::OEQ,
                      arith::RemFOp::create(b, l, flips, m.c(2)), m.c(0));
            return m.select(even, m.add(extra, m.c(low)),
                            m.add(m.sub(m.c(span), extra), m.c(low)));
          };
          // Where padding moves a coordinate before it is sampled.
          auto pad = [&](Value x, int64_t size) -> Value {
            if (padding == GridPadding::Border)
              return clip(x, size);
            if (padding == GridPadding::Reflection) {
              x = alignCorners ? reflect(x, 0, 2 * (size - 1))
                               : reflect(x, -1, 2 * size - 1);
              return clip(x, size);
            }
            return x;
          };
          // The pixel at integer coordinates (as floats), 0 outside.
          auto pixel = [&](Value fy, Value fx) -> Value {
            Value iy = m.toIndex(fy), ix = m.toIndex(fx);
            Value inside = arith::AndIOp::create(
                b, l, inBounds(b, l, iy, height), inBounds(b, l, ix, width));
            Value v = tensor::ExtractOp::create(
                b, l, input,
                ValueRange{n, c, clampIndex(b, l, iy, height),
                           clampIndex(b, l, ix, width)});
            if (v.getType() != computeType)
              v = arith::ExtFOp::create(b, l, computeType, v);
            return m.select(inside, v, m.c(0));
          };
          Value gx = unnormalize(gridAt(0), width);
          Value gy = unnormalize(gridAt(1), height);
          Value sum;
          if (mode == GridSampleMode::Nearest) {
            Value x = math::RoundEvenOp::create(b, l, pad(gx, width));
            Value y = math::RoundEvenOp::create(b, l, pad(gy, height));
            sum = pixel(y, x);
          } else if (mode == GridSampleMode::Bilinear) {
            Value x = pad(gx, width), y = pad(gy, height);
            Value x0 = m.floor(x), y0 = m.floor(y);
            Value x1 = m.add(x0, m.c(1)), y1 = m.add(y0, m.c(1));
            Value wx1 = m.sub(x, x0), wx0 = m.sub(x1, x);
            Value wy1 = m.sub(y, y0), wy0 = m.sub(y1, y);
            sum = m.add(m.add(m.mul(m.mul(wy0, wx0), pixel(y0, x0)),
                              m.mul(m.mul(wy0, wx1), pixel(y0, x1))),
                        m.add(m.mul(m.mul(wy1, wx0), pixel(y1, x0)),
                              m.mul(m.mul(wy1, wx1), pixel(y1, x1))));
          } else {
            // Bicubic (a = -0.75) on the unpadded coordinates; padding
            // moves each of the 4 x 4 taps.
            Value x0 = m.floor(gx), y0 = m.floor(gy);
            Value tx = m.sub(gx, x0), ty = m.sub(gy, y0);
            auto coefficients = [&](Value t) {
              double a = -0.75;
              auto outer = [&](Value s) {
                return m.sub(
                    m.mul(m.add(m.mul(m.sub(m.mul(m.c(a), s), m.c(5 * a)), s),
                                m.c(8 * a)),
                          s),
                    m.c(4 * a));
              };
              auto inner = [&](Value s) {
                return m.add(
                    m.mul(m.mul(m.sub(m.mul(m.c(a + 2), s), m.c(a + 3)), s), s),
                    m.c(1));
              };
              Value u = m.sub(m.c(1), t);
              return SmallVector<Value>{outer(m.add(t, m.c(1))), inner(t),
                                        inner(u), outer(m.add(u, m.c(1)))};
            };
            SmallVector<Value> cx = coefficients(tx), cy = coefficients(ty);
            for (int64_t i = 0; i < 4; ++i) {
              Value y = pad(m.add(y0, m.c(i - 1)), height);
              Value row;
              for (int64_t j = 0; j < 4; ++j) {
                Value x = pad(m.add(x0, m.c(j - 1)), width);
                Value v = m.mul(cx[j], pixel(y, x));
                row = row ? m.add(row, v) : v;
              }
              Value v = m.mul(cy[i], row);
              sum = sum ? m.add(sum, v) : v;
            }
          }
          if (sum.getType() != elementType)
            sum = arith::TruncFOp::create(b, l, elementType, sum);
          return sum;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ONNX Runtime's RoiAlign: per output element, a loop over the bin's
/// samples, each a bilinear interpolation (zero when the sample lies more
/// than one pixel outside the input).
struct RoiAlignLowering : OpConversionPattern<RoiAlignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RoiAlignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), rois = adaptor.getRois(),
          batchIndices = adaptor.getBatchIndices();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = inType.getElementType();
    Type computeType =
        elementType.isF64() ? rewriter.getF64Type() : rewriter.getF32Type();
    int64_t batch = inType.getDimSize(0), height = inType.getDimSize(2),
            width = inType.getDimSize(3);
    int64_t outH = op.getOutputHeight(), outW = op.getOutputWidth();
    int64_t ratio = op.getSamplingRatio();
    double scale = op.getSpatialScale().convertToFloat();
    bool halfPixel = op.getHalfPixel(), isMax = op.getMax();
    if (inType.getNumElements() == 0 && resultType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "pools an empty input");

    Value result = parallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          FloatMath m{b, l, computeType};
          Value r = linalg::IndexOp::create(b, l, 0);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value ph = linalg::IndexOp::create(b, l, 2);
          Value pw = linalg::IndexOp::create(b, l, 3);
          Value image = normalizeIndex(
              b, l, tensor::ExtractOp::create(b, l, batchIndices, r), batch);
          auto roi = [&](int64_t k) -> Value {
            Value v = tensor::ExtractOp::create(
                b, l, rois,
                ValueRange{r, arith::ConstantIndexOp::create(b, l, k)});
            if (v.getType() != computeType)
              v = arith::ExtFOp::create(b, l, computeType, v);
            return m.sub(m.mul(v, m.c(scale)), m.c(halfPixel ? 0.5 : 0));
          };
          Value x1 = roi(0), y1 = roi(1), x2 = roi(2), y2 = roi(3);
          Value roiW = m.sub(x2, x1), roiH = m.sub(y2, y1);
          if (!halfPixel) {
            roiW = m.max(roiW, m.c(1));
            roiH = m.max(roiH, m.c(1));
          }
          Value binH = m.div(roiH, m.c(outH)), binW = m.div(roiW, m.c(outW));
          Value gridH, gridW;
          if (ratio > 0) {
            gridH = gridW = arith::ConstantIndexOp::create(b, l, ratio);
          } else {
            gridH = arith::MaxSIOp::create(
                b, l, m.toIndex(math::CeilOp::create(b, l, binH)),
                arith::ConstantIndexOp::create(b, l, 0));
            gridW = arith::MaxSIOp::create(
                b, l, m.toIndex(math::CeilOp::create(b, l, binW)),
                arith::ConstantIndexOp::create(b, l, 0));
          }
          Value count =
              m.max(m.mul(m.fromIndex(gridH), m.fromIndex(gridW)), m.c(1));
          Value startY = m.add(y1, m.mul(m.fromIndex(ph), binH));
          Value startX = m.add(x1, m.mul(m.fromIndex(pw), binW));
          Value stepY = m.div(binH, m.fromIndex(gridH));
          Value stepX = m.div(binW, m.fromIndex(gridW));

          // One bilinear sample: the four weighted taps.
          auto sample = [&](OpBuilder &sb, Location sl, Value y,
                            Value x) -> SmallVector<Value> {
            FloatMath s{sb, sl, computeType};
            auto axis = [&](Value v, int64_t size) {
              // Returns the low and high taps and the weight of the high one.
              v = s.max(v, s.c(0));
              Value low = s.floor(v);
              Value atEnd =
                  s.cmp(arith::CmpFPredicate::OGE, low, s.c(size - 1));
              low = s.select(atEnd, s.c(size - 1), low);
              Value high = s.select(atEnd, low, s.add(low, s.c(1)));
              v = s.select(atEnd, low, v);
              return std::make_tuple(s.toIndex(low), s.toIndex(high),
                                     s.sub(v, low));
            };
            Value outside = arith::OrIOp::create(
                sb, sl,
                arith::OrIOp::create(
                    sb, sl, s.cmp(arith::CmpFPredicate::OLT, y, s.c(-1)),
                    s.cmp(arith::CmpFPredicate::OGT, y, s.c(height))),
                arith::OrIOp::create(
                    sb, sl, s.cmp(arith::CmpFPredicate::OLT, x, s.c(-1)),
                    s.cmp(arith::CmpFPredicate::OGT, x, s.c(width))));
            auto [yLow, yHigh, ly] = axis(y, height);
            auto [xLow, xHigh, lx] = axis(x, width);
            Value hy = s.sub(s.c(1), ly), hx = s.sub(s.c(1), lx);
            auto at = [&](Value iy, Value ix) -> Value {
              Value v = tensor::ExtractOp::create(
                  sb, sl, input,
                  ValueRange{image, c, clampIndex(sb, sl, iy, height),
                             clampIndex(sb, sl, ix, width)});
              return v.getType() == computeType
                         ? v
                         : arith::ExtFOp::create(sb, sl, computeType, v);
            };
            SmallVector<Value> taps = {s.mul(s.mul(hy, hx), at(yLow, xLow)),
                                       s.mul(s.mul(hy, lx), at(yLow, xHigh)),
                                       s.mul(s.mul(ly, hx), at(yHigh, xLow)),
                                       s.mul(s.mul(ly, lx), at(yHigh, xHigh))};
            for (Value &t : taps)
              t = s.select(outside, s.c(0), t);
            return taps;
          };

          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value init =
              isMax ? m.c(-std::numeric_limits<double>::infinity()) : m.c(0);
          auto outer = scf::ForOp::create(
              b, l, zero, gridH, one, init,
              [&](OpBuilder &ob, Location ol, Value iy, ValueRange accY) {
                FloatMath o{ob, ol, computeType};
                Value y = o.add(startY,
                                o.mul(o.add(o.fromIndex(iy), o.c(0.5)), stepY));
                auto inner = scf::ForOp::create(
                    ob, ol, zero, gridW, one, accY,
                    [&](OpBuilder &ib, Location il, Value ix, ValueRange accX) {
                      FloatMath i{ib, il, computeType};
                      Value x =
                          i.add(startX,
                                i.mul(i.add(i.fromIndex(ix), i.c(0.5)), stepX));
                      SmallVector<Value> taps = sample(ib, il, y, x);
                      Value acc = accX[0];
                      if (isMax) {
                        for (Value t : taps)
                          acc = i.max(acc, t);
                      } else {
                        acc = i.add(acc, i.add(i.add(taps[0], taps[1]),
                                               i.add(taps[2], taps[3])));
                      }
                      scf::YieldOp::create(ib, il, acc);
                    });
                scf::YieldOp::create(ob, ol, inner.getResult(0));
              });
          Value v = outer.getResult(0);
          if (!isMax)
            v = m.div(v, count);
          else
            v = m.select(m.cmp(arith::CmpFPredicate::OEQ, v,
                               m.c(-std::numeric_limits<double>::infinity())),
                         m.c(0), v);
          if (v.getType() != elementType)
            v = arith::TruncFOp::create(b, l, elementType, v);
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateResamplingLoweringPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ResizeLowering, GridSampleLowering, RoiAlignLowering>(
      converter, patterns.getContext());
}
