// RUN: int21-opt %s --int21-gpu-expand-host-copies --int21-gpu-map-forall -split-input-file | FileCheck %s

// A slice of a fused projection (the encoder's q out of qkv) copied into a
// contiguous buffer: 128 * 256 elements, 128 blocks of 256 threads, one
// element a thread. No bounds check (a multiple of 256); the unit dimension
// gets index 0, the outermost what is left of the linear index.

// CHECK-LABEL: func.func @slice_of_projection
// CHECK-SAME:    %[[QKV:[a-z0-9]+]]: memref<128x1x768xf32>, %[[Q:[a-z0-9]+]]: memref<128x1x256xf32>
// CHECK:         %[[SLICE:.+]] = memref.subview %[[QKV]][0, 0, 256] [128, 1, 256] [1, 1, 1]
// CHECK-DAG:     %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK-NOT:     memref.copy
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %[[C128]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads({{.*}}) in (%{{.+}} = %[[C256]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK:           %[[BLOCK:.+]] = gpu.block_id  x
// CHECK:           %[[THREAD:.+]] = gpu.thread_id  x
// CHECK:           %[[K256:.+]] = arith.constant 256 : index
// CHECK:           %[[BASE:.+]] = arith.muli %[[BLOCK]], %[[K256]] overflow<nsw, nuw> : index
// CHECK:           %[[LINEAR:.+]] = arith.addi %[[BASE]], %[[THREAD]] overflow<nsw, nuw> : index
// CHECK-NOT:       scf.if
// CHECK:           %[[N256:.+]] = arith.constant 256 : index
// CHECK:           %[[COL:.+]] = arith.remui %[[LINEAR]], %[[N256]] : index
// CHECK:           %[[ROW:.+]] = arith.divui %[[LINEAR]], %[[N256]] : index
// CHECK:           %[[C0:.+]] = arith.constant 0 : index
// CHECK:           %[[V:.+]] = memref.load %[[SLICE]][%[[ROW]], %[[C0]], %[[COL]]] : memref<128x1x256xf32, strided<[768, 768, 1], offset: 256>>
// CHECK:           memref.store %[[V]], %[[Q]][%[[ROW]], %[[C0]], %[[COL]]] : memref<128x1x256xf32>
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.copy
func.func @slice_of_projection(%qkv: memref<128x1x768xf32>, %q: memref<128x1x256xf32>) {
  %slice = memref.subview %qkv[0, 0, 256] [128, 1, 256] [1, 1, 1]
      : memref<128x1x768xf32> to memref<128x1x256xf32, strided<[768, 768, 1], offset: 256>>
  memref.copy %slice, %q : memref<128x1x256xf32, strided<[768, 768, 1], offset: 256>> to memref<128x1x256xf32>
  return
}

// -----

// The interior of a padded buffer (a convolution's padded input): 3 * 5 * 7
// elements, fewer than a block, so one block of 105 threads. The target's
// strides and offset stay in its type: the indices are those of the copy.

// CHECK-LABEL: func.func @into_padding
// CHECK-SAME:    %[[X:[a-z0-9]+]]: memref<1x3x5x7xf32>, %[[P:[a-z0-9]+]]: memref<1x3x7x9xf32>
// CHECK:         %[[INNER:.+]] = memref.subview %[[P]][0, 0, 1, 1] [1, 3, 5, 7] [1, 1, 1, 1]
// CHECK:         %[[C105:.+]] = arith.constant 105 : index
// CHECK:         gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.+}} = %[[C105]],
// CHECK:           %[[BLOCK:.+]] = gpu.block_id  x
// CHECK:           %[[THREAD:.+]] = gpu.thread_id  x
// CHECK:           %[[K105:.+]] = arith.constant 105 : index
// CHECK:           %[[BASE:.+]] = arith.muli %[[BLOCK]], %[[K105]] overflow<nsw, nuw> : index
// CHECK:           %[[LINEAR:.+]] = arith.addi %[[BASE]], %[[THREAD]] overflow<nsw, nuw> : index
// CHECK-NOT:       scf.if
// CHECK:           %[[K7:.+]] = arith.constant 7 : index
// CHECK:           %[[W:.+]] = arith.remui %[[LINEAR]], %[[K7]] : index
// CHECK:           %[[R1:.+]] = arith.divui %[[LINEAR]], %[[K7]] : index
// CHECK:           %[[K5:.+]] = arith.constant 5 : index
// CHECK:           %[[H:.+]] = arith.remui %[[R1]], %[[K5]] : index
// CHECK:           %[[C:.+]] = arith.divui %[[R1]], %[[K5]] : index
// CHECK:           %[[C0:.+]] = arith.constant 0 : index
// CHECK:           %[[V:.+]] = memref.load %[[X]][%[[C0]], %[[C]], %[[H]], %[[W]]] : memref<1x3x5x7xf32>
// CHECK:           memref.store %[[V]], %[[INNER]][%[[C0]], %[[C]], %[[H]], %[[W]]] : memref<1x3x5x7xf32, strided<[189, 63, 9, 1], offset: 10>>
func.func @into_padding(%x: memref<1x3x5x7xf32>, %p: memref<1x3x7x9xf32>) {
  %inner = memref.subview %p[0, 0, 1, 1] [1, 3, 5, 7] [1, 1, 1, 1]
      : memref<1x3x7x9xf32> to memref<1x3x5x7xf32, strided<[189, 63, 9, 1], offset: 10>>
  memref.copy %x, %inner : memref<1x3x5x7xf32> to memref<1x3x5x7xf32, strided<[189, 63, 9, 1], offset: 10>>
  return
}

// -----

// 3 * 100 = 300 elements: two blocks of 256 threads, and the threads past
// the last element do nothing. Bytes (i8) from columns 4 to 103 of rows of
// 128.

// CHECK-LABEL: func.func @bounds_checked
// CHECK-SAME:    %[[S:[a-z0-9]+]]: memref<3x128xi8>, %[[T:[a-z0-9]+]]: memref<3x100xi8>
// CHECK:         %[[ST:.+]] = memref.subview %[[S]][0, 4] [3, 100] [1, 1]
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %[[C2]], {{.*}}) threads({{.*}}) in (%{{.+}} = %[[C256]],
// CHECK:           %[[BLOCK:.+]] = gpu.block_id  x
// CHECK:           %[[THREAD:.+]] = gpu.thread_id  x
// CHECK:           %[[K256:.+]] = arith.constant 256 : index
// CHECK:           %[[BASE:.+]] = arith.muli %[[BLOCK]], %[[K256]] overflow<nsw, nuw> : index
// CHECK:           %[[LINEAR:.+]] = arith.addi %[[BASE]], %[[THREAD]] overflow<nsw, nuw> : index
// CHECK:           %[[K300:.+]] = arith.constant 300 : index
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[LINEAR]], %[[K300]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[K100:.+]] = arith.constant 100 : index
// CHECK:             %[[J:.+]] = arith.remui %[[LINEAR]], %[[K100]] : index
// CHECK:             %[[I:.+]] = arith.divui %[[LINEAR]], %[[K100]] : index
// CHECK:             %[[V:.+]] = memref.load %[[ST]][%[[I]], %[[J]]] : memref<3x100xi8, strided<[128, 1], offset: 4>>
// CHECK:             memref.store %[[V]], %[[T]][%[[I]], %[[J]]] : memref<3x100xi8>
// CHECK:           }
// CHECK:           gpu.barrier
func.func @bounds_checked(%s: memref<3x128xi8>, %t: memref<3x100xi8>) {
  %st = memref.subview %s[0, 4] [3, 100] [1, 1] : memref<3x128xi8> to memref<3x100xi8, strided<[128, 1], offset: 4>>
  memref.copy %st, %t : memref<3x100xi8, strided<[128, 1], offset: 4>> to memref<3x100xi8>
  return
}

// -----

// Copies the plan moves with one memcpy stay: identity layouts, and a
// contiguous block of rows at an offset (strides of a row-major buffer).
// So does a copy with a dynamic shape (the plan reports it).

// CHECK-LABEL: func.func @contiguous_stay
// CHECK-NOT:     gpu.launch
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x256xf32> to memref<4x256xf32>
// CHECK-NOT:     gpu.launch
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x256xf32, strided<[256, 1], offset: 512>> to memref<4x256xf32>
// CHECK-NOT:     gpu.launch
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
// CHECK-NOT:     gpu.launch
// CHECK:         return
func.func @contiguous_stay(%a: memref<4x256xf32>, %b: memref<4x256xf32>, %c: memref<8x256xf32>, %d: memref<?x4xf32, strided<[8, 1]>>, %e: memref<?x4xf32>) {
  memref.copy %a, %b : memref<4x256xf32> to memref<4x256xf32>
  %rows = memref.subview %c[2, 0] [4, 256] [1, 1] : memref<8x256xf32> to memref<4x256xf32, strided<[256, 1], offset: 512>>
  memref.copy %rows, %b : memref<4x256xf32, strided<[256, 1], offset: 512>> to memref<4x256xf32>
  memref.copy %d, %e : memref<?x4xf32, strided<[8, 1]>> to memref<?x4xf32>
  return
}

// -----

// A strided copy inside a kernel is the kernel's (int21-gpu-map-forall
// spreads it over the block's threads as a linalg.copy), not a kernel of
// its own; a strided copy of no elements is dropped.

// CHECK-LABEL: func.func @inside_kernel
// CHECK-COUNT-1: gpu.launch
// CHECK:           linalg.copy
// CHECK-NOT:     gpu.launch
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @inside_kernel(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %e: memref<4x8xf32>, %f: memref<4x0xf32>) {
  scf.forall (%i) in (1) {
    %t = memref.transpose %a (i, j) -> (j, i) : memref<8x16xf32> to memref<16x8xf32, strided<[1, 16]>>
    memref.copy %t, %b : memref<16x8xf32, strided<[1, 16]>> to memref<16x8xf32>
  } {mapping = [#gpu.block<x>]}
  %none = memref.subview %e[0, 2] [4, 0] [1, 1] : memref<4x8xf32> to memref<4x0xf32, strided<[8, 1], offset: 2>>
  memref.copy %none, %f : memref<4x0xf32, strided<[8, 1], offset: 2>> to memref<4x0xf32>
  return
}

// -----

// The zeros of a padded buffer: a host fill becomes a kernel of many blocks
// (1 * 3 * 230 * 230 = 158700 elements, 620 blocks of 256 threads, the last
// one partly), one store of the fill value a thread; a fill of no elements
// is dropped.

// CHECK-LABEL: func.func @padded_zeros
// CHECK-SAME:    %[[BUF:[a-z0-9]+]]: memref<1x3x230x230xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C620:.+]] = arith.constant 620 : index
// CHECK-NOT:     linalg.fill
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %[[C620]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads({{.*}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}})
// CHECK:           %[[LINEAR:.+]] = arith.addi %{{.+}}, %{{.+}} overflow<nsw, nuw> : index
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[LINEAR]], %{{.+}} : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[W:.+]] = arith.remui %[[LINEAR]], %{{.+}} : index
// CHECK:             %[[R1:.+]] = arith.divui %[[LINEAR]], %{{.+}} : index
// CHECK:             %[[H:.+]] = arith.remui %[[R1]], %{{.+}} : index
// CHECK:             %[[C:.+]] = arith.divui %[[R1]], %{{.+}} : index
// CHECK:             memref.store %[[ZERO]], %[[BUF]][%{{.+}}, %[[C]], %[[H]], %[[W]]] : memref<1x3x230x230xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         return
func.func @padded_zeros(%buf: memref<1x3x230x230xf32>, %none: memref<0x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buf : memref<1x3x230x230xf32>)
  linalg.fill ins(%zero : f32) outs(%none : memref<0x4xf32>)
  return
}

// -----

// Elementwise compute left on the host (a linalg.map yielding a constant, as
// the padding of a convolution's input lowers; an elementwise add): one
// thread an element, the body cloned between the loads and the store; the
// output is loaded only where the body reads it. A broadcast is not
// elementwise: int21-gpu-map-forall runs it.

// CHECK-LABEL: func.func @elementwise_on_host
// CHECK-SAME:    %[[A:[a-z0-9]+]]: memref<64x128xf32>, %[[B:[a-z0-9]+]]: memref<64x128xf32>, %[[C:[a-z0-9]+]]: memref<64x128xf32>, %[[ROW:[a-z0-9]+]]: memref<128xf32>
// CHECK-DAG:     %[[PAD:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %c32, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads
// CHECK-NOT:       memref.load
// CHECK:           memref.store %[[PAD]], %[[C]][%{{.+}}, %{{.+}}] : memref<64x128xf32>
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %c32{{(_[0-9]+)?}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads
// CHECK:           %[[COL:.+]] = arith.remui
// CHECK:           %[[R:.+]] = arith.divui
// CHECK:           %[[X:.+]] = memref.load %[[A]][%[[R]], %[[COL]]]
// CHECK:           %[[Y:.+]] = memref.load %[[B]][%[[R]], %[[COL]]]
// CHECK-NOT:       memref.load
// CHECK:           %[[SUM:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK:           memref.store %[[SUM]], %[[C]][%[[R]], %[[COL]]] : memref<64x128xf32>
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads
// CHECK:           linalg.broadcast
func.func @elementwise_on_host(%a: memref<64x128xf32>, %b: memref<64x128xf32>, %c: memref<64x128xf32>, %row: memref<128xf32>) {
  %pad = arith.constant 1.0 : f32
  linalg.map outs(%c : memref<64x128xf32>)
    (%init: f32) {
      linalg.yield %pad : f32
    }
  linalg.map { arith.addf } ins(%a, %b : memref<64x128xf32>, memref<64x128xf32>) outs(%c : memref<64x128xf32>)
  linalg.broadcast ins(%row : memref<128xf32>) outs(%c : memref<64x128xf32>) dimensions = [0]
  return
}
