//===- ScheduleContract.h - what a #int21.schedule is checked against -----===//
//
// The int21 dialect does not know the schedule templates (they live in
// lib/Transforms/Schedule): the layer that owns them attaches this interface
// to the dialect, and ScheduleAttr's verifier asks it whether the template
// exists and takes the knobs given, with values of the right type. Without
// it (the dialect alone) only the attribute's structure is checked.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_DIALECT_INT21_SCHEDULECONTRACT_H
#define INT21_DIALECT_INT21_SCHEDULECONTRACT_H

#include "int21/Support/LLVM.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectInterface.h"

namespace int21 {

class ScheduleContractInterface
    : public DialectInterface::Base<ScheduleContractInterface> {
public:
  explicit ScheduleContractInterface(Dialect *dialect) : Base(dialect) {}

  /// Checks that `sequence` names a schedule template and that every entry
  /// of `knobs` is one of its knobs or alternatives with a value of its
  /// type; the error names the template and the knob. Domains that depend
  /// on the work are checked where the work is known (schedule selection).
  /// Thread-safe.
  virtual LogicalResult
  verifySchedule(function_ref<InFlightDiagnostic()> emitError,
                 StringRef sequence, DictionaryAttr knobs) const = 0;
};

} // namespace int21

#endif // INT21_DIALECT_INT21_SCHEDULECONTRACT_H
