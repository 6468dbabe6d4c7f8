//===- LLVM.h - MLIR and LLVM names int21 uses unqualified ------*- C++ -*-===//
//
// All of int21 lives under one namespace root, ::int21: the dialect, the
// passes, the search, the compiler, the runtime. It is not nested in ::mlir,
// so the MLIR and LLVM names int21's own headers use unqualified are declared
// here, once, in the way mlir/Support/LLVM.h does it for ::mlir. Only names are
// brought in, never a whole namespace: an int21 declaration can never be
// shadowed by, or clash with, an MLIR one nobody asked for.
//
// Source files keep their `using namespace mlir;` as before; this header is
// for declarations in headers and in ODS-generated code (extraClassDeclaration).
//
//===----------------------------------------------------------------------===//

#ifndef INT21_SUPPORT_LLVM_H
#define INT21_SUPPORT_LLVM_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class AffineMap;
class Attribute;
class Block;
class ConversionPatternRewriter;
class Dialect;
class DialectInterface;
class DialectRegistry;
class DictionaryAttr;
class ElementsAttr;
class InFlightDiagnostic;
class Location;
class MLIRContext;
class ModuleOp;
class OpBuilder;
class OpPassManager;
class Operation;
class Pass;
class PatternRewriter;
class RankedTensorType;
class Region;
class RewritePatternSet;
class RewriterBase;
class TimingScope;
class Type;
class TypeConverter;
class TypeRange;
class TypedAttr;
class Value;
class ValueRange;
template <typename OpTy>
class OwningOpRef;
namespace func {}
namespace linalg {}
namespace transform {}
} // namespace mlir

namespace int21 {
// The LLVM support names ::mlir itself imports (mlir/Support/LLVM.h).
using mlir::cast;
using mlir::dyn_cast;
using mlir::dyn_cast_or_null;
using mlir::isa;
using mlir::ArrayRef;
using mlir::DenseMap;
using mlir::DenseSet;
using mlir::function_ref;
using mlir::MutableArrayRef;
using mlir::raw_ostream;
using mlir::SmallString;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::StringLiteral;
using mlir::StringRef;
using mlir::Twine;
using mlir::failed;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::ParseResult;
using mlir::succeeded;
using mlir::success;

// The MLIR IR and pass infrastructure int21's interfaces are written in.
using mlir::AffineMap;
using mlir::Attribute;
using mlir::Block;
using mlir::ConversionPatternRewriter;
using mlir::Dialect;
using mlir::DialectInterface;
using mlir::DialectRegistry;
using mlir::DictionaryAttr;
using mlir::ElementsAttr;
using mlir::InFlightDiagnostic;
using mlir::Location;
using mlir::MLIRContext;
using mlir::ModuleOp;
using mlir::OpBuilder;
using mlir::OpPassManager;
using mlir::Operation;
using mlir::OwningOpRef;
using mlir::Pass;
using mlir::PatternRewriter;
using mlir::RankedTensorType;
using mlir::Region;
using mlir::RewritePatternSet;
using mlir::RewriterBase;
using mlir::TimingScope;
using mlir::Type;
using mlir::TypeConverter;
using mlir::TypeRange;
using mlir::TypedAttr;
using mlir::Value;
using mlir::ValueRange;

namespace func = ::mlir::func;
namespace linalg = ::mlir::linalg;
namespace transform = ::mlir::transform;
} // namespace int21

#endif // INT21_SUPPORT_LLVM_H
