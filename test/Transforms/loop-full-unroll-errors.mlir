// RUN: int21-opt %s --transform-interpreter -verify-diagnostics -o /dev/null

// A loop whose trip count is not a constant is a silenceable failure that
// names it, and stays as it is.

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
