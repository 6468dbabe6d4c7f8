// RUN: int21-opt %s -split-input-file --int21-outline-weights | FileCheck %s
// RUN: int21-opt %s -split-input-file --int21-outline-weights=min-elements=1 | FileCheck %s --check-prefix=ALL

// Large constants become trailing arguments carrying their data; splats and
// small constants stay; every argument becomes read-only.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32> {bufferization.writable = false, onnx.name = "x"},
// CHECK-SAME: %[[W:.*]]: tensor<8x8xf32> {bufferization.writable = false, int21.weight = dense<{{.*}}> : tensor<8x8xf32>})
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<8x8xf32>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: linalg.add ins(%[[X]], %[[W]] :
// ALL-LABEL: func.func @main
// ALL-SAME: int21.weight = dense<[1.000000e+00, 2.000000e+00]>
func.func @main(%x: tensor<8x8xf32> {onnx.name = "x"}) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<2xf32>) {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]]> : tensor<8x8xf32>
  %ones = arith.constant dense<1.0> : tensor<8x8xf32>
  %small = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %sum = linalg.add ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %sum, %ones, %small : tensor<8x8xf32>, tensor<8x8xf32>, tensor<2xf32>
}

// -----

// A transposed weight is transposed at compile time: no linalg.transpose is
// left, and the new weight holds the transposed data.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: int21.weight = dense_resource<w.T> : tensor<2x32xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return
// ALL-LABEL: func.func @transposed
func.func @transposed() -> tensor<2x32xf32> {
  %w = arith.constant dense_resource<w> : tensor<32x2xf32>
  %e = tensor.empty() : tensor<2x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x2xf32>) outs(%e : tensor<2x32xf32>) permutation = [1, 0]
  return %t : tensor<2x32xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000000000100000002000000030000000400000005000000060000000700000008000000090000000A0000000B0000000C0000000D0000000E0000000F000000100000001100000012000000130000001400000015000000160000001700000018000000190000001A0000001B0000001C0000001D0000001E0000001F000000200000002100000022000000230000002400000025000000260000002700000028000000290000002A0000002B0000002C0000002D0000002E0000002F000000300000003100000032000000330000003400000035000000360000003700000038000000390000003A0000003B0000003C0000003D0000003E0000003F000000"
    }
  }
#-}
// The transposed data: 0, 2, 4, ... then 1, 3, 5, ... (i32, 8-byte aligned).
// CHECK: w.T: "0x080000000000000002000000040000000600000008000000

// -----

// A weight padded with a constant is padded at compile time (a transposed
// weight whose rows are given room, see LowerToLinalg/NN.cpp): no tensor.pad
// is left, and the new weight holds the padded rows.
// ALL-LABEL: func.func @padded
// ALL-SAME: int21.weight = dense_resource<p.pad> : tensor<3x4xi32>
// ALL-NOT: tensor.pad
// ALL: return
func.func @padded() -> tensor<3x4xi32> {
  %p = arith.constant dense_resource<p> : tensor<2x3xi32>
  %nine = arith.constant 9 : i32
  %t = tensor.pad %p low[1, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %nine : i32
  } : tensor<2x3xi32> to tensor<3x4xi32>
  return %t : tensor<3x4xi32>
}

{-#
  dialect_resources: {
    builtin: {
      p: "0x04000000010000000200000003000000040000000500000006000000"
    }
  }
#-}
// A row of 9s, then 1 2 3 9, 4 5 6 9.
// ALL: p.pad: "0x08000000090000000900000009000000090000000100000002000000030000000900000004000000050000000600000009000000"

// -----

// A transposed slice of a weight (a part of attention's projection weight)
// is sliced and transposed at compile time; a slice alone stays a view.
// ALL-LABEL: func.func @sliced
// ALL-SAME: int21.weight = dense_resource<s.slice.T> : tensor<2x2xi32>
// ALL-NOT: linalg.transpose
// ALL: tensor.extract_slice
// ALL: return
func.func @sliced() -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %s = arith.constant dense_resource<s> : tensor<3x4xi32>
  %part = tensor.extract_slice %s[1, 1] [2, 2] [1, 2] : tensor<3x4xi32> to tensor<2x2xi32>
  %e = tensor.empty() : tensor<2x2xi32>
  %t = linalg.transpose ins(%part : tensor<2x2xi32>) outs(%e : tensor<2x2xi32>) permutation = [1, 0]
  %view = tensor.extract_slice %s[0, 0] [2, 2] [1, 1] : tensor<3x4xi32> to tensor<2x2xi32>
  return %t, %view : tensor<2x2xi32>, tensor<2x2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      s: "0x04000000000000000100000002000000030000000400000005000000060000000700000008000000090000000A0000000B000000"
    }
  }
#-}
// Rows 1 and 2, columns 1 and 3: [[5, 7], [9, 11]], transposed: 5 9 7 11.
// ALL: s.slice.T: "0x08000000050000000900000007000000
