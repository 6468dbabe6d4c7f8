// RUN: int21-opt %s -split-input-file -int21-cpu-schedule | FileCheck %s

// The knobs and alternatives of @cpu.matmul and @cpu.batch_matmul, chosen by
// each group's #int21.schedule (as the search or --schedule-knobs does).

// pack_b = 1: N panels of cache_n columns outside the K cache loop, each
// [cache_k, cache_n] slice of B copied into a buffer of its own that the
// register tiles read.
// CHECK-LABEL: func.func @pack_b
// CHECK: scf.forall
// CHECK: scf.for {{.*}} -> (tensor<16x128xf32>)
// CHECK: scf.for {{.*}} -> (tensor<16x32xf32>)
// CHECK: [[SLICE:%.+]] = tensor.extract_slice {{.*}} [64, 32] [1, 1] : tensor<128x128xf32> to tensor<64x32xf32>
// CHECK: [[BUF:%.+]] = bufferization.alloc_tensor() : tensor<64x32xf32>
// CHECK: [[PANEL:%.+]] = bufferization.materialize_in_destination [[SLICE]] in [[BUF]]
// CHECK: scf.for {{.*}} -> (tensor<16x32xf32>)
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.transfer_read [[PANEL]]{{.*}} : tensor<64x32xf32>, vector<32xf32>
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.forall.in_parallel
func.func @pack_b(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {pack_b = 1 : i64, cache_n = 32 : i64, cache_k = 64 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// By default B is packed where its rows are a multiple of 4 KiB apart and the
// thread tile has many rows (CPU/Rules.cpp): panels one register tile
// (32 columns) wide.
// CHECK-LABEL: func.func @pack_b_default
// CHECK: bufferization.alloc_tensor() : tensor<16x32xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
func.func @pack_b_default(%a: tensor<512x16xf32>, %b: tensor<16x1024xf32>) -> tensor<512x1024xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512x1024xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %m = linalg.matmul ins(%a, %b : tensor<512x16xf32>, tensor<16x1024xf32>) outs(%f : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    int21.yield %m : tensor<512x1024xf32>
  } : tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// pack_b = 0 is the schedule without copies (region 0), also where the
// default would pack.
// CHECK-LABEL: func.func @no_pack
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @no_pack(%a: tensor<512x16xf32>, %b: tensor<16x1024xf32>) -> tensor<512x1024xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {pack_b = 0 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512x1024xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %m = linalg.matmul ins(%a, %b : tensor<512x16xf32>, tensor<16x1024xf32>) outs(%f : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    int21.yield %m : tensor<512x1024xf32>
  } : tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// reg_k = 2: the K loop steps by 2, each step two rank-1 updates of the 8x32
// accumulator (16 FMAs) from an 8x2 slice of A and a 2x32 slice of B.
// CHECK-LABEL: func.func @reg_k
// CHECK: [[C2:%.+]] = arith.constant 2 : index
// CHECK: scf.for {{.*}} step [[C2]] iter_args({{.*}}) -> (vector<8x32xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<64x128xf32>, vector<8x2xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<128x256xf32>, vector<2x32xf32>
// CHECK-COUNT-16: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield {{.*}} : vector<8x32xf32>
func.func @reg_k(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_k = 2 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// The same alternative in @cpu.batch_matmul: one batch's panel per copy.
// CHECK-LABEL: func.func @batch_pack_b
// CHECK: scf.forall
// CHECK: bufferization.alloc_tensor() : tensor<1x32x32xf32>
// CHECK: bufferization.materialize_in_destination
// CHECK: vector.fma {{.*}} : vector<32xf32>
func.func @batch_pack_b(%a: tensor<4x64x32xf32>, %b: tensor<4x32x128xf32>) -> tensor<4x64x128xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.batch_matmul, {pack_b = 1 : i64, cache_n = 32 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x64x128xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    %m = linalg.batch_matmul ins(%a, %b : tensor<4x64x32xf32>, tensor<4x32x128xf32>) outs(%f : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
    int21.yield %m : tensor<4x64x128xf32>
  } : tensor<4x64x128xf32>
  return %0 : tensor<4x64x128xf32>
}
