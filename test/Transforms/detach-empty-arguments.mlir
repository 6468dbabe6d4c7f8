// RUN: int21-opt %s -split-input-file -int21-detach-empty-arguments | FileCheck %s

// An output without elements: its uses move to a local buffer of no bytes,
// and the argument becomes a placeholder the bare-pointer convention passes.
// CHECK-LABEL: func.func @empty_output
// CHECK-SAME:    (%[[X:.+]]: memref<20x10x5xf32>, %[[Y:.+]]: memref<0xi8, strided<[1]>>)
// CHECK:         %[[LOCAL:.+]] = memref.alloca() : memref<20x0x5xf32>
// CHECK:         %[[VIEW:.+]] = memref.subview %[[X]]
// CHECK:         memref.copy %[[VIEW]], %[[LOCAL]]
func.func @empty_output(%x: memref<20x10x5xf32>, %y: memref<20x0x5xf32>) {
  %s = memref.subview %x[0, 0, 0] [20, 0, 5] [1, 1, 1] : memref<20x10x5xf32> to memref<20x0x5xf32, strided<[50, 5, 1]>>
  memref.copy %s, %y : memref<20x0x5xf32, strided<[50, 5, 1]>> to memref<20x0x5xf32>
  return
}

// -----

// Arguments with elements are left alone; an unused empty one just changes type.
// CHECK-LABEL: func.func @unused
// CHECK-SAME:    (%{{.+}}: memref<0xi8, strided<[1]>>, %{{.+}}: memref<4xf32>)
// CHECK-NOT:     memref.alloca
func.func @unused(%x: memref<3x0xi64>, %y: memref<4xf32>) {
  return
}
