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

// A thread tile that holds the whole output (par_m, par_n at least M, N)
// with the epilogue in passes of its own (epilogue_regs = 0): the thread
// loop of one iteration that the canonicalization folds away leaves the
// template's later steps their ops (the search proposed such schedules and
// they failed to apply).
// CHECK-LABEL: func.func @whole_output_thread_tile
// CHECK-NOT: scf.forall
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<
func.func @whole_output_thread_tile(%a: tensor<16x48xf32>, %b: tensor<48x64xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 16 : i64, par_n = 64 : i64, epilogue_regs = 0 : i64, reg_m = 6 : i64, reg_n = 16 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %m = linalg.matmul ins(%a, %b : tensor<16x48xf32>, tensor<48x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      %t = arith.maximumf %s, %zero : f32
      linalg.yield %t : f32
    } -> tensor<16x64xf32>
    int21.yield %r : tensor<16x64xf32>
  } : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// The same for a batch matmul whose thread tile holds a whole image.
// CHECK-LABEL: func.func @whole_image_thread_tile
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<
func.func @whole_image_thread_tile(%a: tensor<2x16x48xf32>, %b: tensor<2x48x64xf32>) -> tensor<2x16x64xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.batch_matmul, {par_m = 16 : i64, par_n = 64 : i64, epilogue_regs = 0 : i64, reg_m = 6 : i64, reg_n = 16 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
    %m = linalg.batch_matmul ins(%a, %b : tensor<2x16x48xf32>, tensor<2x48x64xf32>) outs(%f : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(n, i, j) -> (n, i, j)>, affine_map<(n, i, j) -> (n, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%m : tensor<2x16x64xf32>) outs(%e : tensor<2x16x64xf32>) {
    ^bb0(%x: f32, %o: f32):
      %t = arith.maximumf %x, %zero : f32
      linalg.yield %t : f32
    } -> tensor<2x16x64xf32>
    int21.yield %r : tensor<2x16x64xf32>
  } : tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}
