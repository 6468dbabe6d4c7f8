// RUN: int21-compile %s --target=sm_90 --emit=ptx -o %t.sm_90.ptx
// RUN: FileCheck %s --input-file=%t.sm_90.ptx
// RUN: int21-compile %s --target=sm_80 --emit=ptx | FileCheck %s --check-prefix=SM80

// Every kernel of the module in one PTX module, one .entry each; the
// matmul's tiles in shared memory.

// CHECK:       .target sm_90
// CHECK-DAG:   .shared .align {{[0-9]+}} .b8 __wg_main_kernel_{{[0-9]+}}[{{[0-9]+}}];
// CHECK-DAG:   .entry main_kernel(
// CHECK-DAG:   .entry main_kernel_0(
// CHECK-NOT:   .target
// SM80:        .target sm_80
// SM80:        .entry main_kernel(

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
    int21.yield %mm : tensor<64x128xf32>
  } : tensor<64x128xf32>
  %1 = int21.fusion_group {
    %e = tensor.empty() : tensor<64x128xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
    ^bb0(%in: f32, %o: f32):
      %t = math.tanh %in : f32
      linalg.yield %t : f32
    } -> tensor<64x128xf32>
    int21.yield %r : tensor<64x128xf32>
  } : tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}
