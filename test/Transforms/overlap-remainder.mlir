// transform.int21.loop.overlap_remainder: the remainder that peeling leaves
// past the last whole tile of a dynamic extent runs as one whole tile ending
// at the extent's end (static sizes, overlapping the last whole tile) where
// the extent holds one, and as the loop it was otherwise; a loop that
// accumulates into its tensor, and one outside a group of dynamic shapes,
// stay as they are.
// RUN: int21-opt %s --split-input-file --transform-interpreter --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @elementwise
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[MAIN:.*]] = scf.for
// CHECK: %[[START:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: %[[PARTIAL:.*]] = arith.cmpi slt, %{{.*}}, %[[N]]
// CHECK: %[[WHOLE:.*]] = arith.cmpi sge, %[[START]], %c0
// CHECK: %[[BOTH:.*]] = arith.andi %[[PARTIAL]], %[[WHOLE]]
// CHECK: scf.if %[[BOTH]]
// CHECK: tensor.extract_slice %arg0[%[[START]]] [8] [1] : tensor<?xf32> to tensor<8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[MAIN]][%[[START]]] [8] [1] : tensor<8xf32> into tensor<?xf32>
// CHECK: } else {
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?xf32>) outs(%{{.*}} : tensor<?xf32>)
func.func @elementwise(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = int21.fusion_group {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<?xf32>
    int21.yield %r : tensor<?xf32>
  } : tensor<?xf32>
  return %0 : tensor<?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loop = transform.structured.tile_using_for %g tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.loop.overlap_remainder %rest after %main : !transform.any_op, !transform.any_op
    transform.yield
  }
}

// -----

// A sum over the extent accumulates into the loop's tensor: a second
// computation of a column would add it twice, so the remainder stays a loop.
// CHECK-LABEL: func.func @accumulation
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: return
func.func @accumulation(%x: tensor<?xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %0 = int21.fusion_group {
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    int21.yield %r : tensor<f32>
  } : tensor<f32>
  return %0 : tensor<f32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loop = transform.structured.tile_using_for %g tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.loop.overlap_remainder %rest after %main : !transform.any_op, !transform.any_op
    transform.yield
  }
}

// -----

// Outside a fusion group of dynamic shapes the op does nothing.
// CHECK-LABEL: func.func @no_group
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: return
func.func @no_group(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loop = transform.structured.tile_using_for %g tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.loop.overlap_remainder %rest after %main : !transform.any_op, !transform.any_op
    transform.yield
  }
}
