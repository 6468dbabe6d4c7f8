// RUN: int21-opt %s --pass-pipeline='builtin.module(int21-gpu-codegen{chip=sm_90 kernels=false})' | FileCheck %s

// The host form the GPU engine's plan is read from: bare memref arguments
// (inputs, output, workspace), static views, launches with constant
// sizes; the kernels in one gpu.module, shared tiles as workgroup
// attributions.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[IN:.+]]: memref<64x256xf32>, %[[W:.+]]: memref<256x128xf32>, %[[OUT:.+]]: memref<64x128xf32>, %[[WS:.+]]: memref<32768xi8> {int21.workspace = 32768 : i64})
// CHECK-NOT:     memref.alloc
// CHECK:         %[[T:.+]] = memref.view %[[WS]]
// CHECK:         gpu.launch_func @int21_kernels::@main_kernel blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) args({{.*}}%[[T]] : memref<64x128xf32>
// CHECK:         gpu.launch_func @int21_kernels::@main_kernel_0 blocks in
// CHECK-SAME:      %[[OUT]] : memref<64x128xf32>
// CHECK-NEXT:    return
// CHECK:       gpu.module @int21_kernels
// CHECK:         gpu.func @main_kernel({{.*}}) workgroup(%{{.*}} : memref<64x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK:           linalg.copy {{.*}} #gpu.address_space<workgroup>>)
// CHECK:           gpu.barrier
// CHECK:           vector.fma
// CHECK:         gpu.func @main_kernel_0
// CHECK-NOT:     gpu.module
func.func @main(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
    int21.yield %mm : tensor<64x128xf32>
  } : tensor<64x128xf32>
  %1 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
    ^bb0(%in: f32, %o: f32):
      %m = arith.maximumf %in, %cst : f32
      linalg.yield %m : f32
    } -> tensor<64x128xf32>
    int21.yield %r : tensor<64x128xf32>
  } : tensor<64x128xf32>
  return %1 : tensor<64x128xf32>
}
