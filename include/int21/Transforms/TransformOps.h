//===- TransformOps.h - int21's transform dialect extension ---------------===//

#ifndef INT21_TRANSFORMS_TRANSFORMOPS_H
#define INT21_TRANSFORMS_TRANSFORMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "int21/Transforms/TransformOps.h.inc"

#endif // INT21_TRANSFORMS_TRANSFORMOPS_H
