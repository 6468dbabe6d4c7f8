// REQUIRES: ptxas
// RUN: int21-compile %s --target=sm_90 --emit=ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: int21-compile %s --target=sm_90 --emit=resources | FileCheck %s
// RUN: int21-compile %s --target=sm_80 --emit=resources | FileCheck %s

// The default matmul schedule: A and B tiles (and the accumulator) in
// shared memory, no spills (ptxas's report through int21's assemblePTX).

// CHECK: main_kernel registers={{[0-9]+}} shared={{[1-9][0-9]*}} spill_stores=0 spill_loads=0 stack=0

func.func @main(%x: tensor<512x1024xf32>, %w: tensor<1024x768xf32>) -> tensor<512x768xf32> {
  %0 = int21.fusion_group {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<512x768xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x768xf32>) -> tensor<512x768xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<512x1024xf32>, tensor<1024x768xf32>) outs(%f : tensor<512x768xf32>) -> tensor<512x768xf32>
    int21.yield %mm : tensor<512x768xf32>
  } : tensor<512x768xf32>
  return %0 : tensor<512x768xf32>
}
