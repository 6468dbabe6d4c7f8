// RUN: int21-opt %s -split-input-file -int21-select-schedules | FileCheck %s
// RUN: int21-opt %s -split-input-file -int21-select-schedules="knobs=cpu.matmul.reg_n=16" | FileCheck %s --check-prefix=OPTION
// RUN: int21-opt %s -split-input-file -int21-select-schedules -int21-apply-schedules | FileCheck %s --check-prefix=APPLY
// RUN: int21-opt %s -split-input-file -int21-cpu-schedule | FileCheck %s --check-prefix=APPLY

// int21-select-schedules writes on every group the schedule it will get,
// every knob of the template resolved: the default rules' values for the
// group's work, the group's own values over them, the knobs option over
// both. int21-apply-schedules then applies them, as int21-cpu-schedule (the
// two in one) does.
// CHECK-LABEL: func.func @matmul
// CHECK: int21.fusion_group schedule(<@cpu.matmul, {cache_k = 128 : i64, cache_n = 32 : i64, epilogue_regs = 1 : i64, pack_b = 0 : i64, par_m = 16 : i64, par_n = 128 : i64, reg_k = 1 : i64, reg_m = 8 : i64, reg_n = 32 : i64}>)
// OPTION-LABEL: func.func @matmul
// OPTION: int21.fusion_group schedule(<@cpu.matmul, {{.*}}reg_n = 16 : i64}>)
// APPLY-LABEL: func.func @matmul
// APPLY-NOT: int21.fusion_group
// APPLY: scf.forall
// APPLY: vector.fma {{.*}} : vector<32xf32>
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

// A group's own values stay; the rest are the defaults.
// CHECK-LABEL: func.func @own
// CHECK: int21.fusion_group schedule(<@cpu.matmul, {cache_k = 128 : i64, cache_n = 32 : i64, epilogue_regs = 0 : i64, pack_b = 0 : i64, par_m = 16 : i64, par_n = 128 : i64, reg_k = 1 : i64, reg_m = 4 : i64, reg_n = 8 : i64}>)
// APPLY-LABEL: func.func @own
// APPLY: vector.fma {{.*}} : vector<8xf32>
func.func @own(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_m = 4 : i64, reg_n = 8 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A loose elementwise op becomes a group of its own, scheduled by the
// elementwise template of its rank.
// CHECK-LABEL: func.func @loose
// CHECK: int21.fusion_group schedule(<@cpu.elementwise_2d, {par_0 = {{[0-9]+}} : i64, par_1 = {{[0-9]+}} : i64, vec = {{[0-9]+}} : i64}>)
// CHECK: linalg.generic
func.func @loose(%a: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// A schedule that leaves out a knob selecting among alternatives (written
// before the template had them: a knowledge-base record of the im2col
// convolution schedule) selects the template's first alternative, so that
// its knobs keep their meaning; without a schedule the rules pick (the
// window form, at stride 1 on rows of 16).
// CHECK-LABEL: func.func @conv_record
// CHECK: int21.fusion_group schedule(<@cpu.conv2d_nchw, {{{.*}}direct = 0 : i64, {{.*}}reg_m = 4 : i64, reg_n = 16 : i64{{.*}}}>)
// CHECK: int21.fusion_group schedule(<@cpu.conv2d_nchw, {{{.*}}direct = 1 : i64, {{.*}}reg_m = 8 : i64, reg_n = 32 : i64{{.*}}}>)
// APPLY-LABEL: func.func @conv_record
// APPLY-COUNT-4: vector.fma {{.*}} : vector<16xf32>
func.func @conv_record(%x: tensor<1x16x18x18xf32>, %w: tensor<32x16x3x3xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.conv2d_nchw, {reg_m = 4 : i64, reg_n = 16 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x16x16xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x18x18xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    int21.yield %c : tensor<1x32x16x16xf32>
  } : tensor<1x32x16x16xf32>
  %1 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x16x16xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x18x18xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    int21.yield %c : tensor<1x32x16x16xf32>
  } : tensor<1x32x16x16xf32>
  return %0, %1 : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}
