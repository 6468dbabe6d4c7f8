// MLIR 22's parser crashes (SIGSEGV in parseDenseArrayAttr) on a dense array
// of index: int21-opt refuses it first, with the place, and exits 1.
// RUN: not int21-opt %s 2>&1 | FileCheck %s

// CHECK: int21-opt-parser-guard.mlir:[[# @LINE + 1]]:24: error: array<index: ...> is not a dense array int21 can read
module attributes {x = array<index: 1>} {}
