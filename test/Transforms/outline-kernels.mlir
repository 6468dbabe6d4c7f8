// RUN: int21-opt %s -split-input-file -int21-outline-kernels | FileCheck %s

// Two loop nests with the same body (other buffers) share one kernel; a
// third is a kernel of its own. Constants and globals are cloned into the
// kernel, the buffers and scalars it uses become its arguments, in the order
// of first use.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.+]]: memref<4xf32>, %[[B:.+]]: memref<4xf32>, %[[C:.+]]: memref<4xf32>, %[[N:.+]]: index)
// CHECK:      call @[[ADD:int21_kernel_[0-9a-f]{16}]](%[[A]], %[[B]])
// CHECK-NEXT: call @[[ADD]](%[[B]], %[[C]])
// CHECK-NEXT: call @[[SCALE:int21_kernel_[0-9a-f]{16}]](%[[N]], %[[C]])
// CHECK-NEXT: return
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>,
                %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %table = memref.get_global @table : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %t = memref.load %table[%i] : memref<4xf32>
    %y = arith.addf %x, %t : f32
    memref.store %y, %b[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    %t = memref.load %table[%i] : memref<4xf32>
    %y = arith.addf %x, %t : f32
    memref.store %y, %c[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %c[%c0] : memref<4xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %c[%c0] : memref<4xf32>
  }
  return
}

// CHECK: func.func @[[ADD]](%[[X:.+]]: memref<4xf32>, %[[Y:.+]]: memref<4xf32>)
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: memref.get_global @table
// CHECK: scf.for
// CHECK: memref.load %[[X]]
// CHECK: memref.store {{.*}}, %[[Y]]
// CHECK: return
// CHECK: func.func @[[SCALE]](%{{.+}}: index, %{{.+}}: memref<4xf32>)
// CHECK-NOT: func.func

// -----

// A loop with a vector result: the kernel ends with the write of the result.
// CHECK-LABEL: func.func @loop_result
// CHECK:         call @[[KERNEL:int21_kernel_[0-9a-f]{16}]](%{{.+}}, %{{.+}})
// CHECK-NEXT:    return
// CHECK:       func.func @[[KERNEL]]
// CHECK:         scf.for
// CHECK:         vector.transfer_write
// CHECK-NEXT:    return
func.func @loop_result(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %pad = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%s = %zero) -> vector<8xf32> {
    %x = vector.transfer_read %a[%c0], %pad : memref<8xf32>, vector<8xf32>
    %t = arith.addf %s, %x : vector<8xf32>
    scf.yield %t : vector<8xf32>
  }
  vector.transfer_write %sum, %b[%c0] : vector<8xf32>, memref<8xf32>
  return
}

// -----

// A loop nest over a buffer of dynamic shape (a dynamic model's), which the
// bare-pointer calling convention cannot pass, is outlined too: the kernel
// takes the buffer's base and its dynamic extents (offset, sizes, strides,
// those the type leaves dynamic) and views the base as the buffer again. A
// loop nest with results stays where it is.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BASE:.*]], %{{.*}}, %[[SIZE:.*]], %{{.*}} = memref.extract_strided_metadata %arg0 : memref<?xf32> -> memref<f32>, index, index, index
// CHECK-NEXT: call @[[KERNEL:int21_kernel_[0-9a-f]+]](%arg1, %[[BASE]], %[[SIZE]]) : (index, memref<f32>, index) -> ()
// CHECK-NEXT: scf.for
// CHECK: func.func @[[KERNEL]](%[[N:.*]]: index, %[[B:.*]]: memref<f32>, %[[S:.*]]: index)
// CHECK-NEXT: %[[VIEW:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [%[[S]]], strides: [1] : memref<f32> to memref<?xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK: memref.load %[[VIEW]]
func.func @dynamic(%a: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %a[%c0] : memref<?xf32>
  }
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> index {
    %t = arith.addi %s, %i : index
    scf.yield %t : index
  }
  return %r : index
}

// -----

// A strided view of dynamic offset, sizes and strides: each goes to the
// kernel, in that order, after the other arguments (the loop's bound); a
// static stride stays in the kernel's view.
// CHECK-LABEL: func.func @strided
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK-NEXT: call @[[KERNEL:int21_kernel_[0-9a-f]+]](%{{.*}}, %[[BASE]], %[[OFF]], %[[SIZES]]#0, %[[SIZES]]#1, %[[STRIDES]]#0)
// CHECK: func.func @[[KERNEL]](%{{.*}}: index, %[[B:.*]]: memref<f32>, %[[O:.*]]: index, %[[S0:.*]]: index, %[[S1:.*]]: index, %[[T0:.*]]: index)
// CHECK-NEXT: memref.reinterpret_cast %[[B]] to offset: [%[[O]]], sizes: [%[[S0]], %[[S1]]], strides: [%[[T0]], 1] : memref<f32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @strided(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32, strided<[?, 1], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i, %c0] : memref<?x?xf32, strided<[?, 1], offset: ?>>
    memref.store %x, %a[%c0, %i] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  }
  return
}
