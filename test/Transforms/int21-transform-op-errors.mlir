// RUN: int21-opt %s --split-input-file --transform-interpreter -verify-diagnostics -o /dev/null

// int21.loop.full_unroll: a loop whose trip count is not a constant is a
// silenceable failure that names it, and stays as it is.

func.func @dynamic_trip_count(%n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i32) {
    scf.yield %acc : i32
  }
  return %0 : i32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects a loop of a constant trip count}}
    transform.int21.loop.full_unroll %loops : !transform.any_op
    transform.yield
  }
}

// -----

// int21.generalize on an op that is not a structured op names it.

func.func @not_structured(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  return %0 : tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %empty = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects a structured op}}
    %g = transform.int21.generalize %empty : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// int21.pad_dynamic_tile: a multiple for each dimension it pads, and each
// multiple one positive integer.

func.func @pad_counts(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    %four = transform.param.constant 4 : i64 -> !transform.param<i64>
    // expected-error @below {{has 2 dims and 1 multiples}}
    transform.int21.pad_dynamic_tile %ops dims [0, 1] to [%four] : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

func.func @pad_zero_multiple(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
    // expected-error @below {{expects one positive integer for each multiple}}
    transform.int21.pad_dynamic_tile %ops dims [0] to [%zero] : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}
