//===- ResamplingOps.cpp - import of ONNX Resize, GridSample, RoiAlign ----===//
//
// Resize and Upsample become int21.resize with the output shape, the scales
// and the region of interest: constants where the inputs are, else read at
// run time (inputs of the model), the output's extents then computed in the
// program as ONNX's shape inference does (sizes may also be extents of
// other tensors). Upsample is Resize with the asymmetric transform and
// nearest rounding down.
// GridSample and RoiAlign map onto int21.grid_sample and int21.roi_align.
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

#include <cmath>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// The float values of constant input `i`.
FailureOr<SmallVector<double>> constantFloats(NodeImporter &n, unsigned i,
                                              StringRef what) {
  FailureOr<DenseElementsAttr> attr = n.constantInput(i, what);
  if (failed(attr))
    return failure();
  if (!isa<FloatType>(attr->getElementType()))
    return n.emitError() << "input '" << what << "' must hold floats",
           failure();
  SmallVector<double> values;
  for (const APFloat &v : attr->getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

/// The float values of input `i`: constants, or for an input of the model
/// (of static shape) its elements read at run time as f32 scalars (in
/// `values`, `constants` left empty).
LogicalResult floatsOf(NodeImporter &n, unsigned i, StringRef what,
                       SmallVector<double> &constants,
                       SmallVector<Value> &values) {
  RankedTensorType type = n.inputType(i);
  if (n.isRuntimeInput(i) && type.hasStaticShape() && type.getRank() == 1 &&
      isa<FloatType>(type.getElementType())) {
    OpBuilder &b = n.b;
    Type f32 = b.getF32Type();
    for (int64_t k = 0; k < type.getNumElements(); ++k) {
      Value element = tensor::ExtractOp::create(
          b, n.loc, n.input(i),
          ValueRange{arith::ConstantIndexOp::create(b, n.loc, k)});
      unsigned width = element.getType().getIntOrFloatBitWidth();
      if (width < 32 || element.getType().isBF16())
        element = arith::ExtFOp::create(b, n.loc, f32, element);
      else if (width > 32)
        element = arith::TruncFOp::create(b, n.loc, f32, element);
      values.push_back(element);
    }
    return success();
  }
  FailureOr<SmallVector<double>> c = constantFloats(n, i, what);
  if (failed(c))
    return failure();
  constants = *c;
  return success();
}

/// What a Resize or an Upsample node asks for, once its inputs are read.
/// Scales, sizes and the region are known when compiling or read at run
/// time (inputs of the model); sizes may also be extents the program
/// computes (a Shape of another tensor).
struct ResizeRequest {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestMode nearest = NearestMode::RoundPreferFloor;
  float cubicCoeffA = -0.75f;
  bool excludeOutside = false;
  float extrapolationValue = 0;
  /// One per dimension, constants or (scaleValues) read at run time; both
  /// empty when sizes are given instead.
  SmallVector<double> scales;
  SmallVector<Value> scaleValues;
  /// One per dimension; empty when scales are given instead.
  SmallVector<SymbolicExtent> sizes;
  /// Empty, or starts then ends, constants or read at run time.
  SmallVector<double> roi;
  SmallVector<Value> roiValues;
};

LogicalResult buildResize(NodeImporter &n, ResizeRequest &r) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  int64_t rank = x.getRank();
  OpBuilder &b = n.b;
  Location loc = n.loc;
  bool crop = r.transform == CoordinateTransform::TFCropAndResize;
  size_t roiCount = r.roiValues.empty() ? r.roi.size() : r.roiValues.size();
  if (crop && static_cast<int64_t>(roiCount) != 2 * rank)
    return n.emitError() << "tf_crop_and_resize needs a roi of " << 2 * rank
                         << " entries, got " << roiCount,
           failure();
  bool runtimeScales = !r.scaleValues.empty();
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  SmallVector<float> scales;
  SmallVector<Value> scaleValues;
  auto f32At = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  if (!r.sizes.empty()) {
    if (static_cast<int64_t>(r.sizes.size()) != rank)
      return n.emitError() << "sizes needs " << rank << " entries, got "
                           << r.sizes.size(),
             failure();
    // The scales are the sizes over the input's extents: constants where
    // both are known, else computed by the lowering at run time.
    bool known = x.hasStaticShape();
    for (int64_t d = 0; d < rank; ++d) {
      const SymbolicExtent &e = r.sizes[d];
      std::optional<int64_t> size;
      if (e.isConstant())
        size = e.constant;
      else if (e.source && !cast<RankedTensorType>(e.source.getType())
                                .isDynamicDim(e.dim))
        size = cast<RankedTensorType>(e.source.getType()).getDimSize(e.dim);
      if (size && (*size <= 0 || x.getDimSize(d) == 0))
        return n.emitError() << "cannot resize dimension " << d << " of size "
                             << x.getDimSize(d) << " to " << *size,
               failure();
      if (size) {
        shape.push_back(*size);
      } else {
        known = false;
        shape.push_back(ShapedType::kDynamic);
        Value extent = n.extentValue(e);
        sizes.push_back(e.fromData ? n.nonNegative(extent) : extent);
      }
    }
    if (known)
      for (int64_t d = 0; d < rank; ++d)
        scales.push_back(static_cast<float>(shape[d]) /
                         static_cast<float>(x.getDimSize(d)));
  } else {
    size_t count = runtimeScales ? r.scaleValues.size() : r.scales.size();
    if (static_cast<int64_t>(count) != rank)
      return n.emitError() << "scales needs " << rank << " entries, got "
                           << count,
             failure();
    for (int64_t d = 0; d < rank && !runtimeScales; ++d)
      if (!(r.scales[d] > 0))
        return n.emitError() << "scale " << r.scales[d] << " of dimension "
                             << d << " is not positive",
               failure();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t in = x.getDimSize(d);
      // As ONNX shape inference: floor(size * scale), in float, and for
      // tf_crop_and_resize of the region's extent.
      if (!runtimeScales && !ShapedType::isDynamic(in) &&
          (!crop || r.roiValues.empty())) {
        float scale = static_cast<float>(r.scales[d]);
        float extent = static_cast<float>(in);
        if (crop)
          extent *= static_cast<float>(r.roi[d + rank] - r.roi[d]);
        shape.push_back(static_cast<int64_t>(std::floor(extent * scale)));
        continue;
      }
      shape.push_back(ShapedType::kDynamic);
      if (!runtimeScales && !crop && r.scales[d] == 1.0) {
        sizes.push_back(n.extentOf(data, d));
        continue;
      }
      // At run time, in f32; the product is kept in [0, 2^53] (a NaN
      // counts as 0) so that it converts to an integer.
      Value extent =
          ShapedType::isDynamic(in)
              ? arith::SIToFPOp::create(
                    b, loc, b.getF32Type(),
                    arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                               n.extentOf(data, d)))
                    .getResult()
              : f32At(in);
      if (crop) {
        Value start = r.roiValues.empty() ? f32At(r.roi[d]) : r.roiValues[d];
        Value end = r.roiValues.empty() ? f32At(r.roi[d + rank])
                                        : r.roiValues[d + rank];
        extent = arith::MulFOp::create(
            b, loc, extent, arith::SubFOp::create(b, loc, end, start));
      }
      Value scale = runtimeScales ? r.scaleValues[d] : f32At(r.scales[d]);
      Value product = arith::MulFOp::create(b, loc, extent, scale);
      product = arith::MaxNumFOp::create(b, loc, product, f32At(0));
      product = arith::MinNumFOp::create(b, loc, product,
                                         f32At(9007199254740992.0));
      sizes.push_back(arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          arith::FPToSIOp::create(b, loc, b.getI64Type(), product)));
    }
    if (runtimeScales)
      scaleValues = r.scaleValues;
    else
      for (double s : r.scales)
        scales.push_back(static_cast<float>(s));
  }
  if (x.hasStaticShape() && !ShapedType::isDynamicShape(shape) &&
      failed(checkedNumElements(shape)))
    return n.emitError() << "the output shape is absurd", failure();
  SmallVector<float> roi;
  SmallVector<Value> roiValues;
  if (crop) {
    if (r.roiValues.empty())
      for (double v : r.roi)
        roi.push_back(static_cast<float>(v));
    else
      roiValues = r.roiValues;
  }
  return n.setResult(n.create<ResizeOp>(
      x.clone(shape), data, scaleValues, roiValues, sizes,
      ResizeModeAttr::get(n.ctx, r.mode),
      CoordinateTransformAttr::get(n.ctx, r.transform),
      NearestModeAttr::get(n.ctx, r.nearest), b.getF32FloatAttr(r.cubicCoeffA),
      b.getBoolAttr(r.excludeOutside), b.getF32FloatAttr(r.extrapolationValue),
      b.getDenseF32ArrayAttr(scales), b.getDenseF32ArrayAttr(roi)));
}

LogicalResult readMode(NodeImporter &n, ResizeRequest &r) {
  std::string mode = n.attrString("mode", "nearest");
  std::optional<ResizeMode> parsed = symbolizeResizeMode(mode);
  if (!parsed)
    return n.emitError() << "mode '" << mode << "' is not supported", failure();
  r.mode = *parsed;
  return success();
}

/// Reads the scales of input `i` into `r`, spread over the dimensions
/// `axes` name (every dimension when empty; the others keep scale 1).
LogicalResult readScales(NodeImporter &n, unsigned i, ArrayRef<int64_t> axes,
                         ResizeRequest &r) {
  int64_t rank = n.inputType(0).getRank();
  SmallVector<double> constants;
  SmallVector<Value> values;
  if (failed(floatsOf(n, i, "scales", constants, values)))
    return failure();
  size_t count = values.empty() ? constants.size() : values.size();
  if (!axes.empty() && count != axes.size())
    return n.emitError() << "scales needs one entry per axis", failure();
  if (axes.empty()) {
    r.scales = constants;
    r.scaleValues = values;
    return success();
  }
  if (values.empty()) {
    r.scales.assign(rank, 1.0);
    for (auto [k, a] : llvm::enumerate(axes))
      r.scales[a] = constants[k];
    return success();
  }
  Value one = arith::ConstantOp::create(n.b, n.loc, n.b.getF32FloatAttr(1));
  r.scaleValues.assign(rank, one);
  for (auto [k, a] : llvm::enumerate(axes))
    r.scaleValues[a] = values[k];
  return success();
}

LogicalResult importResize(NodeImporter &n) {
  ResizeRequest r;
  if (failed(readMode(n, r)))
    return failure();
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  unsigned scalesInput = 1, sizesInput = 0;
  if (n.sinceVersion < 11) {
    // Resize-10: scales only, sampled like Upsample.
    r.transform = CoordinateTransform::Asymmetric;
    r.nearest = NearestMode::Floor;
  } else {
    scalesInput = 2;
    sizesInput = 3;
    std::string transform =
        n.attrString("coordinate_transformation_mode", "half_pixel");
    std::optional<CoordinateTransform> t =
        symbolizeCoordinateTransform(transform);
    if (!t)
      return n.emitError() << "coordinate_transformation_mode '" << transform
                           << "' is not supported",
             failure();
    r.transform = *t;
    std::string nearest = n.attrString("nearest_mode", "round_prefer_floor");
    std::optional<NearestMode> nm = symbolizeNearestMode(nearest);
    if (!nm)
      return n.emitError() << "nearest_mode '" << nearest
                           << "' is not supported",
             failure();
    r.nearest = *nm;
    r.cubicCoeffA = n.attrFloat("cubic_coeff_a", -0.75f);
    r.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
    r.extrapolationValue = n.attrFloat("extrapolation_value", 0);
    if (n.attrInt("antialias", 0) != 0)
      return n.emitError() << "antialias is not supported", failure();
    std::string policy = n.attrString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch")
      return n.emitError() << "keep_aspect_ratio_policy '" << policy
                           << "' is not supported",
             failure();
    if (r.transform == CoordinateTransform::TFCropAndResize &&
        failed(floatsOf(n, 1, "roi", r.roi, r.roiValues)))
      return failure();
  }
  // Opset 18 names the dimensions that scales and sizes apply to.
  SmallVector<int64_t> axes = n.attrInts("axes");
  for (int64_t &a : axes) {
    FailureOr<int64_t> axis = n.normalizeAxis(a, rank);
    if (failed(axis))
      return failure();
    a = *axis;
  }
  // An empty scales tensor (opset 11) means sizes are given.
  RankedTensorType scalesType =
      n.hasInput(scalesInput) ? n.inputType(scalesInput) : RankedTensorType();
  if (scalesType && (!scalesType.hasStaticShape() ||
                     scalesType.getNumElements() != 0)) {
    if (failed(readScales(n, scalesInput, axes, r)))
      return failure();
  } else if (sizesInput && n.hasInput(sizesInput)) {
    FailureOr<SmallVector<SymbolicExtent>> sizes =
        n.extentsOf(sizesInput, "sizes");
    if (failed(sizes))
      return failure();
    if (!axes.empty() && sizes->size() != axes.size())
      return n.emitError() << "sizes needs one entry per axis", failure();
    if (axes.empty()) {
      r.sizes = *sizes;
    } else {
      for (int64_t d = 0; d < rank; ++d)
        r.sizes.push_back({x.getDimSize(d), n.input(0), d, Value()});
      for (auto [k, a] : llvm::enumerate(axes))
        r.sizes[a] = (*sizes)[k];
    }
  } else {
    return n.emitError() << "needs scales or sizes", failure();
  }
  if (!axes.empty() && (!r.roi.empty() || !r.roiValues.empty())) {
    size_t count = r.roiValues.empty() ? r.roi.size() : r.roiValues.size();
    if (count != 2 * axes.size())
      return n.emitError() << "roi needs two entries per axis", failure();
    if (r.roiValues.empty()) {
      SmallVector<double> roi(2 * rank, 0);
      for (int64_t d = 0; d < rank; ++d)
        roi[d + rank] = 1;
      for (auto [i, a] : llvm::enumerate(axes)) {
        roi[a] = r.roi[i];
        roi[a + rank] = r.roi[i + axes.size()];
      }
      r.roi = roi;
    } else {
      OpBuilder &b = n.b;
      Value zero = arith::ConstantOp::create(b, n.loc, b.getF32FloatAttr(0));
      Value one = arith::ConstantOp::create(b, n.loc, b.getF32FloatAttr(1));
      SmallVector<Value> roi(2 * rank, zero);
      for (int64_t d = 0; d < rank; ++d)
        roi[d + rank] = one;
      for (auto [i, a] : llvm::enumerate(axes)) {
        roi[a] = r.roiValues[i];
        roi[a + rank] = r.roiValues[i + axes.size()];
      }
      r.roiValues = roi;
    }
  }
  return buildResize(n, r);
}

LogicalResult importUpsample(NodeImporter &n) {
  ResizeRequest r;
  if (failed(readMode(n, r)))
    return failure();
  if (r.mode == ResizeMode::Cubic)
    return n.emitError() << "mode 'cubic' is not supported by Upsample",
           failure();
  r.transform = CoordinateTransform::Asymmetric;
  r.nearest = NearestMode::Floor;
  if (n.sinceVersion < 9) {
    for (const onnx::AttributeProto &attr : n.node.attribute())
      if (attr.name() == "scales")
        r.scales.assign(attr.floats().begin(), attr.floats().end());
  } else if (failed(readScales(n, 1, {}, r))) {
    return failure();
  }
  return buildResize(n, r);
}

LogicalResult importGridSample(NodeImporter &n) {
  std::string mode = n.attrString("mode", "bilinear");
  std::optional<GridSampleMode> parsedMode = symbolizeGridSampleMode(mode);
  if (!parsedMode)
    return n.emitError() << "mode '" << mode << "' is not supported", failure();
  std::string padding = n.attrString("padding_mode", "zeros");
  std::optional<GridPadding> parsedPadding = symbolizeGridPadding(padding);
  if (!parsedPadding)
    return n.emitError() << "padding_mode '" << padding << "' is not supported",
           failure();
  return n.setResult(n.create<GridSampleOp>(
      n.input(0), n.input(1), GridSampleModeAttr::get(n.ctx, *parsedMode),
      GridPaddingAttr::get(n.ctx, *parsedPadding),
      n.b.getBoolAttr(n.attrInt("align_corners", 0) != 0)));
}

LogicalResult importRoiAlign(NodeImporter &n) {
  std::string mode = n.attrString("mode", "avg");
  if (mode != "avg" && mode != "max")
    return n.emitError() << "mode '" << mode << "' is not supported", failure();
  // RoiAlign-10 has no half-pixel shift; from 16 it is the default.
  std::string transform =
      n.attrString("coordinate_transformation_mode",
                   n.sinceVersion < 16 ? "output_half_pixel" : "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return n.emitError() << "coordinate_transformation_mode '" << transform
                         << "' is not supported",
           failure();
  Builder &b = n.b;
  return n.setResult(n.create<RoiAlignOp>(
      n.input(0), n.input(1), n.input(2),
      b.getI64IntegerAttr(n.attrInt("output_height", 1)),
      b.getI64IntegerAttr(n.attrInt("output_width", 1)),
      b.getI64IntegerAttr(n.attrInt("sampling_ratio", 0)),
      b.getF32FloatAttr(n.attrFloat("spatial_scale", 1.0f)),
      b.getBoolAttr(transform == "half_pixel"), b.getBoolAttr(mode == "max")));
}

} // namespace

void int21::onnx_import::registerResamplingOps(OpImportTable &t) {
  t["Resize"] = {importResize, 10};
  t["Upsample"] = {importUpsample};
  t["GridSample"] = {importGridSample, 16};
  t["RoiAlign"] = {importRoiAlign, 10};
  allowDynamicShapes(t, {"Resize", "Upsample"});
  allowSymbolicShapes(t, {"Resize"});
}
