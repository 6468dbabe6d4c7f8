// transform.int21.match.loop_sizes: a structured op with exactly these loop
// sizes matches; another shape, or another op, does not.
// RUN: int21-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @sizes
// CHECK: linalg.matmul {matched} ins({{.*}} : tensor<16x48xf32>,
// CHECK-NEXT: linalg.matmul ins({{.*}} : tensor<8x48xf32>,
// CHECK-NEXT: return
func.func @sizes(%a: tensor<16x48xf32>, %b: tensor<48x64xf32>, %c: tensor<16x64xf32>,
                 %d: tensor<8x48xf32>, %e: tensor<8x64xf32>) -> (tensor<16x64xf32>, tensor<8x64xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<16x48xf32>, tensor<48x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = linalg.matmul ins(%d, %b : tensor<8x48xf32>, tensor<48x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0, %1 : tensor<16x64xf32>, tensor<8x64xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @match(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.int21.match.loop_sizes %op [16, 64, 48] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @mark(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "matched" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %done = transform.foreach_match in %root @match -> @mark
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{expects sizes of 0 or more, loop 1}}
    transform.int21.match.loop_sizes %root [16, -1] : !transform.any_op
    transform.yield
  }
}
