// RUN: int21-opt %s --int21-gpu-schedule -split-input-file | FileCheck %s
// RUN: int21-opt %s --int21-gpu-schedule="knobs=gpu.matmul.promote=0,gpu.matmul.blk_m=32" -split-input-file | FileCheck %s --check-prefix=KNOBS

// A matmul group: blocks of outputs, a K loop whose A and B tiles go to
// shared memory, threads inside; the bias and activation (fused into one
// generic) on the same threads.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK:         scf.forall ({{.*}}) in (1, 16)
// CHECK:           scf.forall ({{.*}}) in (16, 16)
// CHECK:             linalg.fill
// CHECK:           } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:           scf.for
// The copies of A and B into shared memory: threads along the rows and, in
// vectors of 4, along the columns.
// CHECK:             bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<64x32xf32>
// CHECK:             scf.forall ({{.*}}) in (16, 8)
// CHECK:               tensor.insert_slice {{.*}} : tensor<1x4xf32> into tensor<{{[0-9]+}}x4xf32>
// CHECK:             } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:             bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<32x64xf32>
// CHECK:             scf.forall ({{.*}}) in (16, 16)
// CHECK:               tensor.insert_slice {{.*}} : tensor<1x4xf32> into tensor<{{[0-9]+}}x4xf32>
// CHECK:             } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// Each thread's 4 x 4 outputs: accumulators carried by the K loop, FMAs.
// CHECK:             scf.forall ({{.*}}) in (16, 16)
// CHECK:               scf.for {{.*}} iter_args({{.*}}) -> (vector<4x4xf32>)
// CHECK:                 vector.fma
// CHECK:             } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:           scf.forall ({{.*}}) in (16, 16)
// CHECK:             arith.addf
// CHECK-NEXT:        arith.maximumf
// CHECK:           } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// KNOBS-LABEL: func.func @matmul_bias_relu
// KNOBS:         scf.forall ({{.*}}) in (2, 16)
// KNOBS-NOT:     memory_space
// KNOBS:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @matmul_bias_relu(%a: tensor<64x256xf32>, %b: tensor<256x1024xf32>, %bias: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<64x1024xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %mm = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    %add = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e : tensor<64x1024xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<64x1024xf32>
    %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.maximumf %x, %cst : f32
      linalg.yield %m : f32
    } -> tensor<64x1024xf32>
    int21.yield %relu : tensor<64x1024xf32>
  } : tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

// A softmax: one thread per row, the row's max, exponentials and sum
// computed by that thread.

// CHECK-LABEL: func.func @softmax
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall ({{.*}}) in (1)
// CHECK:           scf.forall ({{.*}}) in (64)
// CHECK-COUNT-2:     iterator_types = ["parallel", "reduction"]
// CHECK:           } {mapping = [#gpu.thread<x>]}
// CHECK:         } {mapping = [#gpu.block<x>]}
// CHECK-NOT:     linalg.generic
func.func @softmax(%x: tensor<64x10xf32>) -> tensor<64x10xf32> {
  %0 = int21.fusion_group {
    %e = tensor.empty() : tensor<64x10xf32>
    %s = linalg.softmax dimension(1) ins(%x : tensor<64x10xf32>) outs(%e : tensor<64x10xf32>) -> tensor<64x10xf32>
    int21.yield %s : tensor<64x10xf32>
  } : tensor<64x10xf32>
  return %0 : tensor<64x10xf32>
}

// -----

// Elementwise over NCHW: the batch stays whole, channels and rows and
// columns are tiled into blocks and threads.

#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @relu_nchw
// CHECK:         scf.forall ({{.*}}) in (64, 14, 1)
// CHECK:           scf.forall ({{.*}}) in (1, 4, 56)
// CHECK:           } {mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>]}
// CHECK:         } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @relu_nchw(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<1x64x56x56xf32>
    %r = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x56x56xf32>) outs(%e : tensor<1x64x56x56xf32>) {
    ^bb0(%in: f32, %o: f32):
      %m = arith.maximumf %in, %cst : f32
      linalg.yield %m : f32
    } -> tensor<1x64x56x56xf32>
    int21.yield %r : tensor<1x64x56x56xf32>
  } : tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

// -----

// A matmul with one row (a classifier): the bias, which the group's
// preparation runs over [n], is expanded back to [1, n] so that it fuses
// with the matmul and the matmul template (shared memory) applies.

#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @classifier
// CHECK-NOT:     linalg.matmul
// CHECK:         scf.forall ({{.*}}) in (1, 20)
// CHECK:           bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x32xf32>
// CHECK:           linalg.matmul
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK-NOT:     linalg.generic
func.func @classifier(%x: tensor<1x512xf32>, %w: tensor<512x1000xf32>, %bias: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<1x1000xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
    %add = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<1x1000xf32>, tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<1x1000xf32>
    int21.yield %add : tensor<1x1000xf32>
  } : tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}
