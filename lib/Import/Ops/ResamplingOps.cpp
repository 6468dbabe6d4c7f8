//===- ResamplingOps.cpp - import of ONNX Resize, GridSample, RoiAlign ----===//
//
// Resize and Upsample become int21.resize with the output shape, the scales
// and the region of interest resolved from constant inputs (Upsample is
// Resize with the asymmetric transform and nearest rounding down).
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

/// What a Resize or an Upsample node asks for, once its inputs are read.
struct ResizeRequest {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestMode nearest = NearestMode::RoundPreferFloor;
  float cubicCoeffA = -0.75f;
  bool excludeOutside = false;
  float extrapolationValue = 0;
  /// One per dimension; empty when sizes are given instead.
  SmallVector<double> scales;
  /// One per dimension; empty when scales are given instead.
  SmallVector<int64_t> sizes;
  /// Empty, or starts then ends.
  SmallVector<double> roi;
};

LogicalResult buildResize(NodeImporter &n, ResizeRequest &r) {
  RankedTensorType x = n.inputType(0);
  int64_t rank = x.getRank();
  bool crop = r.transform == CoordinateTransform::TFCropAndResize;
  if (crop && static_cast<int64_t>(r.roi.size()) != 2 * rank)
    return n.emitError() << "tf_crop_and_resize needs a roi of " << 2 * rank
                         << " entries, got " << r.roi.size(),
           failure();
  SmallVector<int64_t> shape;
  SmallVector<float> scales;
  if (!r.sizes.empty()) {
    if (static_cast<int64_t>(r.sizes.size()) != rank)
      return n.emitError() << "sizes needs " << rank << " entries, got "
                           << r.sizes.size(),
             failure();
    for (int64_t d = 0; d < rank; ++d) {
      if (r.sizes[d] <= 0 || x.getDimSize(d) == 0)
        return n.emitError() << "cannot resize dimension " << d << " of size "
                             << x.getDimSize(d) << " to " << r.sizes[d],
               failure();
      shape.push_back(r.sizes[d]);
      scales.push_back(static_cast<float>(r.sizes[d]) /
                       static_cast<float>(x.getDimSize(d)));
    }
  } else {
    if (static_cast<int64_t>(r.scales.size()) != rank)
      return n.emitError() << "scales needs " << rank << " entries, got "
                           << r.scales.size(),
             failure();
    for (int64_t d = 0; d < rank; ++d) {
      float scale = static_cast<float>(r.scales[d]);
      if (!(scale > 0))
        return n.emitError() << "scale " << r.scales[d] << " of dimension " << d
                             << " is not positive",
               failure();
      // As ONNX shape inference: floor(size * scale), in float, and for
      // tf_crop_and_resize of the region's extent.
      float extent = static_cast<float>(x.getDimSize(d));
      if (crop)
        extent *= static_cast<float>(r.roi[d + rank] - r.roi[d]);
      shape.push_back(static_cast<int64_t>(std::floor(extent * scale)));
      scales.push_back(scale);
    }
  }
  if (failed(checkedNumElements(shape)))
    return n.emitError() << "the output shape is absurd", failure();
  SmallVector<float> roi;
  if (crop)
    for (double v : r.roi)
      roi.push_back(static_cast<float>(v));
  Builder &b = n.b;
  return n.setResult(n.create<ResizeOp>(
      x.clone(shape), n.input(0), ResizeModeAttr::get(n.ctx, r.mode),
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

LogicalResult importResize(NodeImporter &n) {
  ResizeRequest r;
  if (failed(readMode(n, r)))
    return failure();
  int64_t rank = n.inputType(0).getRank();
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
    if (r.transform == CoordinateTransform::TFCropAndResize) {
      FailureOr<SmallVector<double>> roi = constantFloats(n, 1, "roi");
      if (failed(roi))
        return failure();
      r.roi = *roi;
    }
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
  if (n.hasInput(scalesInput) &&
      n.inputType(scalesInput).getNumElements() != 0) {
    FailureOr<SmallVector<double>> scales =
        constantFloats(n, scalesInput, "scales");
    if (failed(scales))
      return failure();
    if (!axes.empty() && scales->size() != axes.size())
      return n.emitError() << "scales needs one entry per axis", failure();
    r.scales = *scales;
    if (!axes.empty()) {
      r.scales.assign(rank, 1.0);
      for (auto [i, a] : llvm::enumerate(axes))
        r.scales[a] = (*scales)[i];
    }
  } else if (sizesInput && n.hasInput(sizesInput)) {
    FailureOr<SmallVector<int64_t>> sizes = n.constantInts(sizesInput, "sizes");
    if (failed(sizes))
      return failure();
    if (!axes.empty() && sizes->size() != axes.size())
      return n.emitError() << "sizes needs one entry per axis", failure();
    SmallVector<int64_t> all(n.inputType(0).getShape());
    for (auto [i, a] : llvm::enumerate(axes))
      all[a] = (*sizes)[i];
    r.sizes = axes.empty() ? *sizes : all;
  } else {
    return n.emitError() << "needs scales or sizes", failure();
  }
  if (!axes.empty() && !r.roi.empty()) {
    if (r.roi.size() != 2 * axes.size())
      return n.emitError() << "roi needs two entries per axis", failure();
    SmallVector<double> roi(2 * rank, 0);
    for (int64_t d = 0; d < rank; ++d)
      roi[d + rank] = 1;
    for (auto [i, a] : llvm::enumerate(axes)) {
      roi[a] = r.roi[i];
      roi[a + rank] = r.roi[i + axes.size()];
    }
    r.roi = roi;
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
  } else {
    FailureOr<SmallVector<double>> scales = constantFloats(n, 1, "scales");
    if (failed(scales))
      return failure();
    r.scales = *scales;
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
}
