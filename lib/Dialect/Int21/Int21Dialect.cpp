//===- Int21Dialect.cpp - dialect registration, attributes, constants -----===//

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::int21;

#include "int21/Dialect/Int21/Int21OpsDialect.cpp.inc"

#include "int21/Dialect/Int21/Int21Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "int21/Dialect/Int21/Int21Attrs.cpp.inc"

void Int21Dialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "int21/Dialect/Int21/Int21Ops.cpp.inc"
      >();
  registerAttributes();
}

void Int21Dialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "int21/Dialect/Int21/Int21Attrs.cpp.inc"
      >();
}

Operation *Int21Dialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringAttr name, DictionaryAttr knobs) {
  if (!name || name.getValue().empty())
    return emitError() << "expects a non-empty schedule template name";
  for (NamedAttribute knob : knobs) {
    Attribute value = knob.getValue();
    if (isa<IntegerAttr, BoolAttr, StringAttr>(value))
      continue;
    if (auto array = dyn_cast<ArrayAttr>(value)) {
      if (llvm::all_of(array, [](Attribute a) { return isa<IntegerAttr>(a); }))
        continue;
    }
    if (isa<DenseI64ArrayAttr>(value))
      continue;
    return emitError() << "expects knob '" << knob.getName().getValue()
                       << "' to be an integer, a boolean, a string or an "
                          "array of integers, got "
                       << value;
  }
  return success();
}

std::optional<int64_t> ScheduleAttr::getIntKnob(StringRef knob) const {
  if (auto value = getKnobs().getAs<IntegerAttr>(knob))
    return value.getInt();
  return std::nullopt;
}
