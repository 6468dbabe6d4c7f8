//===- Library.h - knowledge-base records as a transform library ----------===//
//
// Winners exported as reusable rewrite patterns: a transform-dialect library
// with one named matcher and one action per record, driven by
// `transform.foreach_match` in `@__transform_main`.
//
// A matcher takes a fusion group and checks its main op
// (`transform.int21.match.anchor`): the op kind, its loop sizes, the element
// width and, for contractions, the body. The action is the record's schedule
// template with every knob and alternative resolved; it tags the group's ops
// for the template (`transform.int21.prepare_group`), runs it and untags
// them. So `int21-opt --transform-preload-library=transform-library-paths=
// LIB --transform-interpreter` applies the stored schedules to any IR in
// fusion groups (int21-to-linalg's output), and `int21-compile --schedules
// LIB` compiles a model with them. Each action carries its record
// (`int21.record`), so that a library imports back into a knowledge base.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_LIBRARY_H
#define INT21_AGENTSEARCH_LIBRARY_H

#include "int21/AgentSearch/KnowledgeBase.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace int21::search {

/// The library of `records` for `target` (records of other targets are left
/// out; of several records of the same work, the fastest is kept). `source`
/// names where they came from, for the header.
llvm::Expected<std::string>
exportLibrary(mlir::MLIRContext &context,
              const std::vector<KnowledgeRecord> &records,
              llvm::StringRef target, llvm::StringRef source);

/// The records a library exported by exportLibrary carries (without their
/// kernel modules, which a library does not hold). `name` names it in
/// errors.
llvm::Expected<std::vector<KnowledgeRecord>>
importLibrary(mlir::MLIRContext &context, llvm::StringRef text,
              llvm::StringRef name);

/// Gives every fusion group of `module` (lowered to linalg and prepared for
/// scheduling) that one of the library's matchers matches the schedule of
/// that matcher's record, as `#int21.schedule` for int21-cpu-schedule.
/// Returns how many groups got one.
llvm::Expected<unsigned> applyLibrary(mlir::ModuleOp module,
                                      llvm::StringRef text,
                                      llvm::StringRef name);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_LIBRARY_H
