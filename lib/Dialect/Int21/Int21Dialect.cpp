//===- Int21Dialect.cpp - dialect registration, attributes, constants -----===//

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Dialect/Int21/ScheduleContract.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace int21;

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
                                   FlatSymbolRefAttr sequence,
                                   DictionaryAttr knobs) {
  if (!sequence || sequence.getValue().empty())
    return emitError() << "expects a schedule template (a symbol)";
  if (!knobs)
    return emitError() << "expects a dictionary of knobs";
  // Every knob of every template is an integer (an alternative's value the
  // index of its region).
  for (NamedAttribute knob : knobs) {
    auto value = dyn_cast<IntegerAttr>(knob.getValue());
    if (!value || value.getType().isInteger(1) ||
        value.getValue().getSignificantBits() > 64)
      return emitError() << "knob '" << knob.getName().getValue()
                         << "' of template " << sequence
                         << " expects an integer (i64), got "
                         << knob.getValue();
  }
  // The templates are the schedule layer's: it checks the rest when it is
  // registered (see ScheduleContract.h).
  auto *dialect = sequence.getContext()->getLoadedDialect<Int21Dialect>();
  if (!dialect)
    return success();
  if (const auto *contract =
          dialect->getRegisteredInterface<ScheduleContractInterface>())
    return contract->verifySchedule(emitError, sequence.getValue(), knobs);
  return success();
}

std::optional<int64_t> ScheduleAttr::getIntKnob(StringRef knob) const {
  if (auto value = getKnobs().getAs<IntegerAttr>(knob))
    return value.getInt();
  return std::nullopt;
}
