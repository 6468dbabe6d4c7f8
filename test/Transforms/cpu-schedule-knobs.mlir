// RUN: int21-opt %s -split-input-file -int21-cpu-schedule="knobs=cpu.matmul.reg_n=16" | FileCheck %s
// RUN: int21-opt %s -split-input-file -int21-cpu-schedule | FileCheck %s --check-prefix=DEFAULT
// RUN: not int21-opt %s -int21-cpu-schedule="knobs=cpu.matmul.reg_n" 2>&1 | FileCheck %s --check-prefix=BADOPT

// The knobs option overrides the default register tile width (32 lanes)
// for every group the template schedules.
// CHECK-LABEL: func.func @matmul
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector<32xf32>
// DEFAULT-LABEL: func.func @matmul
// DEFAULT: vector.fma {{.*}} : vector<32xf32>
// BADOPT: int21-cpu-schedule: knobs: expected TEMPLATE.NAME=INTEGER, got 'cpu.matmul.reg_n'
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A group's own schedule sets its knobs (an 8-lane register tile); the
// knobs option, when it names the same knob, overrides both.
// CHECK-LABEL: func.func @named
// CHECK: vector.fma {{.*}} : vector<16xf32>
// DEFAULT-LABEL: func.func @named
// DEFAULT: vector.fma {{.*}} : vector<8xf32>
// DEFAULT-NOT: vector<32xf32>
func.func @named(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 64 : i64, par_n = 64 : i64, cache_k = 128 : i64, reg_m = 4 : i64, reg_n = 8 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
