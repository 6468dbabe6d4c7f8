// RUN: int21-opt %s -int21-expand-strided-copies -split-input-file | FileCheck %s

// The interior of a padded window (a short static row): one vector per row,
// in bounds, in a loop over the rows.
// CHECK-LABEL: func.func @padded_interior
// CHECK: %[[SUB:.*]] = memref.subview
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[ROW:.*]] = vector.transfer_read %arg0[%[[C]], %[[H]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x28x28xf32>, vector<28xf32>
// CHECK-NEXT: vector.transfer_write %[[ROW]], %[[SUB]][%[[C]], %[[H]], %{{.*}}] {in_bounds = [true]} : vector<28xf32>, memref<4x28x28xf32, strided<[900, 30, 1], offset: 31>>
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
func.func @padded_interior(%src: memref<4x28x28xf32>, %dst: memref<4x30x30xf32>) {
  %sub = memref.subview %dst[0, 1, 1] [4, 28, 28] [1, 1, 1] : memref<4x30x30xf32> to memref<4x28x28xf32, strided<[900, 30, 1], offset: 31>>
  memref.copy %src, %sub : memref<4x28x28xf32> to memref<4x28x28xf32, strided<[900, 30, 1], offset: 31>>
  return
}

// -----

// A long or dynamic row: 512-bit vectors in bounds up to the last whole
// one, then the rest: the row's last whole vector again where the row holds
// one, a masked vector (out of bounds allowed) where it does not.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: %[[W:.*]] = memref.dim %arg0, %c1
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[REST:.*]] = arith.remui %[[W]], %[[STEP:.*]] : index
// CHECK-NEXT: %[[FULL:.*]] = arith.subi %[[W]], %[[REST]] : index
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[FULL]] step %[[STEP]] {
// CHECK-NEXT: %[[V:.*]] = vector.transfer_read %arg0[%[[R]], %[[J]]], %{{.*}} {in_bounds = [true]} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK-NEXT: vector.transfer_write %[[V]], %arg1[%[[R]], %[[J]]] {in_bounds = [true]} : vector<16xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[PARTIAL:.*]] = arith.cmpi ne, %[[REST]]
// CHECK-NEXT: scf.if %[[PARTIAL]] {
// CHECK-NEXT: %[[HOLDS:.*]] = arith.cmpi uge, %[[W]], %[[STEP]]
// CHECK-NEXT: scf.if %[[HOLDS]] {
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[W]], %[[STEP]]
// CHECK-NEXT: %[[L:.*]] = vector.transfer_read %arg0[%[[R]], %[[LAST]]], %{{.*}} {in_bounds = [true]}
// CHECK-NEXT: vector.transfer_write %[[L]], %arg1[%[[R]], %[[LAST]]] {in_bounds = [true]}
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:.*]] = vector.transfer_read %arg0[%[[R]], %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<16xf32>
// CHECK-NEXT: vector.transfer_write %[[M]], %arg1[%[[R]], %{{.*}}] : vector<16xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @dynamic_rows(%src: memref<?x?xf32, strided<[?, 1], offset: ?>>, %dst: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  memref.copy %src, %dst : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Bytes: 64 lanes a vector; a static row of 300 is longer than four: a
// loop of vectors, the last one masked (by a constant).
// CHECK-LABEL: func.func @byte_rows
// CHECK: scf.for %{{.*}} = %c0 to %c300 step %c64 {
// CHECK: vector.transfer_read {{.*}} : memref<3x300xi8, strided<[512, 1]>>, vector<64xi8>
// CHECK-NOT: scf.if
func.func @byte_rows(%src: memref<3x300xi8, strided<[512, 1]>>, %dst: memref<3x300xi8>) {
  memref.copy %src, %dst : memref<3x300xi8, strided<[512, 1]>> to memref<3x300xi8>
  return
}

// -----

// Rows that are not contiguous (a strided column), and elements narrower
// than a byte: scalar loops (linalg.copy).
// CHECK-LABEL: func.func @not_rows
// CHECK: linalg.copy ins(%arg0 : memref<8x8xf32, strided<[16, 2]>>) outs(%arg1 : memref<8x8xf32>)
// CHECK: linalg.copy ins(%arg2 : memref<8x8xi1, strided<[16, 1]>>) outs(%arg3 : memref<8x8xi1>)
// CHECK-NOT: vector.transfer
func.func @not_rows(%a: memref<8x8xf32, strided<[16, 2]>>, %b: memref<8x8xf32>, %c: memref<8x8xi1, strided<[16, 1]>>, %d: memref<8x8xi1>) {
  memref.copy %a, %b : memref<8x8xf32, strided<[16, 2]>> to memref<8x8xf32>
  memref.copy %c, %d : memref<8x8xi1, strided<[16, 1]>> to memref<8x8xi1>
  return
}

// -----

// Contiguous copies stay memcpy.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %arg0, %arg1
func.func @contiguous(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  memref.copy %a, %b : memref<8x8xf32> to memref<8x8xf32>
  return
}
