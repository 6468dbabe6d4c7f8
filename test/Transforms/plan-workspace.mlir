// RUN: int21-opt %s -split-input-file --int21-plan-workspace | FileCheck %s

// Static top-level buffers become views of one workspace argument; buffers
// alive at the same time get disjoint 64-byte aligned ranges, a buffer whose
// life starts after another's ended reuses its bytes.
// CHECK-LABEL: func.func @three
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<128xi8> {int21.workspace = 128 : i64}
// CHECK: %c0 = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%c0][] : memref<128xi8> to memref<4x4xf32>
// CHECK: %c64 = arith.constant 64 : index
// CHECK: memref.view %[[WS]][%c64][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%[[C0B]]][] : memref<128xi8> to memref<2xf32>
// CHECK-NOT: memref.alloc
func.func @three(%in: memref<4x4xf32>, %out: memref<2xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  memref.copy %in, %a : memref<4x4xf32> to memref<4x4xf32>
  %b = memref.alloc() : memref<16xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  memref.copy %flat, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() : memref<2xf32>
  %s = memref.subview %b[0] [2] [1] : memref<16xf32> to memref<2xf32, strided<[1]>>
  memref.copy %s, %c : memref<2xf32, strided<[1]>> to memref<2xf32>
  memref.copy %c, %out : memref<2xf32> to memref<2xf32>
  return
}

// -----

// Buffers inside loops (per-iteration temporaries), returned or freed ones,
// and dynamic shapes stay allocations; no buffer left: no workspace.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%{{.*}}: index) -> memref<4xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: scf.for
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @kept(%n: index) -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<8xf32>
    memref.dealloc %t : memref<8xf32>
  }
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  return %r : memref<4xf32>
}
