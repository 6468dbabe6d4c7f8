// RUN: int21-opt %s --int21-to-linalg | FileCheck %s

// The default path to linalg: shape arithmetic folds, the matmul and its
// epilogue form one fusion group, every op in it is lowered, and the
// epilogue (bias add, ReLU) is one linalg.generic.

// CHECK-LABEL: func.func @dense_relu
// CHECK-NOT: int21.reshape
// CHECK: int21.fusion_group {
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NEXT: ^bb
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.cmpf olt
// CHECK-NEXT: arith.select
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: int21.yield
// CHECK: int21.fusion_group {
// CHECK: linalg.softmax
// CHECK-NOT: = int21.{{[a-z_]+}} %
func.func @dense_relu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %s = int21.reshape %x : tensor<4x8xf32> to tensor<32xf32>
  %t = int21.reshape %s : tensor<32xf32> to tensor<4x8xf32>
  %0 = int21.matmul %t, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = int21.add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = int21.relu %1 : tensor<4x16xf32>
  %3 = int21.softmax %2 {axis = 1 : i64} : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
