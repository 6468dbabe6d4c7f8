// RUN: int21-opt %s --pass-pipeline='builtin.module(func.func(int21-form-fusion-groups,int21-lower-to-linalg,int21-outline-weights),int21-select-schedules)' | FileCheck %s
// RUN: int21-opt %s --pass-pipeline='builtin.module(func.func(int21-form-fusion-groups,int21-lower-to-linalg),int21-cpu-codegen)' | FileCheck %s --check-prefix=CODEGEN

// A 3x3 convolution on rows of 19, scheduled for AVX2's vector registers
// (see select-schedules-vector-model.mlir): register tiles of 5 columns (3
// whole, 4 peeled), not 6, which would leave one column over, a tile whose
// 0-d vectors the lowering to LLVM cannot convert (squeezenet at 160x160).
// CHECK: schedule(<@cpu.conv2d_filter_lanes, {{.*}}reg_fb = 1 : i64, reg_w = 5 : i64}>)
// CODEGEN-NOT: unrealized_conversion_cast
// CODEGEN: llvm.func @int21_kernel
// CODEGEN-NOT: unrealized_conversion_cast
// CODEGEN: llvm.intr.fmuladd{{.*}}vector<16xf32>
module attributes {int21.vector_registers = array<i64: 256, 16>} {
func.func @main(%x: tensor<1x32x19x19xf32>) -> tensor<1x64x19x19xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %b = arith.constant dense<0.25> : tensor<64xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x32x19x19xf32>, tensor<64x32x3x3xf32>, tensor<64xf32>) -> tensor<1x64x19x19xf32>
  return %0 : tensor<1x64x19x19xf32>
}
}
