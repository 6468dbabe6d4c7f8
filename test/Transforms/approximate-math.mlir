// int21-approximate-math expands exp, erf and tanh into polynomials of
// arithmetic (fused multiply-adds), vectors staying vectors; f16 is computed
// in f32; other math ops are left to libm.
// RUN: int21-opt %s --int21-approximate-math | FileCheck %s
// RUN: int21-opt %s --int21-approximate-math | FileCheck %s --check-prefix=GONE

// CHECK-LABEL: func.func @exp_vector(
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: return {{.*}} : vector<16xf32>
func.func @exp_vector(%v: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %v : vector<16xf32>
  return %0 : vector<16xf32>
}

// CHECK-LABEL: func.func @erf_scalar(
// CHECK: math.fma {{.*}} : f32
func.func @erf_scalar(%s: f32) -> f32 {
  %0 = math.erf %s : f32
  return %0 : f32
}

// CHECK-LABEL: func.func @tanh_half(
// CHECK: arith.extf {{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
func.func @tanh_half(%h: vector<8xf16>) -> vector<8xf16> {
  %0 = math.tanh %h : vector<8xf16>
  return %0 : vector<8xf16>
}

// CHECK-LABEL: func.func @log_stays(
// CHECK: math.log
func.func @log_stays(%s: f32) -> f32 {
  %0 = math.log %s : f32
  return %0 : f32
}

// GONE-NOT: math.exp
// GONE-NOT: math.erf
// GONE-NOT: math.tanh
