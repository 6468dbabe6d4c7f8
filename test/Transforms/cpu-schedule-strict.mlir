// RUN: int21-opt %s -int21-cpu-schedule="strict=true" -verify-diagnostics -o /dev/null
// RUN: int21-opt %s -int21-cpu-schedule -o - 2>/dev/null | FileCheck %s

// A schedule that names a template the group does not fit: with strict=true
// (what the search compiles candidates with) an error, without it a silent
// fallback to the default schedule.
// CHECK-LABEL: func.func @mismatch
// CHECK: vector.fma
func.func @mismatch(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  // expected-error @+1 {{names no template that fits this group}}
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.conv2d_nchw, {}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
