// RUN: int21-compile %s --target=sm_90 --emit=gpu | FileCheck %s --check-prefix=HOST
// RUN: int21-compile %s --target=sm_90 --emit=ptx | FileCheck %s

// Data movement only: the host copies, there are no kernels, and the PTX
// module is empty (ptxas accepts it).

// HOST-LABEL: func.func @main
// HOST-NEXT:    memref.collapse_shape
// HOST-NEXT:    memref.copy
// HOST-NEXT:    return
// HOST-NOT:   gpu.module
// CHECK:      .target sm_90
// CHECK-NOT:  .entry
func.func @main(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %0 : tensor<32xf32>
}
