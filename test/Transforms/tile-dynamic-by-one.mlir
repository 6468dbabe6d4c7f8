// transform.int21.tile_dynamic_by_one: in a group of dynamic shapes, the ops
// of a remainder over a dynamic extent are tiled by one along it (so that
// their static dimensions keep their vectors); the remainder of a loop over
// a static extent is left as it is, static once canonicalized (tiled by one
// before, a remainder of 8 columns became scalar tiles).
// RUN: int21-opt %s --split-input-file --transform-interpreter --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @dynamic_columns
// CHECK: scf.for {{.*}} step %c16
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x16xf32>)
// CHECK: scf.for {{.*}} step %c1
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8x1xf32>)
func.func @dynamic_columns(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %0 = int21.fusion_group {
    %c1 = arith.constant 1 : index
    %n = tensor.dim %x, %c1 : tensor<8x?xf32>
    %e = tensor.empty(%n) : tensor<8x?xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x?xf32>) outs(%e : tensor<8x?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<8x?xf32>
    int21.yield %r : tensor<8x?xf32>
  } : tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %g tile_sizes [0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
    %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.tile_dynamic_by_one %rest : !transform.any_op
    transform.yield
  }
}

// -----

// A dynamic batch of rows of 40: the columns' remainder (8) stays whole.
// CHECK-LABEL: func.func @static_columns
// CHECK: scf.for {{.*}} step %c16
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x16xf32>)
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8xf32>)
func.func @static_columns(%x: tensor<?x40xf32>) -> tensor<?x40xf32> {
  %0 = int21.fusion_group {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?x40xf32>
    %e = tensor.empty(%n) : tensor<?x40xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x40xf32>) outs(%e : tensor<?x40xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<?x40xf32>
    int21.yield %r : tensor<?x40xf32>
  } : tensor<?x40xf32>
  return %0 : tensor<?x40xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %lr, %lc = transform.structured.tile_using_for %g tile_sizes [1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %for = transform.cast %lc : !transform.any_op to !transform.op<"scf.for">
    %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.tile_dynamic_by_one %rest : !transform.any_op
    transform.yield
  }
}
