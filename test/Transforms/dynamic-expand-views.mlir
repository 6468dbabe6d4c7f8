// RUN: int21-opt %s -int21-dynamic-expand-views -split-input-file | FileCheck %s

// An expansion into two dynamic extents in one group (upstream's
// expand-strided-metadata cannot lower it) becomes a view of the source's
// buffer with the strides the expansion gives: the inner extent's stride is
// the source's, the outer one's that times the inner extent.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME:  ([[X:%.+]]: memref<?x64xf32>, [[B:%.+]]: index, [[T:%.+]]: index)
// CHECK:       [[BASE:%.+]], [[OFFSET:%.+]], [[SIZES:%.+]]:2, [[STRIDES:%.+]]:2 = memref.extract_strided_metadata [[X]]
// CHECK:       [[OUTER:%.+]] = arith.muli %{{.+}}, [[T]] : index
// CHECK:       memref.reinterpret_cast [[BASE]] to offset: [0], sizes: {{\[}}[[B]], [[T]], 64], strides: {{\[}}[[OUTER]], 64, 1]
// CHECK-NOT:   memref.expand_shape
func.func @two_dynamic(%x: memref<?x64xf32>, %b: index, %t: index) -> memref<?x?x64xf32> {
  %0 = memref.expand_shape %x [[0, 1], [2]] output_shape [%b, %t, 64] : memref<?x64xf32> into memref<?x?x64xf32>
  return %0 : memref<?x?x64xf32>
}

// -----

// One dynamic extent a group: left to expand-strided-metadata.
// CHECK-LABEL: func.func @one_dynamic
// CHECK:       memref.expand_shape
// CHECK-NOT:   memref.reinterpret_cast
func.func @one_dynamic(%x: memref<?x64xf32>, %t: index) -> memref<?x4x64xf32> {
  %0 = memref.expand_shape %x [[0, 1], [2]] output_shape [%t, 4, 64] : memref<?x64xf32> into memref<?x4x64xf32>
  return %0 : memref<?x4x64xf32>
}
