// RUN: int21-opt %s --int21-gpu-map-forall | FileCheck %s

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
