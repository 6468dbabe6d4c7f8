// RUN: int21-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(int21-form-fusion-groups,int21-lower-to-linalg,int21-outline-weights),int21-select-schedules)' | FileCheck %s
// RUN: int21-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(int21-form-fusion-groups,int21-lower-to-linalg,int21-outline-weights),int21-cpu-schedule)' | FileCheck %s --check-prefix=APPLY

// The CPU rules size register tiles by the module's vector registers,
// `int21.vector_registers = array<i64: BITS, COUNT>` (int21-compile writes
// the target's): without one, AVX-512's 32 of 512 bits, the model the rules
// were measured on; AVX2's 16 of 256 bits hold a quarter of the floats, so
// its register tiles are a quarter of the size.

// CHECK-LABEL: func.func @matmul_avx512
// CHECK: schedule(<@cpu.matmul, {{.*}}reg_m = 8 : i64, reg_n = 32 : i64}>)
// APPLY-LABEL: func.func @matmul_avx512
// APPLY: vector.fma {{.*}} : vector<32xf32>
module {
func.func @matmul_avx512(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
}

// -----

// AVX2: rows of 16 lanes, 6 of them (12 of the 16 registers).
// CHECK-LABEL: func.func @matmul_avx2
// CHECK: schedule(<@cpu.matmul, {{.*}}reg_m = 6 : i64, reg_n = 16 : i64}>)
// APPLY-LABEL: func.func @matmul_avx2
// APPLY-NOT: vector<32xf32>
// APPLY: vector.fma {{.*}} : vector<16xf32>
module attributes {int21.vector_registers = array<i64: 256, 16>} {
func.func @matmul_avx2(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
}

// -----

// A 3x3 convolution with its filters along the vectors: 2 blocks of 16
// filters by 10 columns on AVX-512 (20 of 32 registers), one block by 5
// on AVX2 (10 of 16).
// CHECK-LABEL: func.func @conv_avx512
// CHECK: schedule(<@cpu.conv2d_filter_lanes, {{.*}}reg_fb = 2 : i64, reg_w = 10 : i64}>)
module {
func.func @conv_avx512(%x: tensor<1x32x20x20xf32>) -> tensor<1x64x20x20xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<64xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x32x20x20xf32>, tensor<64x32x3x3xf32>, tensor<64xf32>) -> tensor<1x64x20x20xf32>
  return %0 : tensor<1x64x20x20xf32>
}
}

// -----

// CHECK-LABEL: func.func @conv_avx2
// CHECK: schedule(<@cpu.conv2d_filter_lanes, {{.*}}reg_fb = 1 : i64, reg_w = 5 : i64}>)
module attributes {int21.vector_registers = array<i64: 256, 16>} {
func.func @conv_avx2(%x: tensor<1x32x20x20xf32>) -> tensor<1x64x20x20xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<64xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x32x20x20xf32>, tensor<64x32x3x3xf32>, tensor<64xf32>) -> tensor<1x64x20x20xf32>
  return %0 : tensor<1x64x20x20xf32>
}
}
