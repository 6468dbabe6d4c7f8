//===- Int21Attrs.td - int21 attributes and enums -------------*- tablegen -*-===//

#ifndef INT21_DIALECT_INT21_INT21ATTRS_TD
#define INT21_DIALECT_INT21_INT21ATTRS_TD

include "int21/Dialect/Int21/Int21Dialect.td"
include "mlir/IR/EnumAttr.td"

def Int21_PadMode : I32EnumAttr<"PadMode", "how int21.pad fills the border", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Reflect", 1, "reflect">,
    I32EnumAttrCase<"Edge", 2, "edge">,
    I32EnumAttrCase<"Wrap", 3, "wrap">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_PadModeAttr : EnumAttr<Int21_Dialect, Int21_PadMode, "pad_mode">;

def Int21_ResizeMode : I32EnumAttr<"ResizeMode",
    "how int21.resize interpolates", [
    I32EnumAttrCase<"Nearest", 0, "nearest">,
    I32EnumAttrCase<"Linear", 1, "linear">,
    I32EnumAttrCase<"Cubic", 2, "cubic">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_ResizeModeAttr
    : EnumAttr<Int21_Dialect, Int21_ResizeMode, "resize_mode">;

def Int21_CoordinateTransform : I32EnumAttr<"CoordinateTransform",
    "how int21.resize maps an output coordinate to an input coordinate", [
    I32EnumAttrCase<"HalfPixel", 0, "half_pixel">,
    I32EnumAttrCase<"PytorchHalfPixel", 1, "pytorch_half_pixel">,
    I32EnumAttrCase<"AlignCorners", 2, "align_corners">,
    I32EnumAttrCase<"Asymmetric", 3, "asymmetric">,
    I32EnumAttrCase<"TFHalfPixelForNN", 4, "tf_half_pixel_for_nn">,
    I32EnumAttrCase<"TFCropAndResize", 5, "tf_crop_and_resize">,
    I32EnumAttrCase<"HalfPixelSymmetric", 6, "half_pixel_symmetric">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_CoordinateTransformAttr
    : EnumAttr<Int21_Dialect, Int21_CoordinateTransform, "coordinate_transform">;

def Int21_NearestMode : I32EnumAttr<"NearestMode",
    "how int21.resize rounds a coordinate in nearest mode", [
    I32EnumAttrCase<"RoundPreferFloor", 0, "round_prefer_floor">,
    I32EnumAttrCase<"RoundPreferCeil", 1, "round_prefer_ceil">,
    I32EnumAttrCase<"Floor", 2, "floor">,
    I32EnumAttrCase<"Ceil", 3, "ceil">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_NearestModeAttr
    : EnumAttr<Int21_Dialect, Int21_NearestMode, "nearest_mode">;

def Int21_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how a scatter combines an update with the element it lands on", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Add", 1, "add">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Max", 3, "max">,
    I32EnumAttrCase<"Min", 4, "min">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_ScatterReductionAttr
    : EnumAttr<Int21_Dialect, Int21_ScatterReduction, "scatter_reduction">;

def Int21_GridSampleMode : I32EnumAttr<"GridSampleMode",
    "how int21.grid_sample interpolates", [
    I32EnumAttrCase<"Bilinear", 0, "bilinear">,
    I32EnumAttrCase<"Nearest", 1, "nearest">,
    I32EnumAttrCase<"Bicubic", 2, "bicubic">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_GridSampleModeAttr
    : EnumAttr<Int21_Dialect, Int21_GridSampleMode, "grid_sample_mode">;

def Int21_GridPadding : I32EnumAttr<"GridPadding",
    "what int21.grid_sample reads outside the input", [
    I32EnumAttrCase<"Zeros", 0, "zeros">,
    I32EnumAttrCase<"Border", 1, "border">,
    I32EnumAttrCase<"Reflection", 2, "reflection">
  ]> {
  let cppNamespace = "::int21";
  let genSpecializedAttr = 0;
}
def Int21_GridPaddingAttr
    : EnumAttr<Int21_Dialect, Int21_GridPadding, "grid_padding">;

def Int21_ScheduleAttr : AttrDef<Int21_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "the schedule of a fusion group: a template and its knobs";
  let description = [{
    Names a schedule template, the transform-dialect named sequence of
    lib/Transforms/Schedule/{CPU,GPU} that schedules the group, by symbol, and
    gives integer values to some or all of its knobs (`transform.tune.knob`)
    and alternatives (`transform.tune.alternatives`, the value being the
    index of the region to run). int21-select-schedules completes it with
    the defaults for the group's work.

    ```mlir
    #int21.schedule<@cpu.matmul, {par_m = 64 : i64, reg_n = 32 : i64}>
    ```

    The template and its knobs are checked against the templates themselves
    (an unknown template or knob, or a value that is not an integer, is an
    error that names them) wherever the compiler's schedule layer is
    registered; the values' domains, which depend on the group's work, are
    checked when the schedule is selected.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$sequence,
                        "::mlir::DictionaryAttr":$knobs);
  let assemblyFormat = "`<` $sequence `,` $knobs `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The integer value of knob `knob`, if it is set and is an integer.
    std::optional<int64_t> getIntKnob(::llvm::StringRef knob) const;
  }];
}

#endif // INT21_DIALECT_INT21_INT21ATTRS_TD
