// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Dynamic extents: the result of a broadcast takes each dynamic extent from
// an operand that has it (never from one that broadcasts it from 1); a
// product's rows come from the left operand, its columns from the right.

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:  ([[X:%.+]]: tensor<1x?xf32>, [[Y:%.+]]: tensor<?x1xf32>)
// CHECK-DAG:   [[C0:%.+]] = arith.constant 0 : index
// CHECK-DAG:   [[C1:%.+]] = arith.constant 1 : index
// CHECK-DAG:   [[ROWS:%.+]] = tensor.dim [[Y]], [[C0]] : tensor<?x1xf32>
// CHECK-DAG:   [[COLS:%.+]] = tensor.dim [[X]], [[C1]] : tensor<1x?xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[ROWS]], [[COLS]]) : tensor<?x?xf32>
// CHECK:       linalg.generic {{.*}} ins([[X]], [[Y]] : tensor<1x?xf32>, tensor<?x1xf32>) outs([[INIT]] : tensor<?x?xf32>)
func.func @broadcast(%x: tensor<1x?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = int21.add %x, %y : (tensor<1x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:  ([[A:%.+]]: tensor<?x4xf32>, [[B:%.+]]: tensor<4x?xf32>)
// CHECK-DAG:   [[ROWS:%.+]] = tensor.dim [[A]], %{{.+}} : tensor<?x4xf32>
// CHECK-DAG:   [[COLS:%.+]] = tensor.dim [[B]], %{{.+}} : tensor<4x?xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[ROWS]], [[COLS]]) : tensor<?x?xf32>
// CHECK:       [[ZERO:%.+]] = linalg.fill ins(%{{.+}} : f32) outs([[INIT]] : tensor<?x?xf32>)
// CHECK:       linalg.matmul ins([[A]], [[B]] : tensor<?x4xf32>, tensor<4x?xf32>) outs([[ZERO]] : tensor<?x?xf32>)
func.func @matmul(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>) -> tensor<?x?xf32> {
  %0 = int21.matmul %a, %b : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Two dynamic extents along one dimension are read as one: checked.
// CHECK-LABEL: func.func @same_extent
// CHECK-SAME:  ([[X:%.+]]: tensor<?x4xf32>, [[Y:%.+]]: tensor<?x4xf32>)
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x4xf32>
// CHECK:       [[M:%.+]] = tensor.dim [[Y]], %{{.+}} : tensor<?x4xf32>
// CHECK:       [[SAME:%.+]] = arith.cmpi eq, [[M]], [[N]] : index
// CHECK:       cf.assert [[SAME]], "operand 1 dimension 0 must match the broadcast extent of dimension 0 (int21 broadcasts dynamic extents only against static ones of 1)"
// CHECK:       tensor.empty([[N]]) : tensor<?x4xf32>
func.func @same_extent(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = int21.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
