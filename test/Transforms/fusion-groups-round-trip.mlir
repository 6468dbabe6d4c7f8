// RUN: int21-opt %s -split-input-file -int21-form-fusion-groups -int21-inline-fusion-groups | FileCheck %s

// Forming fusion groups and dissolving them again gives back the original
// ops, uses and order (for programs whose groups need no op moved up).

// CHECK-LABEL: func.func @conv_add_relu
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x8x8xf32>, [[W:%.+]]: tensor<8x4x3x3xf32>, [[B:%.+]]: tensor<1x8x1x1xf32>)
// CHECK-NOT: int21.fusion_group
// CHECK-NEXT: [[C:%.+]] = int21.conv [[X]], [[W]]
// CHECK-NEXT: [[A:%.+]] = int21.add [[C]], [[B]]
// CHECK-NEXT: [[R:%.+]] = int21.relu [[A]]
// CHECK-NEXT: return [[R]]
func.func @conv_add_relu(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = int21.add %0, %b : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = int21.relu %1 : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// CHECK-LABEL: func.func @residual_with_data_movement
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x6x6xf32>, [[W1:%.+]]: tensor<8x8x3x3xf32>, [[W2:%.+]]: tensor<8x8x3x3xf32>)
// CHECK-NOT: int21.fusion_group
// CHECK-NEXT: [[C1:%.+]] = int21.conv [[X]], [[W1]]
// CHECK-NEXT: [[R1:%.+]] = int21.relu [[C1]]
// CHECK-NEXT: [[C2:%.+]] = int21.conv [[R1]], [[W2]]
// CHECK-NEXT: [[SUM:%.+]] = int21.add [[C2]], [[R1]]
// CHECK-NEXT: [[R2:%.+]] = int21.relu [[SUM]]
// CHECK-NEXT: [[FLAT:%.+]] = int21.reshape [[R2]]
// CHECK-NEXT: [[E:%.+]] = int21.exp [[FLAT]]
// CHECK-NEXT: return [[E]], [[R1]]
func.func @residual_with_data_movement(%x: tensor<1x8x6x6xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x3x3xf32>)
    -> (tensor<288xf32>, tensor<1x8x6x6xf32>) {
  %0 = int21.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = int21.relu %0 : tensor<1x8x6x6xf32>
  %2 = int21.conv %1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %3 = int21.add %2, %1 : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %4 = int21.relu %3 : tensor<1x8x6x6xf32>
  %5 = int21.reshape %4 : tensor<1x8x6x6xf32> to tensor<288xf32>
  %6 = int21.exp %5 : tensor<288xf32>
  return %6, %1 : tensor<288xf32>, tensor<1x8x6x6xf32>
}
