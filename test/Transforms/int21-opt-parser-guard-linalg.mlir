// MLIR 22's parser of linalg.reduce, linalg.broadcast and linalg.transpose
// crashes (SIGSEGV in NamedAttrList::set) on a `dimensions` or `permutation`
// list it cannot read whole: int21-opt refuses it first, with the place, and
// exits 1. (The fuzz smoke of the tests found it.)
// RUN: not int21-opt %s 2>&1 | FileCheck %s

func.func @f(%x: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  // CHECK: int21-opt-parser-guard-linalg.mlir:[[# @LINE + 1]]:73: error: dimensions = must be followed by a list of int64 values such as [0, 1]
  %r = linalg.reduce ins(%x : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0
      (%a: f32, %b: f32) {
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
      }
  return %r : tensor<f32>
}
