// RUN: int21-opt %s --int21-gpu-map-forall -split-input-file | FileCheck %s

// Compute no template scheduled becomes a kernel of one block: a linalg op
// is spread over the block's threads, a store (a scan's, say) is made by
// thread 0 alone, with a barrier after each.

// CHECK-LABEL: func.func @leftovers
// CHECK:         %[[C256:.+]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:           linalg.fill {{.*}} memref<4xf32
// CHECK:           gpu.barrier
// CHECK:         gpu.launch blocks
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK-NEXT:          memref.store
// CHECK:             gpu.barrier
func.func @leftovers(%m: memref<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1023 = arith.constant 1023 : index
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%m : memref<1024xf32>)
  scf.for %i = %c0 to %c1023 step %c1 {
    %v = memref.load %m[%i] : memref<1024xf32>
    %j = arith.addi %i, %c1 : index
    %w = memref.load %m[%j] : memref<1024xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %m[%j] : memref<1024xf32>
  }
  return
}

// -----

// A boolean buffer that int21-plan-workspace left on the host is appended
// to the workspace (one byte per element, 64-byte aligned).

// CHECK-LABEL: func.func @bool_buffer
// CHECK-SAME:    %[[WS:[a-z0-9]+]]: memref<124xi8> {int21.workspace = 124 : i64}
// CHECK:         %[[C64:[a-z0-9_]+]] = arith.constant 64 : index
// CHECK:         %[[V:.+]] = memref.view %[[WS]][%[[C64]]][] : memref<124xi8> to memref<60xi1>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch
func.func @bool_buffer(%x: memref<60xf32>, %y: memref<60xf32>, %ws: memref<64xi8> {int21.workspace = 64 : i64}) {
  %b = memref.alloc() : memref<60xi1>
  scf.forall (%i) in (1) {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<60xf32>) outs(%b : memref<60xi1>) {
    ^bb0(%in: f32, %out: i1):
      %z = arith.constant 0.0 : f32
      %c = arith.cmpf olt, %in, %z : f32
      linalg.yield %c : i1
    }
  } {mapping = [#gpu.block<x>]}
  return
}
