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
  let cppNamespace = "::mlir::int21";
  let genSpecializedAttr = 0;
}
def Int21_PadModeAttr : EnumAttr<Int21_Dialect, Int21_PadMode, "pad_mode">;

def Int21_ScheduleAttr : AttrDef<Int21_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "the resolved schedule applied to a fusion group";
  let description = [{
    Names the schedule template (a transform-dialect script with tunable knobs)
    and gives the value chosen for each of its knobs and alternatives. A knob's
    value is an integer, a boolean, a string or an array of integers.

    ```mlir
    #int21.schedule<name = "cpu.matmul", knobs = {tile_m = 64 : i64, vectorize = true}>
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::DictionaryAttr":$knobs);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The integer value of knob `knob`, if it is set and is an integer.
    std::optional<int64_t> getIntKnob(::llvm::StringRef knob) const;
  }];
}

#endif // INT21_DIALECT_INT21_INT21ATTRS_TD
