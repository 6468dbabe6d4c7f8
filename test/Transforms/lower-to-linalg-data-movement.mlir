// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Positive steps: one tensor.extract_slice.

// CHECK-LABEL: func.func @slice_positive_steps
// CHECK-SAME: ([[X:%.+]]: tensor<4x6xf32>)
// CHECK: [[R:%.+]] = tensor.extract_slice [[X]][1, 0] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
// CHECK: return [[R]]
func.func @slice_positive_steps(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %0 = int21.slice %x {starts = array<i64: 1, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Negative steps: a copy whose indexing map walks the input backwards.

// CHECK-DAG: [[BACK:#.+]] = affine_map<(d0, d1) -> (-d0 + 3, d1 * -2 + 5)>
// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @slice_negative_steps
// CHECK-SAME: ([[X:%.+]]: tensor<4x6xf32>)
// CHECK: [[E:%.+]] = tensor.empty() : tensor<4x3xf32>
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [[[BACK]], [[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins([[X]] : tensor<4x6xf32>) outs([[E]] : tensor<4x3xf32>)
// CHECK-NEXT: ^bb0([[IN:%.+]]: f32, {{.*}}):
// CHECK-NEXT: linalg.yield [[IN]]
// CHECK: return [[R]]
func.func @slice_negative_steps(%x: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %0 = int21.slice %x {starts = array<i64: 3, 5>, sizes = array<i64: 4, 3>, steps = array<i64: -1, -2>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: ([[A:%.+]]: tensor<2x3xi64>, [[B:%.+]]: tensor<2x1xi64>)
// CHECK: [[R:%.+]] = tensor.concat dim(1) [[A]], [[B]] : (tensor<2x3xi64>, tensor<2x1xi64>) -> tensor<2x4xi64>
// CHECK: return [[R]]
func.func @concat(%a: tensor<2x3xi64>, %b: tensor<2x1xi64>) -> tensor<2x4xi64> {
  %0 = int21.concat %a, %b {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2x1xi64>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

// Gather along axis 1 with 2-D indices: the indices are read at (d1, d2),
// a negative one gets the axis size (4) added, and tensor.extract reads the
// data at (d0, index).

// CHECK-DAG: [[IDX:#.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: ([[D:%.+]]: tensor<5x4xf32>, [[I:%.+]]: tensor<2x3xi32>)
// CHECK: linalg.generic {indexing_maps = [[[IDX]], [[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins([[I]] : tensor<2x3xi32>) outs({{.*}} : tensor<5x2x3xf32>)
// CHECK: ^bb0([[IN:%.+]]: i32, {{.*}}):
// CHECK: [[CAST:%.+]] = arith.index_cast [[IN]] : i32 to index
// CHECK-DAG: [[ZERO:%.+]] = arith.constant 0 : index
// CHECK-DAG: [[SIZE:%.+]] = arith.constant 4 : index
// CHECK: [[NEG:%.+]] = arith.cmpi slt, [[CAST]], [[ZERO]]
// CHECK: [[WRAP:%.+]] = arith.addi [[CAST]], [[SIZE]]
// CHECK: [[NORM:%.+]] = arith.select [[NEG]], [[WRAP]], [[CAST]]
// CHECK: [[LAST:%.+]] = arith.constant 3 : index
// CHECK: [[LOW:%.+]] = arith.minsi [[NORM]], [[LAST]]
// CHECK: [[SAFE:%.+]] = arith.maxsi [[LOW]], [[ZERO]]
// CHECK: [[ROW:%.+]] = linalg.index 0
// CHECK: [[V:%.+]] = tensor.extract [[D]]{{\[}}[[ROW]], [[SAFE]]]
// CHECK: linalg.yield [[V]]
func.func @gather(%d: tensor<5x4xf32>, %i: tensor<2x3xi32>) -> tensor<5x2x3xf32> {
  %0 = int21.gather %d, %i {axis = 1 : i64} : (tensor<5x4xf32>, tensor<2x3xi32>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}

// -----

// Gather of scalars by a 0-D index drops the axis.

// CHECK-DAG: [[NONE:#.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @gather_scalar_index
// CHECK: linalg.generic {indexing_maps = [[[NONE]], {{.*}}]
// CHECK: [[COL:%.+]] = linalg.index 0
// CHECK: tensor.extract {{.*}}{{\[}}{{.*}}, [[COL]]]
func.func @gather_scalar_index(%d: tensor<3x2xf32>, %i: tensor<i64>) -> tensor<2xf32> {
  %0 = int21.gather %d, %i {axis = 0 : i64} : (tensor<3x2xf32>, tensor<i64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK: [[V:%.+]] = arith.constant 1.500000e+00 : f32
// CHECK: [[R:%.+]] = tensor.pad [[X]] low[1, 0] high[0, 1]
// CHECK: tensor.yield [[V]]
// CHECK: return [[R]]
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %0 = int21.pad %x {pads = array<i64: 1, 0, 0, 1>, mode = #int21<pad_mode constant>, value = 1.5 : f64} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Negative pads crop first; the integer pad value is converted.

// CHECK-LABEL: func.func @pad_constant_crop
// CHECK-SAME: ([[X:%.+]]: tensor<4x3xi64>)
// CHECK: [[S:%.+]] = tensor.extract_slice [[X]][1, 0] [3, 3] [1, 1] : tensor<4x3xi64> to tensor<3x3xi64>
// CHECK: [[V:%.+]] = arith.constant 7 : i64
// CHECK: [[R:%.+]] = tensor.pad [[S]] low[0, 1] high[0, 1]
// CHECK: tensor.yield [[V]]
// CHECK: return [[R]]
func.func @pad_constant_crop(%x: tensor<4x3xi64>) -> tensor<3x5xi64> {
  %0 = int21.pad %x {pads = array<i64: -1, 1, 0, 1>, mode = #int21<pad_mode constant>, value = 7.0 : f64} : (tensor<4x3xi64>) -> tensor<3x5xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// Only crops: no tensor.pad.

// CHECK-LABEL: func.func @pad_only_crop
// CHECK: [[R:%.+]] = tensor.extract_slice {{.*}}[0, 1] [2, 1] [1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return [[R]]
func.func @pad_only_crop(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = int21.pad %x {pads = array<i64: 0, -1, 0, -1>, mode = #int21<pad_mode constant>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Reflect: a generic with no inputs computes the source column
// r = (j - 2) mod 4 (period 2 * (3 - 1)), then r < 3 ? r : 4 - r; the
// unpadded rows read linalg.index 0 directly.

// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK: linalg.generic {{.*}} outs({{.*}} : tensor<2x7xf32>)
// CHECK: [[ROW:%.+]] = linalg.index 0
// CHECK: [[COL:%.+]] = linalg.index 1
// CHECK: [[C2:%.+]] = arith.constant 2 : index
// CHECK: [[I:%.+]] = arith.subi [[COL]], [[C2]]
// CHECK: [[P:%.+]] = arith.constant 4 : index
// CHECK: [[REM:%.+]] = arith.remsi [[I]], [[P]]
// CHECK: [[POS:%.+]] = arith.select
// CHECK: [[IN:%.+]] = arith.cmpi slt, [[POS]]
// CHECK: [[MIRROR:%.+]] = arith.subi {{.*}}, [[POS]]
// CHECK: [[SRC:%.+]] = arith.select [[IN]], [[POS]], [[MIRROR]]
// CHECK: [[V:%.+]] = tensor.extract [[X]]{{\[}}[[ROW]], [[SRC]]]
// CHECK: linalg.yield [[V]]
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x7xf32> {
  %0 = int21.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #int21<pad_mode reflect>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// Edge clamps the source index into [0, size - 1].

// CHECK-LABEL: func.func @pad_edge
// CHECK: linalg.index 0
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract
func.func @pad_edge(%x: tensor<2x3xi32>) -> tensor<3x3xi32> {
  %0 = int21.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = #int21<pad_mode edge>, value = 0.0 : f64} : (tensor<2x3xi32>) -> tensor<3x3xi32>
  return %0 : tensor<3x3xi32>
}

// -----

// Wrap takes the non-negative remainder by the size.

// CHECK-LABEL: func.func @pad_wrap
// CHECK: linalg.index 1
// CHECK: [[SIZE:%.+]] = arith.constant 3 : index
// CHECK: arith.remsi {{.*}}, [[SIZE]]
// CHECK: arith.select
// CHECK: tensor.extract
func.func @pad_wrap(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = int21.pad %x {pads = array<i64: 0, 2, 0, 1>, mode = #int21<pad_mode wrap>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// Unsigned elements move as signless ones of the same width; an unsigned
// pad value keeps its bits.
// CHECK-LABEL: func.func @slice_pad_unsigned
// CHECK-SAME: ([[X:%.+]]: tensor<4xui8>)
// CHECK: [[XS:%.+]] = tensor.bitcast [[X]] : tensor<4xui8> to tensor<4xi8>
// CHECK: [[S:%.+]] = tensor.extract_slice [[XS]][0] [2] [1] : tensor<4xi8> to tensor<2xi8>
// CHECK: [[V:%.+]] = arith.constant -56 : i8
// CHECK: [[P:%.+]] = tensor.pad [[S]] low[1] high[0]
// CHECK: tensor.yield [[V]] : i8
// CHECK: [[R:%.+]] = tensor.bitcast [[P]] : tensor<3xi8> to tensor<3xui8>
// CHECK: return [[R]]
func.func @slice_pad_unsigned(%x: tensor<4xui8>) -> tensor<3xui8> {
  %0 = int21.slice %x {starts = array<i64: 0>, sizes = array<i64: 2>, steps = array<i64: 1>} : (tensor<4xui8>) -> tensor<2xui8>
  %1 = int21.pad %0 {pads = array<i64: 1, 0>, mode = #int21<pad_mode constant>, value = 200.0 : f64} : (tensor<2xui8>) -> tensor<3xui8>
  return %1 : tensor<3xui8>
}
